import type { FeederTable, JoinRun, LoadChange, PartitionStep, RowRange } from "@volley/protocol";
import type { SlicePeriod } from "./slice-engine.js";

/** What a thread is started with (its `workerData`). */
export interface ThreadStart {
  scenario: unknown;
  partition: PartitionStep[];
  startAtEpochMs: number;
  workerName: string;
  /** This thread's feeder tables. */
  data: Record<string, FeederTable>;
  /** The row numbers of each unique feeder's rows in `data`. */
  uniqueRanges: Record<string, RowRange[]>;
  /** Files multipart bodies send, base64. */
  attachments: Record<string, string>;
  env: Record<string, string>;
  /** Script bundles by the path the scenario names them (see `loadScripts`). */
  scripts: Record<string, string>;
  /** What each script's setup() returned, as JSON. */
  setupData: Record<string, string>;
  /** Set when the worker joins a run already going. */
  join?: JoinRun;
}

export type ToThread =
  | { type: "stop" }
  | { type: "load"; change: LoadChange }
  | { type: "rebalance"; atMs: number; partition: PartitionStep[] }
  | { type: "release-rows"; id: number; share: number };

export type FromThread =
  | { type: "ready" }
  | { type: "period"; period: SlicePeriod }
  | { type: "done" }
  | { type: "rows-released"; id: number; rows: Record<string, RowRange[]> }
  | { type: "failed"; message: string };
