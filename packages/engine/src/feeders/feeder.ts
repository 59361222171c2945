import {
  type FeederConfig,
  type FeederTable,
  MAX_RELEASED_RANGES,
  type RowRange,
  rangesLength,
  sliceRanges,
} from "@volley/protocol";

/**
 * One feeder in one thread. `unique` rows were dealt to this thread already (no row is in two
 * threads), so handing them out is a cursor: no coordination on the request path.
 */
export class Feeder {
  private cursor = 0;
  /** Rows this thread may still hand out: a release shortens the list from its end. */
  private count: number;
  private readonly releasable: boolean;

  constructor(
    readonly name: string,
    readonly columns: string[],
    private readonly rows: string[][],
    private readonly mode: FeederConfig["mode"],
    private readonly onExhausted: FeederConfig["onExhausted"],
    /** A unique feeder's rows as the table's row numbers, in this thread's order. */
    private ranges: RowRange[] = [],
  ) {
    this.count = rows.length;
    // Only a list whose row numbers are known can be handed over (a thread given bare rows keeps them).
    this.releasable = mode === "unique" && rangesLength(ranges) === rows.length;
  }

  /**
   * Gives up `share` of the rows this thread has not handed out yet, from the end of its list
   * (no VU of this thread reaches them any more), as row-number ranges for a joining worker.
   * At most `MAX_RELEASED_RANGES` ranges: a list cut into more keeps the rest.
   */
  release(share: number): RowRange[] {
    if (!this.releasable || this.cursor >= this.count) return [];
    let keep = this.count - Math.floor((this.count - this.cursor) * share);
    let released = sliceRanges(this.ranges, keep, this.count);
    if (released.length > MAX_RELEASED_RANGES) {
      released = released.slice(released.length - MAX_RELEASED_RANGES);
      keep = this.count - rangesLength(released);
    }
    this.ranges = sliceRanges(this.ranges, 0, keep);
    this.count = keep;
    return released;
  }

  /** The row for a VU's iteration; null once a unique feeder with `onExhausted: stop` ran out. */
  next(vuNumber: number, iteration: number): string[] | null {
    const count = this.mode === "unique" ? this.count : this.rows.length;
    if (count === 0) return null;
    switch (this.mode) {
      case "unique":
        if (this.cursor >= count) {
          if (this.onExhausted === "stop") return null;
          this.cursor = 0;
        }
        return this.rows[this.cursor++];
      case "sequential":
        // Each VU walks the rows from its own offset.
        return this.rows[(vuNumber - 1 + iteration) % count];
      case "random":
        return this.rows[Math.floor(Math.random() * count)];
    }
  }
}

/** A thread's feeders, in a fixed order templates refer to by index. */
export class FeederSet {
  readonly feeders: Feeder[];
  private readonly index = new Map<string, number>();

  constructor(
    configs: Record<string, FeederConfig>,
    tables: Record<string, FeederTable>,
    uniqueRanges: Record<string, RowRange[]> = {},
  ) {
    this.feeders = Object.entries(configs).map(([name, config], i) => {
      this.index.set(name, i);
      const table = tables[name] ?? { columns: [], rows: [] };
      const ranges = uniqueRanges[name] ?? [];
      return new Feeder(name, table.columns, table.rows, config.mode, config.onExhausted, ranges);
    });
  }

  /** Each unique feeder's released rows (see `Feeder.release`); feeders that gave none are left out. */
  release(share: number): Record<string, RowRange[]> {
    const out: Record<string, RowRange[]> = {};
    for (const feeder of this.feeders) {
      const released = feeder.release(share);
      if (released.length > 0) out[feeder.name] = released;
    }
    return out;
  }

  get size(): number {
    return this.feeders.length;
  }

  /** [feeder index, column index] of `{{data.feeder.field}}`; throws for an unknown one. */
  locate(feeder: string, field: string): [number, number] {
    const i = this.index.get(feeder);
    const column = i === undefined ? -1 : this.feeders[i].columns.indexOf(field);
    if (i === undefined || column < 0) throw new Error(`{{data.${feeder}.${field}}} has no data`);
    return [i, column];
  }

  /** Indexes of the named feeders, in this set's order. */
  indexesOf(names: readonly string[]): number[] {
    return names.map((name) => this.index.get(name)).filter((i): i is number => i !== undefined);
  }

  /**
   * One row of each feeder in `take` (indexes) into `out`; false when one ran out (the iteration
   * must not run).
   */
  pick(vuNumber: number, iteration: number, take: readonly number[], out: Array<string[] | null>): boolean {
    for (let k = 0; k < take.length; k++) {
      const i = take[k];
      const row = this.feeders[i].next(vuNumber, iteration);
      if (row === null) return false;
      out[i] = row;
    }
    return true;
  }
}
