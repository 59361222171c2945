import {
  CHECK_METHOD,
  GROUP_METHOD,
  ITERATION_METHOD,
  isRequestMethod,
  type RequestStats,
  type RequestSummary,
  type RunSummary,
  SCRIPT_METHOD,
  SKIPPED_METHOD,
  STREAM_TIMINGS,
  streamStatsName,
  type TotalsSummary,
} from "@volley/protocol";
import type { DecodedHistograms } from "./histogram/sparse-codec.js";
import { metricSummary, metricsAmong } from "./metric-summary.js";
import { RequestAggregate } from "./request-aggregate.js";

/** Statistics of many request names merged together: a second of a run, or a whole run. */
export class StatsAggregate {
  private readonly byName = new Map<string, RequestAggregate>();
  dropped = 0;

  /** `decoded`, when given, holds `requests[i]`'s histogram as its `i`th, read already. */
  add(requests: readonly RequestStats[], dropped = 0, decoded?: DecodedHistograms): void {
    this.dropped += dropped;
    for (let i = 0; i < requests.length; i++) {
      const stats = requests[i];
      this.entry(stats.name, stats.method).add(stats, decoded, i);
    }
  }

  addAggregate(other: StatsAggregate): void {
    this.dropped += other.dropped;
    for (const aggregate of other.byName.values())
      this.entry(aggregate.name, aggregate.method).addAggregate(aggregate);
  }

  private entry(name: string, method: string): RequestAggregate {
    let aggregate = this.byName.get(name);
    if (!aggregate) {
      aggregate = new RequestAggregate(name, method);
      this.byName.set(name, aggregate);
    }
    return aggregate;
  }

  get(name: string): RequestAggregate | undefined {
    return this.byName.get(name);
  }

  /** Names merged so far. */
  get size(): number {
    return this.byName.size;
  }

  list(): RequestAggregate[] {
    return [...this.byName.values()];
  }

  /** Every request name merged into one (groups are not requests: they stay out). */
  total(): RequestAggregate {
    const total = new RequestAggregate("total", "");
    for (const aggregate of this.byName.values()) {
      if (isRequestMethod(aggregate.method)) total.addAggregate(aggregate);
    }
    return total;
  }

  /** The named requests merged into one (exact percentiles: their histograms are added). */
  totalsOf(names: readonly string[], durationS: number): TotalsSummary {
    const merged = new RequestAggregate("subset", "");
    for (const name of names) {
      const aggregate = this.byName.get(name);
      if (aggregate && isRequestMethod(aggregate.method)) merged.addAggregate(aggregate);
    }
    return totals(merged, durationS, 0);
  }

  toStats(): RequestStats[] {
    return this.list().map((a) => a.toStats());
  }

  /** Iterations finished (with their durations) and skipped, of every part or of the named ones. */
  iterationTotals(
    names?: readonly string[],
  ): Pick<TotalsSummary, "iterations" | "iterationMs" | "skippedIterations"> {
    const finished = new RequestAggregate("iterations", ITERATION_METHOD);
    let skipped = 0;
    let seen = false;
    for (const aggregate of this.byName.values()) {
      if (names !== undefined && !names.includes(aggregate.name)) continue;
      if (aggregate.method === ITERATION_METHOD) finished.addAggregate(aggregate);
      else if (aggregate.method === SKIPPED_METHOD) skipped += aggregate.requests;
      else continue;
      seen = true;
    }
    // Runs recorded before iterations were measured have none: the figures stay absent.
    if (!seen) return {};
    return {
      iterations: finished.requests,
      iterationMs: finished.latencySummary(),
      ...(skipped > 0 ? { skippedIterations: skipped } : {}),
    };
  }

  /** A streamed request's timings, from the statistics recorded beside it (see stream-names.ts). */
  private streamFigures(request: RequestAggregate): { stream?: RequestSummary["stream"] } {
    const [firstByte, firstEvent, gap] = STREAM_TIMINGS.map((t) =>
      this.byName.get(streamStatsName(request.name, t)),
    );
    if (!firstByte && !firstEvent && !gap) return {};
    const empty = new RequestAggregate("", "");
    const events = (firstEvent?.requests ?? 0) + (gap?.requests ?? 0);
    return {
      stream: {
        firstByteMs: (firstByte ?? empty).latencySummary(),
        firstEventMs: (firstEvent ?? empty).latencySummary(),
        gapMs: (gap ?? empty).latencySummary(),
        events,
        eventsPerStream: request.requests ? Math.round((events / request.requests) * 100) / 100 : 0,
      },
    };
  }

  /** The report's summary; rates are per second of `durationS`. */
  summarize(durationS: number, order?: readonly string[]): RunSummary {
    const total = this.total();
    const rank = (name: string) => {
      const index = order?.indexOf(name) ?? -1;
      return index < 0 ? Number.MAX_SAFE_INTEGER : index;
    };
    // Names the scenario does not list (a script's requests and checks) keep the order they were
    // first merged in: as the script makes them, not alphabetical (the sort is stable).
    const all: RequestSummary[] = this.list()
      .sort((a, b) => rank(a.name) - rank(b.name))
      .map((a) => ({
        name: a.name,
        method: a.method,
        ...totals(a, durationS, 0),
        ...(a.phases ? { timings: a.phaseSummary() } : {}),
        ...(a.slowest.length ? { slowest: a.slowest.map((s) => ({ ...s })) } : {}),
        ...wsFigures(a),
        ...this.streamFigures(a),
      }));
    const requests = all.filter((r) => isRequestMethod(r.method));
    const groups = all.filter((r) => r.method === GROUP_METHOD);
    // A scripted VU's checks: one evaluation per record, a failure per false.
    const checks = all
      .filter((r) => r.method === CHECK_METHOD)
      .map((r) => ({ name: r.name, passes: r.requests - r.failures, fails: r.failures }));
    // Errors of requests, and the errors that ended a script's iterations (kind `script`).
    const errors = this.list()
      .filter((a) => isRequestMethod(a.method) || a.method === SCRIPT_METHOD)
      .flatMap((a) => a.errors.list().map((e) => ({ ...e, request: a.name })));
    errors.sort((a, b) => b.count - a.count);
    const metrics = metricsAmong(this.byName.values());
    return {
      total: { ...totals(total, durationS, this.dropped), ...this.iterationTotals() },
      requests,
      ...(groups.length ? { groups } : {}),
      ...(checks.length ? { checks } : {}),
      ...(metrics.length
        ? { metrics: Object.fromEntries(metrics.map((m) => [m.name, metricSummary(m, durationS)])) }
        : {}),
      statusCodes: { ...total.statusCodes },
      errors,
      durationS,
    };
  }
}

function totals(aggregate: RequestAggregate, durationS: number, dropped: number): TotalsSummary {
  return {
    requests: aggregate.requests,
    failures: aggregate.failures,
    ...(aggregate.redirects > 0 ? { redirects: aggregate.redirects } : {}),
    dropped,
    rps: durationS > 0 ? Math.round((aggregate.requests / durationS) * 100) / 100 : 0,
    bytesIn: aggregate.bytesIn,
    bytesOut: aggregate.bytesOut,
    latencyMs: aggregate.latencySummary(),
  };
}

/** A WebSocket handshake's name: the messages and bytes its sockets carried. */
function wsFigures(aggregate: RequestAggregate): { ws?: RequestSummary["ws"] } {
  if (aggregate.messagesSent === 0 && aggregate.messagesReceived === 0) return {};
  return {
    ws: {
      messagesSent: aggregate.messagesSent,
      messagesReceived: aggregate.messagesReceived,
      bytesIn: aggregate.bytesIn,
      bytesOut: aggregate.bytesOut,
    },
  };
}
