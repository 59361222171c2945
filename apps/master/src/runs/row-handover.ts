import {
  dealRanges,
  feederUnits,
  type GrantedRows,
  joinRanges,
  MAX_GRANTED_RANGES,
  type PartitionStep,
  type RowRange,
  type RowsReleased,
  rangesLength,
  type Scenario,
  startingRanges,
  takeRanges,
} from "@volley/protocol";

/** How long the master waits for the run's workers to say which rows they gave up. */
export const HANDOVER_TIMEOUT_MS = 3000;

/** What a handover gives the joining workers: each one's rows, and how many of each feeder went. */
export interface RowGrants {
  grants: Map<string, GrantedRows>;
  counts: Record<string, number>;
}

interface PendingHandover {
  id: number;
  waiting: Set<string>;
  released: Record<string, RowRange[]>;
  done: () => void;
}

/**
 * Moves a running run's unused unique-feeder rows to workers that join it. The master keeps
 * which rows each worker holds (ranges of row numbers: each worker's block from the start, then
 * what it was granted, less what it gave up); at a rebalance it asks the run's workers to give
 * up a share of their unused rows (`release-rows`), takes each answer only if every row in it
 * was that worker's, and deals what came back to the joining workers. A row is never held by
 * two workers; rows given up in an answer that came too late or was refused are used by nobody.
 */
export class RowHandover {
  /** feeder → worker → the rows it holds, sorted and disjoint. */
  private readonly holders = new Map<string, Map<string, RowRange[]>>();
  private pending: PendingHandover | null = null;
  private lastId = 0;

  private constructor(
    tables: Record<string, number>,
    plan: Array<{ workerId: string; partition: PartitionStep[] }>,
    /** Per feeder, the VUs whose iterations take its rows (feederUnits): how the workers deal them. */
    units: Record<string, number | undefined>,
  ) {
    for (const [feeder, rows] of Object.entries(tables)) {
      const byWorker = new Map<string, RowRange[]>();
      for (const p of plan) byWorker.set(p.workerId, startingRanges(rows, p.partition, units[feeder]));
      this.holders.set(feeder, byWorker);
    }
  }

  /** The run's handover, or null when it has no unique feeder. */
  static forRun(
    scenario: Scenario,
    tables: Record<string, { rowCount: number }>,
    plan: Array<{ workerId: string; partition: PartitionStep[] }>,
  ): RowHandover | null {
    const unique = Object.entries(scenario.data)
      .filter(([name, config]) => config.mode === "unique" && tables[name])
      .map(([name]): [string, number] => [name, tables[name].rowCount]);
    if (unique.length === 0) return null;
    const units = Object.fromEntries(unique.map(([name]) => [name, feederUnits(scenario, name)]));
    return new RowHandover(Object.fromEntries(unique), plan, units);
  }

  /**
   * Asks `workers` to give up some of their unused rows (`send` tells one the handover's id and
   * returns false when it is not connected: it is not waited for) and resolves with what they
   * gave up, by feeder, once all answered or `timeoutMs` passed.
   */
  collect(
    workers: string[],
    send: (workerId: string, handover: number) => boolean,
    timeoutMs = HANDOVER_TIMEOUT_MS,
  ): Promise<Record<string, RowRange[]>> {
    const id = ++this.lastId;
    return new Promise((resolve) => {
      const released: Record<string, RowRange[]> = {};
      const finish = () => {
        clearTimeout(timer);
        if (this.pending?.id === id) this.pending = null;
        resolve(released);
      };
      const timer = setTimeout(finish, timeoutMs);
      this.pending = { id, waiting: new Set(), released, done: finish };
      for (const workerId of workers) {
        if (send(workerId, id)) this.pending.waiting.add(workerId);
      }
      if (this.pending.waiting.size === 0) finish();
    });
  }

  /**
   * A worker's answer: taken when it answers the handover under way and every range in it is
   * a row that worker holds; otherwise refused, and the reason returned.
   */
  receive(workerId: string, message: RowsReleased): string | null {
    const pending = this.pending;
    if (!pending || pending.id !== message.handover || !pending.waiting.has(workerId)) {
      return "an answer to no handover under way (too late, or not asked): its rows are used by nobody";
    }
    pending.waiting.delete(workerId);
    const taken = new Map<string, RowRange[]>();
    for (const [feeder, ranges] of Object.entries(message.rows)) {
      const held = this.holders.get(feeder)?.get(workerId);
      if (!held) return this.settle(pending, `rows of "${feeder}", which is not a unique feeder of the run`);
      const rest = takeRanges(held, ranges);
      if (!rest) {
        return this.settle(pending, `rows of "${feeder}" this worker does not hold (or the same rows twice)`);
      }
      taken.set(feeder, rest);
    }
    for (const [feeder, held] of taken) {
      this.holders.get(feeder)?.set(workerId, held);
      pending.released[feeder] = [...(pending.released[feeder] ?? []), ...message.rows[feeder]];
    }
    return this.settle(pending, null);
  }

  /**
   * Deals the released rows to the joining workers (contiguous shares by their threads) and
   * records them as theirs; returns each one's grant and how many rows of each feeder went.
   */
  grant(
    released: Record<string, RowRange[]>,
    joining: Array<{ workerId: string; threads: number }>,
  ): RowGrants {
    const grants = new Map<string, GrantedRows>(joining.map((w) => [w.workerId, {}]));
    const counts: Record<string, number> = {};
    const weights = joining.map((w) => w.threads);
    for (const [feeder, byWorker] of this.holders) {
      const all = joinRanges(released[feeder] ?? []);
      counts[feeder] = 0;
      joining.forEach((worker, index) => {
        const share = dealRanges(all, weights, index).slice(0, MAX_GRANTED_RANGES);
        byWorker.set(worker.workerId, joinRanges(share));
        (grants.get(worker.workerId) as GrantedRows)[feeder] = share;
        counts[feeder] += rangesLength(share);
      });
    }
    return { grants, counts };
  }

  private settle(pending: PendingHandover, problem: string | null): string | null {
    if (pending.waiting.size === 0) pending.done();
    return problem;
  }
}
