import { z } from "zod";
import { formatMs } from "../format.js";
import type { LatencyShift, RunDetail, ShiftPercentile } from "./runs.js";

// How a run compares with its baseline under regression limits: `volley run --baseline` and
// scheduled runs (`run.regressed`) judge alike.

const LATENCY = ["mean", "p50", "p75", "p90", "p95", "p99", "p999", "max"] as const;
export type RegressionMetric = (typeof LATENCY)[number] | "rps" | "errorRate";

/** `--max-regression "p95=10%,rps=5%"`: how much worse each metric may get, in percent. */
export type RegressionLimits = Partial<Record<RegressionMetric, number>>;

/** The limits of "p95=10%,rps=5%", or a message saying what is wrong (for `field`). */
export function parseRegressionLimits(text: string, field = "maxRegression"): RegressionLimits | string {
  const limits: RegressionLimits = {};
  for (const part of text
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const match = /^([A-Za-z0-9]+)\s*=\s*(\d+(?:\.\d+)?)\s*%$/.exec(part);
    const metric = match?.[1] as RegressionMetric | undefined;
    if (!match || !metric || !([...LATENCY, "rps", "errorRate"] as string[]).includes(metric)) {
      return `${field}: "${part}" is not METRIC=N% with a metric of ${[...LATENCY, "rps", "errorRate"].join(", ")}`;
    }
    limits[metric] = Number(match[2]);
  }
  if (Object.keys(limits).length === 0) return `${field}: give at least one METRIC=N%`;
  return limits;
}

/** A z above this is a shift beyond sampling noise (about 1 in 700 by chance, one-sided). */
export const SIGNIFICANT_Z = 3;

export interface Regression {
  metric: RegressionMetric;
  line: string;
  regressed: boolean;
}

/**
 * Each limited metric of `run` against `baseline`. Latencies and the error rate are worse when
 * higher, throughput when lower. Latencies and rps compare relatively (`p95=10%`: at most 10 %
 * slower); the error rate compares in percentage points (`errorRate=1%`: at most one point more),
 * as a relative change from 0 % would be infinite. A percentile that moved more than allowed is
 * a regression only when the whole distribution moved with it (`shift`: more of this run's requests
 * are slower than the baseline's value, beyond sampling noise); otherwise the line says "noise".
 */
export function compareWithBaseline(
  run: RunDetail,
  baseline: RunDetail,
  limits: RegressionLimits,
  shift: Partial<Record<ShiftPercentile, LatencyShift>> = {},
): Regression[] {
  const out: Regression[] = [];
  for (const [metric, allowed] of Object.entries(limits) as Array<[RegressionMetric, number]>) {
    if (metric === "errorRate") {
      const rate = (r: RunDetail) =>
        r.summary.total.requests ? r.summary.total.failures / r.summary.total.requests : 0;
      const points = (rate(run) - rate(baseline)) * 100;
      out.push({
        metric,
        regressed: points > allowed,
        line: `errorRate ${(rate(run) * 100).toFixed(2)} % vs ${(rate(baseline) * 100).toFixed(2)} % (${points >= 0 ? "+" : ""}${points.toFixed(2)} points, allowed +${allowed})`,
      });
      continue;
    }
    const value = (r: RunDetail) =>
      metric === "rps" ? r.summary.total.rps : r.summary.total.latencyMs[metric];
    const now = value(run);
    const before = value(baseline);
    const change = before > 0 ? ((now - before) / before) * 100 : 0;
    const worse = metric === "rps" ? -change : change;
    const show = (v: number) => (metric === "rps" ? `${v.toFixed(1)} req/s` : formatMs(v));
    const line = `${metric} ${show(now)} vs ${show(before)} (${change >= 0 ? "+" : ""}${change.toFixed(1)} %, allowed ${metric === "rps" ? "-" : "+"}${allowed} %)`;
    const moved = shift[metric as ShiftPercentile];
    if (!moved) {
      out.push({ metric, regressed: worse > allowed, line });
      continue;
    }
    const pct = (share: number) => `${(share * 100).toFixed(share < 0.01 ? 2 : 1)} %`;
    const noise = worse > allowed && moved.z <= SIGNIFICANT_Z;
    out.push({
      metric,
      regressed: worse > allowed && !noise,
      line: `${line}; ${pct(moved.bShare)} of requests slower than the baseline's ${metric}, it had ${pct(moved.aShare)}${noise ? ` — within sampling noise (z ${moved.z.toFixed(1)} ≤ ${SIGNIFICANT_Z}), not judged a regression` : ""}`,
    });
  }
  return out;
}

/**
 * `GET /api/runs/:id/baseline?which=last|pinned`: the finished run a run is judged against (the
 * newest other finished run of its name, or the one pinned for its name) → `{ id }`, 404 when none.
 */
export const baselineQuerySchema = z.strictObject({ which: z.enum(["last", "pinned"]).default("last") });
