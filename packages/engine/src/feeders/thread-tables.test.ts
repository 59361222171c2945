import { type FeederConfig, type FeederTable, Partition, type PartitionStep } from "@volley/protocol";
import { describe, expect, it } from "vitest";
import { threadTables } from "./thread-tables.js";

// Unique rows dealt by the VUs each thread really runs: with exactly VUs x iterations rows, every
// thread holds exactly its VUs' iterations' worth, whatever the spread (1-3 workers of 1-4 threads,
// VU counts that do not divide). Dealt by thread weights alone, 10 VUs x 100 iterations over two
// workers lost 100 iterations.
const config: FeederConfig = { rows: undefined, file: "u.csv", mode: "unique", onExhausted: "stop" };

describe("threadTables: unique rows by the VUs that take them", () => {
  it("every spread gives each thread rows for exactly its VUs' iterations, each row once", () => {
    const iterations = 7;
    let spreads = 0;
    for (const workers of [[1], [2], [3], [1, 1], [2, 1], [4, 3], [1, 2, 3], [3, 3, 1]]) {
      for (let vus = 1; vus <= 13; vus++) {
        const rows = vus * iterations;
        const table: FeederTable = {
          columns: ["n"],
          rows: Array.from({ length: rows }, (_, i) => [String(i)]),
        };
        const seen = new Set<string>();
        workers.forEach((threads, w) => {
          const slice: PartitionStep[] = [{ weights: workers, index: w }];
          // The engine starts no more threads than the slice has VUs.
          const sliceVus = new Partition(slice).count(vus);
          const used = Math.max(1, Math.min(threads, sliceVus));
          for (let t = 0; t < used; t++) {
            const threadStep = { weights: Array(used).fill(1), index: t };
            const { tables } = threadTables({ u: config }, { u: table }, slice, threadStep, undefined, {
              u: vus,
            });
            const threadVus = new Partition([...slice, threadStep]).count(vus);
            expect(tables.u.rows.length, `${workers} vus=${vus} w=${w} t=${t}`).toBe(threadVus * iterations);
            for (const [n] of tables.u.rows) {
              expect(seen.has(n)).toBe(false);
              seen.add(n);
            }
          }
        });
        expect(seen.size).toBe(rows);
        spreads++;
      }
    }
    expect(spreads).toBe(8 * 13);
  });

  it("without units (an arrival rate takes the rows) they follow the weights, as before", () => {
    const table: FeederTable = { columns: ["n"], rows: Array.from({ length: 30 }, (_, i) => [String(i)]) };
    const counts = [0, 1, 2].map(
      (t) =>
        threadTables({ u: config }, { u: table }, [{ weights: [3], index: 0 }], {
          weights: [1, 1, 1],
          index: t,
        }).tables.u.rows.length,
    );
    expect(counts).toEqual([10, 10, 10]);
  });
});
