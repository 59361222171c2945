import { deflateRawSync } from "node:zlib";
import type { RequestStats, SlowTrace } from "@volley/protocol";
import { RequestRecorder, StatsAggregate } from "@volley/stats";
import { describe, expect, it } from "vitest";
import { cumulativeFromRows, parseMergeState } from "./merge-state.js";
import { packSecondStats, unpackSecondStats } from "./second-rows.js";

// Statistics stored by a version that kept a period's slowest requests as a list of objects
// (seconds, the run's totals, the checkpoint's open seconds) read as today's text form.
const slow = (n: number, ms: number): SlowTrace => ({
  traceId: n.toString(16).padStart(32, "0"),
  ms,
  at: 1_700_000_000_000 + n,
  status: "200",
});
const listed = [slow(1, 9.5), slow(2, 4)];

/** One name's statistics as an earlier version stored them: `slowest` a list. */
function storedBefore(): Record<string, unknown> {
  const recorder = new RequestRecorder("r", "GET");
  recorder.record(9500, 200, 1, 1);
  recorder.record(4000, 200, 1, 1);
  return { ...recorder.flush(), slowest: listed };
}

describe("statistics stored with slowest lists of objects", () => {
  it("read from a stored second", () => {
    const stats = unpackSecondStats(deflateRawSync(JSON.stringify(storedBefore())));
    const aggregate = new StatsAggregate();
    aggregate.add([stats], 0);
    expect(aggregate.get("r")?.slowest).toEqual(listed);
    // Written again, as text.
    const again = unpackSecondStats(packSecondStats(aggregate.list()[0]));
    expect(typeof again.slowest).toBe("string");
    expect(again.timings).toBeUndefined();
  });

  it("read from the run's totals and the checkpoint's open seconds", () => {
    const totals = cumulativeFromRows({ dropped: 0 }, [
      { runId: "x", name: "r", method: "GET", rank: 0, stats: JSON.stringify(storedBefore()) },
    ]);
    expect(totals.get("r")?.slowest).toEqual(listed);
    const state = parseMergeState(
      JSON.stringify({ workers: {}, open: [{ second: 3, vus: 1, dropped: 0, requests: [storedBefore()] }] }),
    );
    const open = new StatsAggregate();
    open.add(state.open[0].requests as RequestStats[], 0);
    expect(open.get("r")?.slowest).toEqual(listed);
  });
});
