/** What a run's warning is about. Records written before kinds existed are `saturated`. */
export type RunWarningKind =
  | "saturated"
  | "worker-lost"
  | "worker-refused"
  | "lost-batches"
  | "clock-skew"
  | "skipped-iterations"
  | "late-start"
  | "not-awaited";

export type TrustVerdict = "trusted" | "degraded" | "untrusted";

/** A reason the verdict gives: every warning's kind, and what it reads of the summary. */
export type TrustReasonKind = RunWarningKind | "dropped-iterations" | "short-run" | "failed";

export interface TrustReason {
  kind: TrustReasonKind;
  /** What happened and what it means for the figures. */
  message: string;
  worker?: string;
  from?: number;
  to?: number;
}

/** How far a run's figures can be trusted, and why not fully. */
export interface Trust {
  verdict: TrustVerdict;
  reasons: TrustReason[];
}

/** What the verdict reads of a run's report (a RunDetail has all of it). */
export interface TrustInput {
  status: string;
  error: string | null;
  warnings: ReadonlyArray<{
    kind?: RunWarningKind;
    workerName: string;
    fromS: number;
    toS: number;
    message: string;
    /** How many iterations or requests it is about, where it counts them. */
    count?: number;
  }>;
  summary: { durationS: number; total: { requests: number; dropped: number } };
  workers: readonly unknown[];
}

/** Below these a run's tail percentiles rest on too few samples or too short a run to compare. */
export const SHORT_RUN_S = 10;
export const FEW_REQUESTS_FOR_P99 = 1000;

/**
 * The verdict on a run's figures, from what its report already says: every warning (a saturated
 * load generator, a worker lost or refusing, batches lost) is a reason, and so are dropped
 * iterations (the arrival rate was not reached) and a run too short for its p99. `untrusted` when
 * the run failed, half of its workers or more were lost or refused, or a load generator was
 * saturated for half of the run or more; `degraded` for any other reason; `trusted` without one.
 */
export function trustOf(run: TrustInput): Trust {
  const reasons: TrustReason[] = [];
  let untrusted = false;
  if (run.status === "failed") {
    reasons.push({ kind: "failed", message: `the run failed${run.error ? `: ${run.error}` : ""}` });
    untrusted = true;
  }
  const durationS = run.summary.durationS;
  let saturatedS = 0;
  let missingWorkers = 0;
  let droppedLate = 0;
  for (const warning of run.warnings) {
    const kind = warning.kind ?? "saturated";
    reasons.push({
      kind,
      message: warning.message,
      ...(warning.workerName ? { worker: warning.workerName } : {}),
      ...(warning.toS > warning.fromS ? { from: warning.fromS, to: warning.toS } : {}),
    });
    if (kind === "saturated") saturatedS += warning.toS - warning.fromS;
    if (kind === "worker-lost" || kind === "worker-refused") missingWorkers++;
    if (kind === "late-start") droppedLate += warning.count ?? 0;
  }
  if (run.workers.length > 0 && missingWorkers * 2 >= run.workers.length) untrusted = true;
  if (durationS > 0 && saturatedS * 2 >= durationS) untrusted = true;
  const { requests } = run.summary.total;
  // Iterations due before a late thread began are dropped too; their own warning says why.
  const dropped = Math.max(0, run.summary.total.dropped - droppedLate);
  if (dropped > 0) {
    const share = dropped / (requests + run.summary.total.dropped);
    reasons.push({
      kind: "dropped-iterations",
      message: `${dropped.toLocaleString("en-US")} iterations (${(share * 100).toFixed(1)} %) found no free VU and were dropped: the arrival rate was not reached (raise maxVus)`,
    });
  }
  if (run.status !== "failed" && (durationS < SHORT_RUN_S || requests < FEW_REQUESTS_FOR_P99)) {
    // Name the condition that held: a 20 s run of 519 requests is short of requests, not of time.
    const short = [
      durationS < SHORT_RUN_S ? `under ${SHORT_RUN_S} s` : "",
      requests < FEW_REQUESTS_FOR_P99 ? `under ${FEW_REQUESTS_FOR_P99.toLocaleString("en-US")} requests` : "",
    ]
      .filter(Boolean)
      .join(" and ");
    reasons.push({
      kind: "short-run",
      message: `${requests.toLocaleString("en-US")} requests in ${durationS.toFixed(1)} s: ${short}, p99 and above rest on a handful of samples`,
    });
  }
  return { verdict: untrusted ? "untrusted" : reasons.length ? "degraded" : "trusted", reasons };
}
