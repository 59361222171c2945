import {
  type CompareResult,
  parseRegressionLimits as parseLimits,
  type RegressionLimits,
  type RunDetail,
} from "@volley/protocol";
import type { ApiClient } from "../api-client.js";
import { UsageError } from "../cli-error.js";

export { compareWithBaseline, type Regression, type RegressionLimits, SIGNIFICANT_Z } from "@volley/protocol";

/** `--max-regression "p95=10%,rps=5%"`: how much worse each metric may get; exit 2 naming the flag otherwise. */
export function parseRegressionLimits(text: string): RegressionLimits {
  const limits = parseLimits(text, "--max-regression");
  if (typeof limits === "string") throw new UsageError(limits);
  return limits;
}

/**
 * The finished run `volley run --baseline` compares with: `last` is the newest other finished run
 * of the same name, `pinned` the one pinned as its baseline; an id must name a finished run of
 * the same name.
 */
export async function findBaseline(api: ApiClient, run: RunDetail, which: string): Promise<RunDetail> {
  if (which === "last" || which === "pinned") {
    // The master's rule (the one scheduled runs are judged by), not a copy of it here.
    const query = new URLSearchParams({ which });
    const answer = await api.request<{ id?: string; error?: string }>(
      "GET",
      `/api/runs/${encodeURIComponent(run.id)}/baseline?${query}`,
    );
    if (answer.status !== 200 || !answer.body.id) {
      throw new UsageError(`--baseline ${which}: ${answer.body.error ?? `HTTP ${answer.status}`}`);
    }
    return api.run(answer.body.id);
  }
  const found = await api.request<RunDetail>("GET", `/api/runs/${encodeURIComponent(which)}`);
  if (found.status !== 200) throw new UsageError(`--baseline: no run ${which}`);
  if (found.body.name !== run.name || found.body.status !== "finished") {
    throw new UsageError(`--baseline: ${which} is not a finished run named "${run.name}"`);
  }
  return found.body;
}

/** The baseline's percentiles against this run's whole distribution (`GET /api/compare`'s `shift`). */
export async function fetchShift(api: ApiClient, run: RunDetail, baseline: RunDetail) {
  const query = new URLSearchParams({ a: baseline.id, b: run.id });
  const { status, body } = await api.request<CompareResult>("GET", `/api/compare?${query}`);
  return status === 200 ? body.shift : {};
}
