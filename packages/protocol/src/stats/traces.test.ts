import { describe, expect, it } from "vitest";
import { requestStatsSchema } from "./request-stats.js";
import { mergeSlowest, type SlowTrace, slowTraceListProblem } from "./traces.js";

const id = (n: number) => n.toString(16).padStart(32, "0");
const trace = (n: number, ms: number): SlowTrace => ({
  traceId: id(n),
  ms,
  at: 1_700_000_000_000,
  status: "200",
});

describe("a batch's slowest list", () => {
  it("takes up to five well-formed traces", () => {
    expect(slowTraceListProblem([])).toBeNull();
    expect(
      slowTraceListProblem([
        trace(1, 9),
        { ...trace(2, 3), status: "grpc:OK" },
        { ...trace(3, 0), status: "0" },
      ]),
    ).toBeNull();
  });

  it.each([
    ["not a list", { 0: trace(1, 1) }, /is not a list/],
    ["six", Array.from({ length: 6 }, (_, i) => trace(i, 6 - i)), /more than 5/],
    ["a string", ["x"], /0 is not an object/],
    ["an extra key", [{ ...trace(1, 1), note: "x" }], /traceId, ms, at and status only/],
    ["a missing key", [{ traceId: id(1), ms: 1, at: 1 }], /traceId, ms, at and status only/],
    [
      "an upper-case id",
      [{ ...trace(1, 1), traceId: id(1).replace("0", "A") }],
      /0.traceId is not a trace id/,
    ],
    ["a negative latency", [trace(1, -1)], /0.ms is not a latency/],
    ["a latency as text", [{ ...trace(1, 1), ms: "1" }], /0.ms is not a latency/],
    ["an infinite time", [{ ...trace(1, 1), at: Number.POSITIVE_INFINITY }], /0.at is not a time/],
    ["a status beyond HTTP's", [trace(1, 2), { ...trace(2, 1), status: "2000" }], /1.status is not a status/],
  ])("refuses %s, naming the entry and field", (_, slowest, message) => {
    expect(slowTraceListProblem(slowest)).toMatch(message);
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
    expect(parsed.error?.issues[0]?.message).toMatch(message);
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
