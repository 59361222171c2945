import { Partition, type PartitionStep, parseScenario } from "@volley/protocol";
import { describe, expect, it } from "vitest";
import type { EngineVu } from "../vu/engine-vu.js";
import { SharedIterationsExecutor } from "./shared-iterations.js";

// Each thread's share of a shared-iterations load: dealt by the VUs it really runs, so the shares
// add up to exactly the iterations and no thread without VUs holds any, whatever the spread.
function share(vus: number, iterations: number, steps: PartitionStep[]): number {
  const load = parseScenario({
    name: "s",
    target: "http://127.0.0.1:1",
    load: { executor: "shared-iterations", vus, iterations },
    requests: [{ path: "/" }],
  }).parts[0].load;
  if (load.executor !== "shared-iterations") throw new Error("not shared-iterations");
  const executor = new SharedIterationsExecutor(load, {
    createVu: () => ({}) as EngineVu,
    partition: new Partition(steps),
    startAt: 0,
    onDropped: () => {},
    onDone: () => {},
  });
  return executor.share;
}

describe("shared-iterations: each thread's share", () => {
  it("adds up to the iterations over 1-3 workers of 1-4 threads, VU counts that do not divide", () => {
    let spreads = 0;
    for (const workers of [[1], [2], [4], [1, 1], [2, 1], [4, 3], [1, 2, 3], [3, 3, 1]]) {
      for (let vus = 1; vus <= 13; vus++) {
        for (const iterations of [vus, 100, 1000, 1001]) {
          let total = 0;
          workers.forEach((threads, w) => {
            const slice: PartitionStep[] = [{ weights: workers, index: w }];
            // The engine starts no more threads than the slice has VUs.
            const used = Math.max(1, Math.min(threads, new Partition(slice).count(vus)));
            for (let t = 0; t < used; t++) {
              const steps = [...slice, { weights: Array(used).fill(1), index: t }];
              const mine = share(vus, iterations, steps);
              const threadVus = new Partition(steps).count(vus);
              if (threadVus === 0) expect(mine).toBe(0);
              // Every VU of the thread has at least one iteration of its own to run.
              else expect(mine).toBeGreaterThanOrEqual(Math.floor((iterations * threadVus) / vus) - 1);
              total += mine;
            }
          });
          expect(total, `${workers} vus=${vus} iterations=${iterations}`).toBe(iterations);
          spreads++;
        }
      }
    }
    expect(spreads).toBe(8 * 13 * 4);
  });
});
