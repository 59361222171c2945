import { performance } from "node:perf_hooks";
import type { ErrorKind, ProgramOp } from "@volley/protocol";
import type { RequestRecorder } from "@volley/stats";

/** A flow ready to run: its program, and its share of iterations as a cumulative weight. */
export interface EngineFlow {
  program: ProgramOp[];
  /** Sum of the weights of this flow and those before it. */
  upTo: number;
}

/** Picks a flow by weight (one flow: no random draw). */
export function pickFlow(flows: EngineFlow[], random: () => number = Math.random): EngineFlow {
  if (flows.length === 1) return flows[0];
  const draw = random() * flows[flows.length - 1].upTo;
  for (const flow of flows) if (draw < flow.upTo) return flow;
  return flows[flows.length - 1];
}

/** What `nextRequest` answers for a `parallel` step: its requests are `parallelRequests`. */
export const PARALLEL_STEP = -2;
/** What `nextRequest` returns at a `sleep` step: pause `sleepMs`, then ask again. */
export const SLEEP_STEP = -3;

/**
 * Where a VU is in its flow's program. Group markers are handled here: a group's latency runs
 * from just before its first request is sent to when its last one is answered (think time after
 * it excluded), and the group failed when any of its requests failed. Nothing is recorded for a
 * group an abort cut short.
 */
export class FlowCursor {
  private program: ProgramOp[] = [];
  private pc = 0;
  private readonly startedAt: number[];
  private readonly failure: Array<[ErrorKind, string] | null>;
  private readonly open: number[] = [];
  /** The requests of the parallel step `nextRequest` stopped at. */
  parallelRequests: readonly number[] = [];
  /** The repeat turn of the step `nextRequest` stopped at (`{{repeat}}`). */
  repeat = 0;
  /** The pause of the `sleep` step `nextRequest` stopped at (and moved past), ms. */
  sleepMs = 0;

  constructor(private readonly groupRecorders: readonly RequestRecorder[]) {
    this.startedAt = new Array(groupRecorders.length).fill(-1);
    this.failure = new Array(groupRecorders.length).fill(null);
  }

  begin(program: ProgramOp[]): void {
    // Groups an abort left open are dropped, unrecorded.
    for (const group of this.open) this.startedAt[group] = -1;
    this.program = program;
    this.pc = 0;
    if (this.open.length > 0) this.open.length = 0; // setting a length calls into V8 even when it is 0 already
  }

  /**
   * The index of the next request to send, entering groups on the way; PARALLEL_STEP for a
   * parallel step (its requests in `parallelRequests`); -1 at the flow's end.
   */
  nextRequest(): number {
    // The clock is read only at a group's edge: most flows have none.
    let now = -1;
    while (this.pc < this.program.length) {
      const op = this.program[this.pc];
      if (op.op === "request") {
        this.repeat = op.repeat ?? 0;
        return op.index;
      }
      if (op.op === "sleep") {
        this.pc++;
        this.sleepMs = op.ms;
        return SLEEP_STEP;
      }
      if (op.op === "parallel") {
        this.repeat = op.repeat ?? 0;
        this.parallelRequests = op.requests;
        return PARALLEL_STEP;
      }
      if (now < 0) now = performance.now();
      if (op.op === "groupStart") {
        this.startedAt[op.group] = now;
        this.failure[op.group] = null;
        this.open.push(op.group);
      } else {
        this.closeGroup(op.group, now);
      }
      this.pc++;
    }
    return -1;
  }

  /** The current step was answered (or failed; a parallel step: all its requests): move past it and close the groups it ends. */
  requestDone(failure: [ErrorKind, string] | null): void {
    if (failure !== null) for (const group of this.open) this.failure[group] ??= failure;
    this.pc++;
    let now = -1;
    while (this.pc < this.program.length) {
      const op = this.program[this.pc];
      if (op.op !== "groupEnd") break;
      if (now < 0) now = performance.now();
      this.closeGroup(op.group, now);
      this.pc++;
    }
  }

  private closeGroup(group: number, now: number): void {
    const at = this.open.lastIndexOf(group);
    if (at >= 0) this.open.splice(at, 1);
    const started = this.startedAt[group];
    if (started < 0) return;
    this.startedAt[group] = -1;
    const failure = this.failure[group];
    const latencyUs = (now - started) * 1000;
    if (failure === null) this.groupRecorders[group].record(latencyUs, 0, 0, 0);
    else this.groupRecorders[group].record(latencyUs, 0, 0, 0, failure[0], `a request failed: ${failure[1]}`);
  }
}
