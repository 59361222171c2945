import { z } from "zod";
import type { LoadChangeRecord } from "../messages/change-load.js";
import { CONTROL_RE } from "../scenario/request.js";
import type { ScenarioInput } from "../scenario/scenario.js";
import type { MetricPoint, MetricType, MetricUnit } from "../stats/custom-metrics.js";
import type { RunSummary } from "../stats/summary.js";
import type { RunWarningKind, Trust } from "./trust.js";

export const RUN_STATUSES = ["queued", "running", "stopping", "finished", "failed", "aborted"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
/** Not ended: waiting its turn, running, or stopping. */
export const ACTIVE_RUN_STATUSES: readonly RunStatus[] = ["queued", "running", "stopping"];
/** Holding workers: started and not ended. */
export const LIVE_RUN_STATUSES: readonly RunStatus[] = ["running", "stopping"];
/** Ended, for good. */
export const TERMINAL_RUN_STATUSES: readonly RunStatus[] = ["finished", "failed", "aborted"];

/** Whether a run in `status` has not ended yet (queued, running or stopping). */
export function isActiveRunStatus(status: string): boolean {
  return (ACTIVE_RUN_STATUSES as readonly string[]).includes(status);
}

/** Whether a run in `status` holds workers (running or stopping). */
export function isLiveRunStatus(status: string): boolean {
  return (LIVE_RUN_STATUSES as readonly string[]).includes(status);
}

/** Whether a run in `status` has ended (finished, failed or aborted). */
export function isTerminalRunStatus(status: string): boolean {
  return (TERMINAL_RUN_STATUSES as readonly string[]).includes(status);
}

export const createRunBodySchema = z.strictObject({
  scenario: z.unknown(),
  /** Feeder files by the name `data.*.file` gives them (their text). */
  files: z.record(z.string().min(1).max(500), z.string()).optional(),
  /** Files multipart bodies send, base64, by the name `multipart.*.file` gives them. */
  attachments: z
    .record(
      z.string().min(1).max(500),
      z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, { error: "must be base64" }),
    )
    .optional(),
  /** A run whose kept files fill in those not sent here ("Run again" without choosing them again). */
  filesFrom: z.string().min(1).max(64).optional(),
  /** Values of the scenario's `env` names, used for this run only and never stored. */
  env: z.record(z.string().max(200), z.string().max(65_536)).optional(),
  /**
   * The sources of the scenario's scripts and what they import, by path relative to the scenario
   * file (`flow.ts`, `lib/sign.ts`, `node_modules/pkg/index.js`): the master bundles them.
   */
  scripts: z
    .record(
      z
        .string()
        .min(1)
        .max(500)
        .refine((path) => !CONTROL_RE.test(path), {
          error: "must not contain control characters",
        }),
      z.string(),
    )
    .refine((files) => Object.keys(files).length <= 2000, { error: "at most 2000 script files" })
    .optional(),
  /** Wait behind the active (and queued) runs instead of a 409; the answer's status is `queued`. */
  queue: z.boolean().optional(),
  /** Type-check TypeScript scripts against `@volley/script` first (a type error is a 400). @defaultValue true */
  typecheck: z.boolean().optional(),
});

export const listRunsQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(20),
  cursor: z.string().max(64).optional(),
  name: z.string().max(200).optional(),
  status: z.enum(RUN_STATUSES).optional(),
});
export type ListRunsQuery = z.output<typeof listRunsQuerySchema>;

/** What a file kept with a run is (stored with it; "Run again" sends each back where it came from). */
export type RunFileKind = "feeder" | "attachment" | "script" | "certificate";

/**
 * A file kept with a run (`GET /api/runs/:id/files`): a feeder's, a multipart body's (or .proto),
 * a script, or a TLS certificate, key or CA (named, never shown).
 */
export interface KeptRunFile {
  kind: RunFileKind;
  name: string;
  /** Its size as sent. */
  bytes: number;
}

/** `GET /api/runs/:id/timeseries?scenario=NAME`: one of the run's `scenarios:` alone. */
export const timeseriesQuerySchema = z.strictObject({
  scenario: z.string().min(1).max(200).optional(),
});

/**
 * `GET /api/runs/:id/report.FORMAT?download=1`: JSON and CSV are files to save; the HTML report
 * opens as a page unless `download=1` asks for the file.
 */
export const reportQuerySchema = z.strictObject({
  download: z.enum(["0", "1"], { error: "write download=1 to save the report as a file (or 0)" }).optional(),
});

/** `GET /api/runs/:id/summary?from=S&to=S`: seconds [from, to) since the run's start. */
export const summaryWindowQuerySchema = z
  .strictObject({
    from: z.coerce.number().int().min(0).max(31_536_000),
    to: z.coerce.number().int().min(1).max(31_536_000),
  })
  .refine((q) => q.from < q.to, { error: "from must be before to", path: ["to"] });

export interface ThresholdResult {
  key: string;
  expression: string;
  /** Measured value in the rule's unit (ms, fraction, count); null when there was nothing to measure. */
  actual: number | null;
  pass: boolean;
}

/** A worker's part in a run, as the report lists it. */
export interface RunWorkerInfo {
  workerId: string;
  name: string;
  host: string;
  threads: number;
  vus: number;
  requests: number;
  /** Fraction of the run's requests this worker sent. */
  share: number;
  peakCpu: number;
  peakEventLoopDelayMs: number;
  status: "running" | "finished" | "lost" | "failed";
  lostBatches: number;
}

/**
 * Something a reader must know before trusting the figures: a span during which a load
 * generator looked saturated, a worker lost or refused, stats batches lost on the way.
 */
export interface SaturationWarning {
  kind?: RunWarningKind;
  workerId: string;
  workerName: string;
  fromS: number;
  toS: number;
  peakCpu: number;
  peakEventLoopDelayMs: number;
  message: string;
  /** How many times it happened (skipped iterations, requests not awaited). */
  count?: number;
  /** Where in the script ("flow.ts:12"), for requests not awaited. */
  at?: string;
}

export interface RunListItem {
  id: string;
  name: string;
  status: RunStatus;
  executor: string;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  durationS: number | null;
  requests: number;
  failures: number;
  rps: number;
  p95: number | null;
  errorRate: number;
  /** null until thresholds are evaluated (or when the run has none). */
  passed: boolean | null;
  /** Why an aborted run stopped: "user", "threshold", ...; null otherwise. */
  stopReason: string | null;
  /** The pinned baseline of its scenario name. */
  pinned: boolean;
}

/**
 * The status as people read it: a run the user stopped is "stopped"; `aborted` stays for stops
 * by a threshold or a fault. The API keeps the contract's status; this is for display.
 */
export function statusLabel(run: { status: RunStatus; stopReason: string | null }): string {
  if (run.status === "aborted" && run.stopReason === "user") return "stopped";
  if (run.status === "aborted" && run.stopReason === "cancelled") return "cancelled";
  return run.status;
}

export interface RunDetail {
  id: string;
  name: string;
  status: RunStatus;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  scenario: ScenarioInput;
  workers: RunWorkerInfo[];
  summary: RunSummary;
  thresholds: ThresholdResult[];
  passed: boolean | null;
  error: string | null;
  stopReason: string | null;
  /** Who started the run and who stopped it by hand (a user, "token" for the master's token, "schedule:NAME"; null on a master that asks no credentials). */
  startedBy: string | null;
  stoppedBy: string | null;
  warnings: SaturationWarning[];
  plannedDurationS: number;
  /** While the run is active: its last merged second (rps, VUs, percentiles of that second). */
  now?: TimeseriesPoint | null;
  /** How far the figures can be trusted, with every reason (see `trustOf`). */
  trust: Trust;
  /** Changes of the load made while it ran (`PATCH /api/runs/:id/load`), oldest first. */
  loadChanges: LoadChangeRecord[];
}

export interface RunPage {
  runs: RunListItem[];
  nextCursor: string | null;
}

export interface TimeseriesPoint {
  /** Seconds since the run's start. */
  t: number;
  rps: number;
  errorsPerSec: number;
  vus: number;
  p50: number | null;
  p95: number | null;
  p99: number | null;
}

export interface Timeseries {
  overall: TimeseriesPoint[];
  requests: Record<string, TimeseriesPoint[]>;
  /**
   * Each of `scenarios:` as one series (its requests merged; `vus` is the whole run's). Empty for
   * a scenario without parts, and when the series is filtered to one scenario.
   */
  scenarios: Record<string, TimeseriesPoint[]>;
  /** A script's own metrics, each second it recorded them (see MetricPoint). Absent: none. */
  metrics?: Record<string, MetricPoint[]>;
}

export interface MetricDelta {
  a: number | null;
  b: number | null;
  /** b - a */
  delta: number | null;
  /** (b - a) / a, null when a is 0 or missing */
  ratio: number | null;
  /** Whether b is better than a for this metric (lower latency, higher rps...), null when equal. */
  better: boolean | null;
}

export interface CompareResult {
  a: RunDetail;
  b: RunDetail;
  total: Record<string, MetricDelta>;
  requests: Array<{ name: string; metrics: Record<string, MetricDelta> }>;
  /** Each of `scenarios:` as a whole, when either run has them. */
  scenarios?: Array<{ name: string; metrics: Record<string, MetricDelta> }>;
  /** Groups, when either run has them. */
  groups?: Array<{ name: string; metrics: Record<string, MetricDelta> }>;
  /** A script's custom metrics, when either run has them: each figure of its type (never judged). */
  metrics?: Array<{
    name: string;
    type: MetricType;
    unit?: MetricUnit;
    metrics: Record<string, MetricDelta>;
  }>;
  /** How b's whole latency distribution sits against a's percentiles (p50 … p999, all requests). */
  shift: Partial<Record<ShiftPercentile, LatencyShift>>;
}

export type ShiftPercentile = "p50" | "p75" | "p90" | "p95" | "p99" | "p999";

/**
 * One percentile judged on whole histograms: the share of b's requests slower than a's value at
 * that percentile, against a's own share above it (5 % for p95, up to bucket width). `z` is the
 * two-proportion z statistic of that difference: above 3 the shift is beyond sampling noise.
 */
export interface LatencyShift {
  /** a's latency at the percentile, ms. */
  aMs: number;
  /** Share (0..1) of a's requests slower than aMs. */
  aShare: number;
  /** Share (0..1) of b's requests slower than aMs. */
  bShare: number;
  z: number;
}
