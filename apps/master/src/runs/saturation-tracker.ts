import type { SaturationWarning } from "@volley/protocol";

/** Heartbeats in a row that make a span worth reporting: one slow second (start-up, a GC pause) does not. */
export const MIN_SATURATED_SAMPLES = 2;

interface Span {
  samples: number;
  fromS: number;
  lastS: number;
  peakCpu: number;
  peakCoresCpu: number;
  peakDelay: number;
  /** The machine's cores, when the worker said (older workers do not). */
  cores: number | null;
}

interface WorkerSaturation {
  workerName: string;
  /** The most VUs it had active at a heartbeat (above its plan once the load was raised). */
  peakVus: number;
  peakCpu: number;
  peakEventLoopDelayMs: number;
  open: Span | null;
  spans: SaturationWarning[];
}

/**
 * Watches the heartbeats of a run's workers for signs that the load generator, not the target,
 * limited the results: CPU above its limit or a slow event loop. Keeps the time spans.
 */
export class SaturationTracker {
  private readonly workers = new Map<string, WorkerSaturation>();

  constructor(private readonly startAt: number) {}

  record(
    workerId: string,
    workerName: string,
    sample: { cpu: number; machineCpu: number; eventLoopDelayMs: number; cores?: number; vus?: number },
    saturated: boolean,
    now = Date.now(),
  ): void {
    const second = Math.max(0, Math.floor((now - this.startAt) / 1000));
    let state = this.workers.get(workerId);
    if (!state) {
      state = { workerName, peakVus: 0, peakCpu: 0, peakEventLoopDelayMs: 0, open: null, spans: [] };
      this.workers.set(workerId, state);
    }
    state.peakVus = Math.max(state.peakVus, sample.vus ?? 0);
    state.peakCpu = Math.max(state.peakCpu, sample.cpu);
    state.peakEventLoopDelayMs = Math.max(state.peakEventLoopDelayMs, sample.eventLoopDelayMs);
    if (saturated) {
      if (!state.open)
        state.open = {
          samples: 0,
          fromS: second,
          lastS: second,
          peakCpu: 0,
          peakCoresCpu: 0,
          peakDelay: 0,
          cores: sample.cores ?? null,
        };
      state.open.lastS = second;
      state.open.samples++;
      state.open.peakCpu = Math.max(state.open.peakCpu, sample.cpu);
      state.open.peakCoresCpu = Math.max(state.open.peakCoresCpu, sample.machineCpu);
      state.open.peakDelay = Math.max(state.open.peakDelay, sample.eventLoopDelayMs);
    } else if (state.open) {
      this.closeSpan(workerId, state);
    }
  }

  peaks(workerId: string): { peakVus: number; peakCpu: number; peakEventLoopDelayMs: number } {
    const state = this.workers.get(workerId);
    return {
      peakVus: state?.peakVus ?? 0,
      peakCpu: state?.peakCpu ?? 0,
      peakEventLoopDelayMs: state?.peakEventLoopDelayMs ?? 0,
    };
  }

  /** Every span so far, open ones included. */
  warnings(): SaturationWarning[] {
    const all: SaturationWarning[] = [];
    for (const [workerId, state] of this.workers) {
      for (const span of state.spans) all.push(span);
      if (state.open && state.open.samples >= MIN_SATURATED_SAMPLES) {
        all.push(this.describe(workerId, state.workerName, state.open));
      }
    }
    return all.sort((a, b) => a.fromS - b.fromS);
  }

  private closeSpan(workerId: string, state: WorkerSaturation): void {
    if (state.open && state.open.samples >= MIN_SATURATED_SAMPLES) {
      state.spans.push(this.describe(workerId, state.workerName, state.open));
    }
    state.open = null;
  }

  private describe(workerId: string, workerName: string, span: Span): SaturationWarning {
    return {
      workerId,
      workerName,
      fromS: span.fromS,
      toS: span.lastS + 1,
      peakCpu: span.peakCpu,
      peakEventLoopDelayMs: span.peakDelay,
      message: `results may be limited by the load generator: ${workerName} was saturated from ${span.fromS}s to ${span.lastS + 1}s (${whose(span)})`,
    };
  }
}

/**
 * Whose CPU it was: the worker's own process, or the machine's cores busy with other processes
 * (the worker's share of the machine is its CPU over the cores), and the event loop's delay.
 */
function whose(span: Span): string {
  const reasons: string[] = [];
  const ownShare = span.cores === null ? null : span.peakCpu / span.cores;
  if (span.peakCoresCpu > 90 && ownShare !== null && ownShare < span.peakCoresCpu / 2) {
    reasons.push(
      `the machine's cores busy up to ${Math.round(span.peakCoresCpu)}%, the worker's own process using at most ${Math.round(ownShare)}% of them: other processes took the rest`,
    );
  } else {
    if (span.peakCpu > 0) reasons.push(`the worker's own process at up to ${Math.round(span.peakCpu)}% CPU`);
    if (span.peakCoresCpu > 90) reasons.push(`its cores busy up to ${Math.round(span.peakCoresCpu)}%`);
  }
  if (span.peakDelay > 0) reasons.push(`event-loop delay up to ${Math.round(span.peakDelay)} ms`);
  return reasons.join(", ");
}
