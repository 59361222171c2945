import {
  dealRanges,
  type FeederConfig,
  type FeederTable,
  type GrantedRows,
  type PartitionStep,
  type RowRange,
  startingRanges,
} from "@volley/protocol";

/** A thread's feeder tables, and which rows of each unique feeder it holds (in its order). */
export interface ThreadFeeders {
  tables: Record<string, FeederTable>;
  uniqueRanges: Record<string, RowRange[]>;
}

/**
 * The tables one engine thread gets. A `unique` feeder's rows are dealt out as one contiguous
 * block per thread, in proportion to the VUs each thread really gets (workers, then threads; by
 * the weights where an arrival rate takes the rows), so each row belongs to exactly one thread
 * fleet-wide, no thread asks anyone for the next row, and every planned iteration finds one. A worker that joined a running run deals out the rows it was granted instead.
 * Other modes see every row.
 */
export function threadTables(
  configs: Record<string, FeederConfig>,
  tables: Record<string, FeederTable>,
  slice: PartitionStep[],
  threadStep: PartitionStep,
  granted?: GrantedRows,
  /** Per feeder, the VUs whose iterations take its rows (see feederUnits); absent: by weights. */
  units: Readonly<Record<string, number | undefined>> = {},
): ThreadFeeders {
  const out: ThreadFeeders = { tables: {}, uniqueRanges: {} };
  for (const [name, table] of Object.entries(tables)) {
    if (configs[name]?.mode !== "unique") {
      out.tables[name] = table;
      continue;
    }
    const count = table.rows.length;
    const ranges = granted
      ? withinTable(dealRanges(granted[name] ?? [], threadStep.weights, threadStep.index), count)
      : startingRanges(count, [...slice, threadStep], units[name]);
    const rows: string[][] = [];
    for (const [from, to] of ranges) for (let i = from; i < to; i++) rows.push(table.rows[i]);
    out.tables[name] = { columns: table.columns, rows };
    out.uniqueRanges[name] = ranges;
  }
  return out;
}

/** The master grants only rows of the table it sent; this keeps a thread's list true if not. */
function withinTable(ranges: RowRange[], count: number): RowRange[] {
  return ranges.filter(([from]) => from < count).map(([from, to]): RowRange => [from, Math.min(to, count)]);
}
