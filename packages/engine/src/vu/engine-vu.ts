/**
 * How a VU's last iteration ended: it ran to its end (`finished`, failures and script errors
 * included), was aborted under way (`interrupted`), was aborted before it sent anything
 * (`unsent`), or could not start because a unique feeder ran out (`exhausted`).
 */
export type IterationOutcome = "finished" | "interrupted" | "unsent" | "exhausted";

/** Tells the executor an iteration ended. */
export type IterationEnd = (vu: EngineVu) => void;

/**
 * What an executor drives: a virtual user that runs one iteration at a time. The declarative
 * `VirtualUser` (requests, flows) and the `ScriptedVu` (a script's default export) are both one.
 */
export interface EngineVu {
  /** Global VU number, unique across threads and workers (1-based). */
  readonly number: number;
  /** Index of the VU within its thread. */
  readonly index: number;
  /** Iterations completed. */
  iteration: number;
  busy: boolean;
  /** Its data ran out: it starts no more iterations. */
  exhausted: boolean;
  /** How its last iteration ended (read when the executor hears of the end). */
  readonly outcome: IterationOutcome;
  /** In an iteration that has sent nothing yet (waiting for a connection): aborting it counts nothing. */
  readonly unstarted: boolean;
  /** Runs one iteration; `scheduledAt` (performance.now ms) is its planned start under an arrival rate. */
  startIteration(onEnd: IterationEnd, scheduledAt?: number): void;
  /** Ends the iteration now (gracefulStop ran out, or it has not started sending). */
  abort(): void;
}

/** Makes VU `index` of a thread, numbered `number`. */
export type VuFactory = (number: number, index: number) => EngineVu;
