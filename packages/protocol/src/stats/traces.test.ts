import { describe, expect, it } from "vitest";
import { requestStatsSchema } from "./request-stats.js";
import {
  decodeSlowest,
  encodeSlowest,
  slowestCount,
  slowestTextProblem,
  slowestTopMs,
  withSlowestText,
} from "./slowest-text.js";
import { mergeSlowest, type SlowTrace } from "./traces.js";

const id = (n: number) => n.toString(16).padStart(32, "0");
const trace = (n: number, ms: number): SlowTrace => ({
  traceId: id(n),
  ms,
  at: 1_700_000_000_000,
  status: "200",
});
const text = (...traces: SlowTrace[]) => encodeSlowest(traces);

describe("a batch's slowest list", () => {
  it("travels as text: up to five entries, read back as they were written", () => {
    const list = [
      trace(1, 812.5),
      { ...trace(2, 3.001), status: "grpc:DEADLINE_EXCEEDED" },
      { ...trace(3, 0), status: "0" },
    ];
    const written = encodeSlowest(list);
    expect(written).toBe(
      `${id(1)} 812.5 1700000000000 200,${id(2)} 3.001 1700000000000 grpc:DEADLINE_EXCEEDED,${id(3)} 0 1700000000000 0`,
    );
    expect(slowestTextProblem(written)).toBeNull();
    expect(decodeSlowest(written)).toEqual(list);
    expect(slowestCount(written)).toBe(3);
    expect(slowestTopMs(written)).toBe(812.5);
    expect(slowestTextProblem("")).toBeNull();
    expect(decodeSlowest("")).toEqual([]);
    expect(slowestCount("")).toBe(0);
  });

  it("reads each latency exactly as Number() does", () => {
    for (let i = 0; i < 2000; i++) {
      const ms = Math.round(Math.random() * 10 ** (1 + (i % 10))) / 1000;
      expect(slowestTopMs(text(trace(1, ms)))).toBe(ms);
    }
  });

  it.each([
    ["not text", [trace(1, 1)], /is not text/],
    ["six", text(...Array.from({ length: 6 }, (_, i) => trace(i, 6 - i))), /more than 5 entries/],
    ["a gRPC status that is none", text({ ...trace(1, 1), status: "grpc:FINE" }), /entry 0 is not/],
    ["a status of two digits", text({ ...trace(1, 1), status: "20" }), /entry 0 is not/],
    ["a time of 16 digits", text({ ...trace(1, 1), at: 10 ** 15 }), /entry 0 is not/],
    ["a latency of 11 digits", text(trace(1, 10 ** 10)), /entry 0 is not/],
    ["an upper-case id", text(trace(1, 1)).replace("0", "A"), /entry 0 is not/],
    ["an id with a character beyond ASCII", text(trace(1, 1)).replace("0", "\u0660"), /entry 0 is not/],
    ["an id of 31 digits", text(trace(1, 1)).slice(1), /entry 0 is not/],
    ["a status of three characters not digits", text({ ...trace(1, 1), status: "2a0" }), /entry 0 is not/],
    ["a negative latency", text(trace(1, -1)), /entry 0 is not/],
    ["a latency in exponent form", text(trace(1, 1e21)), /entry 0 is not/],
    ["a latency finer than a microsecond", text(trace(1, 1.0001)), /entry 0 is not/],
    ["an extra field", `${text(trace(1, 1))} x`, /entry 0 is not/],
    ["a status beyond HTTP's", text(trace(1, 2), { ...trace(2, 1), status: "2000" }), /entry 1 is not/],
    ["a trailing comma", `${text(trace(1, 1))},`, /entry 1 is not/],
    ["fastest first", text(trace(1, 2), trace(2, 9.5)), /not slowest first/],
  ])("refuses %s", (_, slowest, message) => {
    expect(slowestTextProblem(slowest)).toMatch(message);
    const parsed = requestStatsSchema.safeParse({
      name: "r",
      method: "GET",
      requests: 10,
      failures: 0,
      bytesIn: 0,
      bytesOut: 0,
      statusCodes: {},
      errors: [],
      latency: { sumUs: 0, minUs: 0, maxUs: 0, histogram: "" },
      slowest,
    });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(["slowest"]);
  });

  it("reads statistics stored as a list of objects (before the text form) as text", () => {
    const stored = { name: "r", slowest: [trace(1, 9), trace(2, 5)] };
    expect(withSlowestText(stored).slowest).toBe(text(trace(1, 9), trace(2, 5)));
    const current = { name: "r", slowest: text(trace(1, 9)) };
    expect(withSlowestText(current).slowest).toBe(text(trace(1, 9)));
    const none: { name: string; slowest?: string } = { name: "r" };
    expect(withSlowestText(none)).toEqual({ name: "r" });
  });

  it("merge slowest first, five at most, ties by trace id", () => {
    const merged = mergeSlowest(
      [trace(1, 9), trace(2, 5), trace(3, 1)],
      [trace(4, 5), trace(5, 5), trace(6, 2)],
    );
    expect(merged.map((t) => [t.ms, t.traceId.slice(-1)])).toEqual([
      [9, "1"],
      [5, "2"],
      [5, "4"],
      [5, "5"],
      [2, "6"],
    ]);
  });
});
