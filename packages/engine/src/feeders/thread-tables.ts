import { type FeederConfig, type FeederTable, Partition, type PartitionStep } from "@volley/protocol";

/**
 * The tables one engine thread gets. A `unique` feeder's rows are dealt out with the same
 * partition as the VUs (workers by threads, then threads), so each row belongs to exactly one
 * thread fleet-wide and no thread asks anyone for the next row. Other modes see every row.
 */
export function threadTables(
  configs: Record<string, FeederConfig>,
  tables: Record<string, FeederTable>,
  threadPartition: PartitionStep[],
): Record<string, FeederTable> {
  const partition = new Partition(threadPartition);
  const out: Record<string, FeederTable> = {};
  for (const [name, table] of Object.entries(tables)) {
    if (configs[name]?.mode !== "unique") {
      out[name] = table;
      continue;
    }
    const count = partition.count(table.rows.length);
    const rows: string[][] = new Array(count);
    for (let j = 0; j < count; j++) rows[j] = table.rows[partition.unitOf(j)];
    out[name] = { columns: table.columns, rows };
  }
  return out;
}
