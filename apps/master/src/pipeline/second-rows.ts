import { deflateRawSync, inflateRawSync } from "node:zlib";
import type { RunSecondRow } from "@volley/db";
import { type RequestStats, type TimeseriesPoint, withSlowestText } from "@volley/protocol";
import type { RequestAggregate } from "@volley/stats";

const POINT_PERCENTILES = [50, 95, 99];

/** One closed second of one request name (or the whole run) as a time-series point. */
export function toPoint(second: number, aggregate: RequestAggregate, vus: number): TimeseriesPoint {
  const has = aggregate.requests > 0;
  const [p50, p95, p99] = aggregate.percentilesUs(POINT_PERCENTILES);
  const ms = (us: number) => (has ? Math.round(us) / 1000 : null);
  return {
    t: second,
    rps: aggregate.requests,
    errorsPerSec: aggregate.failures,
    vus,
    p50: ms(p50),
    p95: ms(p95),
    p99: ms(p99),
  };
}

/**
 * Stored rows of a scenario's series are named with this prefix: request names cannot hold
 * control characters, so the two never meet (iterations' statistics start with U+0002, see
 * `iterationStatsName` in @volley/protocol).
 */
export const SCENARIO_ROW_PREFIX = "\u0001";

/** The stored row of a point; name "" is the whole run, SCENARIO_ROW_PREFIX + name a scenario. */
export function toRow(
  runId: string,
  name: string,
  point: TimeseriesPoint,
  stats: Uint8Array<ArrayBuffer> | null = null,
): RunSecondRow {
  return {
    stats,
    runId,
    name,
    second: point.t,
    requests: point.rps,
    failures: point.errorsPerSec,
    vus: point.vus,
    p50Ms: point.p50,
    p95Ms: point.p95,
    p99Ms: point.p99,
  };
}

/**
 * A second's merged statistics of one request name as stored: its JSON deflated (the encoded
 * histogram dominates; deflate takes a quarter off its base64, see `pnpm bench storage`).
 */
export function packSecondStats(aggregate: RequestAggregate): Uint8Array<ArrayBuffer> {
  // The requests' phases (connect, TLS, waiting) stay in the run's totals, not in each second:
  // a window's figures are its latency's, and the seconds' storage stays what it was.
  return new Uint8Array(deflateRawSync(JSON.stringify(aggregate.toStats({ phases: false }))));
}

export function unpackSecondStats(packed: Uint8Array): RequestStats {
  return withSlowestText(JSON.parse(inflateRawSync(packed).toString("utf8")) as RequestStats);
}
