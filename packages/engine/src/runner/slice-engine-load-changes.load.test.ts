import { Partition, parseScenario } from "@volley/protocol";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { startTargetServer, type TargetServer } from "../../../../test/support/target-server.js";
import { runSlice } from "../test-support/run-slice.js";
import { SliceEngine, type SlicePeriod } from "./slice-engine.js";

// Load changes made while a slice runs (PATCH /api/runs/:id/load reaches the engine as these).
let server: TargetServer;
beforeAll(async () => {
  server = await startTargetServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const base = () => ({ name: "t", target: server.url });

describe("load changes while running", () => {
  it("ramping-vus: a change holds until its stage ends, then the plan resumes", async () => {
    const { periods } = await runSlice(
      {
        ...base(),
        load: {
          executor: "ramping-vus",
          startVus: 2,
          stages: [
            { duration: "2s", target: 2 },
            { duration: "2s", target: 2 },
          ],
          maxVus: 6,
        },
        requests: [{ path: "/hello" }],
        thinkTime: "20ms",
      },
      [],
      20,
      [{ part: 0, vus: 6, atMs: 500, untilMs: 2000 }],
    );
    const vus = periods.map((p) => p.vus);
    expect(vus[0]).toBe(6);
    expect(vus[1]).toBe(6);
    // Second 2 still saw the 6 resting at its start; second 3 is the plan's 2 alone.
    expect(vus[3]).toBe(2);
  });

  it("a lower VU count rests VUs after their iteration, and a later change wakes them again", async () => {
    const { periods } = await runSlice(
      {
        ...base(),
        load: { executor: "constant-vus", vus: 4, duration: "4s" },
        requests: [{ path: "/hello" }],
        thinkTime: "20ms",
      },
      [],
      20,
      [
        { part: 0, vus: 1, atMs: 200, untilMs: null },
        { part: 0, vus: 4, atMs: 2800, untilMs: null },
      ],
    );
    // VUs active at most in each second: 4 until 0.2 s, then 1 (second 1 sees only that), then 4
    // again from 2.8 s. The changes sit 0.8 s from the seconds asserted: a CI machine under load
    // stalls the event loop for half a second at times, and an iteration in flight finishes first.
    // (Request counts are not compared: on a starved CPU the event loop sets the pace.)
    const vus = periods.map((p) => p.vus);
    expect([vus[0], vus[1], vus[3]]).toEqual([4, 1, 4]);
    const perSecond = periods.map((p) => p.requests.reduce((sum, r) => sum + r.requests, 0));
    expect(perSecond.slice(0, 4).every((n) => n > 0)).toBe(true);
  });

  it("a change whose timer fires a few ms early still takes effect (the CI read [4, 1, 1])", async () => {
    // Timers can fire a millisecond or more before performance.now() reaches their moment; the
    // clock is set back 5 ms once the change is armed, so its timer fires "early" for certain.
    const periods: SlicePeriod[] = [];
    const startAtEpochMs = Date.now() + 20;
    const engine = new SliceEngine({
      scenario: parseScenario({
        ...base(),
        load: { executor: "constant-vus", vus: 1, maxVus: 4, duration: "3s" },
        requests: [{ path: "/hello" }],
        thinkTime: "20ms",
      }),
      partition: new Partition(),
      startAtEpochMs,
      workerName: "test-worker",
      onPeriod: (period) => periods.push(period),
    });
    const realNow = performance.now.bind(performance);
    const arm = setTimeout(() => {
      engine.changeLoad({ part: 0, vus: 4, atMs: Date.now() - startAtEpochMs + 400, untilMs: null });
      vi.spyOn(performance, "now").mockImplementation(() => realNow() - 5);
    }, 700);
    try {
      await engine.run();
    } finally {
      clearTimeout(arm);
      vi.restoreAllMocks();
    }
    // The change at about 1.1 s: second 2 has the 4 VUs it asked for.
    expect(periods[0].vus).toBe(1);
    expect(periods[2].vus).toBe(4);
  });

  it("an arrival rate: 20/s, then 80/s from 1 s, is 20 + 80 iterations in 2 s", async () => {
    const { aggregate } = await runSlice(
      {
        ...base(),
        load: { executor: "constant-arrival-rate", rate: 20, duration: "2s", maxVus: 20 },
        requests: [{ path: "/hello" }],
      },
      [],
      20,
      [{ part: 0, rate: 80, atMs: 1000, untilMs: null }],
    );
    expect(aggregate.total().requests + aggregate.dropped).toBe(100);
    expect(server.total()).toBe(aggregate.total().requests);
  });
});
