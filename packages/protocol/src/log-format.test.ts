import { describe, expect, it } from "vitest";
import { formatLogLine, resolveLogFormat } from "./log-format.js";

describe("log lines for a person", () => {
  it("read as time, level, service, message, then the fields", () => {
    const line = JSON.stringify({
      level: 40,
      time: Date.parse("2026-12-02T12:04:05Z"),
      pid: 1,
      hostname: "h",
      service: "volley-master",
      runId: "0mx1",
      workerId: "w 1",
      err: { message: "boom" },
      msg: "worker lost",
    });
    expect(formatLogLine(line)).toBe(
      '12:04:05  WARN   master  worker lost  runId=0mx1 workerId="w 1" err=boom\n',
    );
    expect(formatLogLine("Volley master on http://x")).toBe("Volley master on http://x");
  });

  it("are the default on a terminal only; --log-format decides otherwise", () => {
    expect(resolveLogFormat(undefined, true)).toBe("human");
    expect(resolveLogFormat(undefined, false)).toBe("json");
    expect(resolveLogFormat("json", true)).toBe("json");
    expect(resolveLogFormat("yaml", true)).toBeNull();
  });
});
