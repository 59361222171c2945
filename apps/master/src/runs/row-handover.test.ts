import { parseScenario, type RowRange, type RowsReleased } from "@volley/protocol";
import { describe, expect, it } from "vitest";
import { RowHandover } from "./row-handover.js";

const RUN = "r-handover";

function table(rows: number): { rowCount: number } {
  return { rowCount: rows };
}

const scenario = parseScenario({
  name: "handover",
  target: "http://127.0.0.1:1",
  load: { executor: "constant-vus", vus: 4, duration: "10s" },
  data: {
    users: { rows: [{ n: 0 }], mode: "unique" },
    words: { rows: [{ n: 0 }], mode: "sequential" },
  },
  requests: [{ name: "a", path: "/?u={{data.users.n}}&w={{data.words.n}}" }],
});

/** Workers a (3 threads) and b (1 thread): a holds rows 0-749, b 750-999. */
function handover(): RowHandover {
  const weights = [3, 1];
  const handover = RowHandover.forRun(scenario, { users: table(1000), words: table(10) }, [
    { workerId: "a", partition: [{ weights, index: 0 }] },
    { workerId: "b", partition: [{ weights, index: 1 }] },
  ]);
  if (!handover) throw new Error("a run with a unique feeder has a handover");
  return handover;
}

const answer = (handoverId: number, rows: Record<string, RowRange[]>): RowsReleased => ({
  type: "rows-released",
  runId: RUN,
  handover: handoverId,
  rows,
});

/** Starts a collect over a and b, returning its promise and the id the workers were told. */
function collect(rows: RowHandover, connected = ["a", "b"], timeoutMs = 2000) {
  let id = 0;
  const done = rows.collect(
    ["a", "b"],
    (workerId, handoverId) => {
      id = handoverId;
      return connected.includes(workerId);
    },
    timeoutMs,
  );
  return { done, id: () => id };
}

describe("RowHandover", () => {
  it("is made only for runs with a unique feeder that has rows", () => {
    const plan = [{ workerId: "a", partition: [{ weights: [1], index: 0 }] }];
    expect(RowHandover.forRun(scenario, { words: table(10) }, plan)).toBeNull();
  });

  it("takes each worker's own rows and deals them to the joiners by threads", async () => {
    const rows = handover();
    const { done, id } = collect(rows);
    expect(rows.receive("a", answer(id(), { users: [[600, 750]] }))).toBeNull();
    expect(rows.receive("b", answer(id(), { users: [[950, 1000]] }))).toBeNull();
    const released = await done;
    expect(released).toEqual({
      users: [
        [600, 750],
        [950, 1000],
      ],
    });
    const { grants, counts } = rows.grant(released, [
      { workerId: "c", threads: 3 },
      { workerId: "d", threads: 1 },
    ]);
    expect(counts).toEqual({ users: 200 });
    expect(grants.get("c")).toEqual({ users: [[600, 750]] });
    expect(grants.get("d")).toEqual({ users: [[950, 1000]] });
    // The joiners hold them now: c can give some back in the next handover, a cannot.
    const next = collect(rows);
    expect(rows.receive("a", answer(next.id(), { users: [[600, 601]] }))).toMatch(/does not hold/);
    expect(rows.receive("b", answer(next.id(), {}))).toBeNull();
    expect(await next.done).toEqual({});
  });

  it("refuses rows a worker does not hold, the same rows twice, and feeders that are not unique", async () => {
    const rows = handover();
    let round = collect(rows);
    expect(rows.receive("b", answer(round.id(), { users: [[700, 760]] }))).toMatch(
      /rows of "users" this worker does not hold/,
    );
    expect(
      rows.receive(
        "a",
        answer(round.id(), {
          users: [
            [10, 20],
            [15, 25],
          ],
        }),
      ),
    ).toMatch(/the same rows twice/);
    // Nothing of a refused answer is taken.
    expect(await round.done).toEqual({});
    round = collect(rows);
    expect(rows.receive("a", answer(round.id(), { words: [[0, 5]] }))).toMatch(
      /"words", which is not a unique feeder/,
    );
    expect(rows.receive("b", answer(round.id(), { users: [[750, 760]] }))).toBeNull();
    expect(await round.done).toEqual({ users: [[750, 760]] });
  });

  it("does not wait for workers that are not connected, and drops answers that come too late", async () => {
    const rows = handover();
    const round = collect(rows, ["a"], 50);
    // b was not reached: a's answer alone settles it.
    expect(rows.receive("a", answer(round.id(), { users: [[740, 750]] }))).toBeNull();
    expect(await round.done).toEqual({ users: [[740, 750]] });
    const slow = collect(rows, ["a", "b"], 50);
    expect(await slow.done).toEqual({});
    expect(rows.receive("a", answer(slow.id(), { users: [[700, 710]] }))).toMatch(/no handover under way/);
    expect(rows.receive("a", answer(slow.id() + 5, {}))).toMatch(/no handover under way/);
  });
});
