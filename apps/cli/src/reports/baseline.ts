import {
  type CompareResult,
  parseRegressionLimits as parseLimits,
  type RegressionLimits,
  type RunDetail,
  type RunPage,
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
  if (which === "pinned") {
    const query = new URLSearchParams({ name: run.name, status: "finished", limit: "200" });
    const page = await api.request<RunPage>("GET", `/api/runs?${query}`);
    const pinned = page.body?.runs?.find((r) => r.pinned && r.name === run.name);
    if (!pinned)
      throw new UsageError(`--baseline pinned: no run named "${run.name}" is pinned (pin one on /trends)`);
    return api.run(pinned.id);
  }
  if (which === "last") {
    const query = new URLSearchParams({ name: run.name, status: "finished", limit: "20" });
    const page = await api.request<RunPage>("GET", `/api/runs?${query}`);
    const previous = page.body?.runs?.find((r) => r.id !== run.id && r.name === run.name);
    if (!previous) throw new UsageError(`--baseline last: no earlier finished run named "${run.name}"`);
    return api.run(previous.id);
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
