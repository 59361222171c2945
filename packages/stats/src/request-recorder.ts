import {
  type ErrorKind,
  encodeSlowest,
  GRPC_STATUS_BASE,
  MAX_SLOWEST,
  type RequestStats,
  type SlowTrace,
  statusKey,
} from "@volley/protocol";
import { ErrorCounter } from "./error-counter.js";
import { clampLatencyUs, createRecordingHistogram, recordWhole } from "./histogram/latency-histogram.js";
import { PhaseTimings } from "./histogram/phase-timings.js";
import { encodeHistogram } from "./histogram/sparse-codec.js";

/**
 * What one request name measures during one period, on the request path: a handful of additions
 * and one histogram record per request. Encoding happens in `flush`, once a second.
 */
export class RequestRecorder {
  private requests = 0;
  private failures = 0;
  private redirects = 0;
  private messagesSent = 0;
  private messagesReceived = 0;
  private bytesIn = 0;
  private bytesOut = 0;
  private sumUs = 0;
  private minUs = Number.POSITIVE_INFINITY;
  private maxUs = 0;
  private readonly histogram = createRecordingHistogram();
  /** By status number: HTTP's (100-599) and gRPC's (GRPC_STATUS_BASE + code). */
  private readonly statusCounts = new Uint32Array(GRPC_STATUS_BASE + 17);
  private readonly statusSeen: number[] = [];
  private readonly errors = new ErrorCounter();
  /** The period's slowest traced requests: latency, trace id and end, in no order; `slowCount` used. */
  private readonly slowUs = new Float64Array(MAX_SLOWEST);
  private readonly slowAt = new Float64Array(MAX_SLOWEST);
  private readonly slowStatus = new Uint16Array(MAX_SLOWEST);
  private readonly slowIds: string[] = new Array(MAX_SLOWEST).fill("");
  private slowCount = 0;
  /** The requests' phases (connect, TLS, waiting), once a request was timed. */
  private phases: PhaseTimings | null = null;

  constructor(
    readonly name: string,
    readonly method: string,
    /** False records counts only (no histogram): for `pnpm bench overhead`, not for real runs. */
    private readonly histograms = true,
  ) {}

  /**
   * Records one request. `status` is 0 when no response arrived (a gRPC status is
   * GRPC_STATUS_BASE + its code); `errorKind` is set for failures; `traceId` when it was traced
   * (`http.tracing`): kept when it is among the period's slowest, or one of a failure's first.
   */
  record(
    latencyUs: number,
    status: number,
    bytesIn: number,
    bytesOut: number,
    errorKind?: ErrorKind,
    errorMessage?: string,
    traceId?: string,
  ): void {
    const us = clampLatencyUs(latencyUs);
    this.requests++;
    this.bytesIn += bytesIn;
    this.bytesOut += bytesOut;
    this.sumUs += us;
    if (us < this.minUs) this.minUs = us;
    if (us > this.maxUs) this.maxUs = us;
    if (this.histograms) recordWhole(this.histogram, us);
    if (status > 0 && status < this.statusCounts.length) {
      if (this.statusCounts[status]++ === 0) this.statusSeen.push(status);
    }
    if (errorKind !== undefined) {
      this.failures++;
      this.errors.add(errorKind, errorMessage ?? errorKind, 1, traceId === undefined ? undefined : [traceId]);
    }
    if (traceId !== undefined) this.keepIfSlow(us, traceId, status);
  }

  /** Keeps a traced request among the period's slowest: a scan of five, nothing allocated. */
  private keepIfSlow(us: number, traceId: string, status: number): void {
    let slot = this.slowCount;
    if (slot === MAX_SLOWEST) {
      slot = 0;
      for (let i = 1; i < MAX_SLOWEST; i++) if (this.slowUs[i] < this.slowUs[slot]) slot = i;
      if (us <= this.slowUs[slot]) return;
    } else {
      this.slowCount++;
    }
    this.slowUs[slot] = us;
    this.slowIds[slot] = traceId;
    this.slowAt[slot] = Date.now();
    this.slowStatus[slot] = status;
  }

  private takeSlowest(): string {
    const slowest: SlowTrace[] = [];
    for (let i = 0; i < this.slowCount; i++) {
      const status = this.slowStatus[i];
      slowest.push({
        traceId: this.slowIds[i],
        ms: Math.round(this.slowUs[i]) / 1000,
        at: this.slowAt[i],
        status: status > 0 && status < this.statusCounts.length ? statusKey(status) : "0",
      });
      this.slowIds[i] = "";
    }
    this.slowCount = 0;
    return encodeSlowest(slowest.sort((a, b) => b.ms - a.ms || (a.traceId < b.traceId ? -1 : 1)));
  }

  /** Records a request's phases, in µs (connect and TLS 0 on a reused connection), beside its record. */
  recordPhases(connectUs: number, tlsUs: number, waitingUs: number): void {
    if (!this.histograms) return;
    this.phases ??= new PhaseTimings(true);
    this.phases.record(connectUs, tlsUs, waitingUs);
  }

  /** Records a redirect hop: one request, not judged (its chain's final answer is). */
  recordRedirect(latencyUs: number, status: number, bytesIn: number, bytesOut: number): void {
    this.redirects++;
    this.record(latencyUs, status, bytesIn, bytesOut);
  }

  /** A WebSocket message that went out (`sent`) or came in, with its payload bytes. */
  recordMessage(sent: boolean, bytes: number): void {
    if (sent) {
      this.messagesSent++;
      this.bytesOut += bytes;
    } else {
      this.messagesReceived++;
      this.bytesIn += bytes;
    }
  }

  get isEmpty(): boolean {
    return this.requests === 0 && this.messagesSent === 0 && this.messagesReceived === 0;
  }

  /** Whether phases were timed that no flush has carried yet (see `flush`). */
  get holdsPhases(): boolean {
    return this.phases !== null && this.phases.count > 0;
  }

  /**
   * The period's statistics; the recorder starts a new period. The phases timed since they were
   * last carried go with it only when `phasesDue` (every PHASES_PERIOD_S seconds, and at the end).
   */
  flush(phasesDue = true): RequestStats {
    const statusCodes: Record<string, number> = {};
    for (const status of this.statusSeen) {
      statusCodes[statusKey(status)] = this.statusCounts[status];
      this.statusCounts[status] = 0;
    }
    const stats: RequestStats = {
      name: this.name,
      method: this.method,
      requests: this.requests,
      failures: this.failures,
      ...(this.redirects > 0 ? { redirects: this.redirects } : {}),
      ...(this.messagesSent > 0 ? { messagesSent: this.messagesSent } : {}),
      ...(this.messagesReceived > 0 ? { messagesReceived: this.messagesReceived } : {}),
      bytesIn: this.bytesIn,
      bytesOut: this.bytesOut,
      statusCodes,
      errors: this.errors.list(),
      latency: {
        sumUs: this.sumUs,
        minUs: this.requests ? this.minUs : 0,
        maxUs: this.maxUs,
        histogram: encodeHistogram(this.histogram),
      },
      ...(this.slowCount > 0 ? { slowest: this.takeSlowest() } : {}),
      ...(phasesDue && this.phases !== null && this.phases.count > 0
        ? { timings: this.phases.encode() }
        : {}),
    };
    if (phasesDue) this.phases?.reset();
    this.statusSeen.length = 0;
    this.errors.clear();
    if (this.requests) this.histogram.reset();
    this.requests =
      this.failures =
      this.redirects =
      this.messagesSent =
      this.messagesReceived =
      this.bytesIn =
      this.bytesOut =
      this.sumUs =
      this.maxUs =
        0;
    this.minUs = Number.POSITIVE_INFINITY;
    return stats;
  }
}
