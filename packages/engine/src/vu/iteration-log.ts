import { performance } from "node:perf_hooks";
import {
  ITERATION_METHOD,
  iterationStatsName,
  LATE_START_METHOD,
  lateStartStatsName,
  SKIPPED_METHOD,
  skippedStatsName,
} from "@volley/protocol";
import { RequestRecorder } from "@volley/stats";
import type { EngineVu } from "./engine-vu.js";

/**
 * A part's iterations, as its VU pool starts and ends them: each finished one recorded with its
 * duration, each that could not start (its unique feeder ran out) counted as skipped. An
 * iteration aborted under way (gracefulStop ran out) or before it sent anything is neither.
 */
export class IterationLog {
  readonly finished: RequestRecorder;
  readonly skipped: RequestRecorder;
  /** An arrival rate's iterations due before its thread began, each with how late it began. */
  readonly lateStart: RequestRecorder;
  /** performance.now() each VU (by index in its thread) started its iteration. */
  private startedAt = new Float64Array(16);

  constructor(part: string | null, histograms = true) {
    this.finished = new RequestRecorder(iterationStatsName(part), ITERATION_METHOD, histograms);
    this.skipped = new RequestRecorder(skippedStatsName(part), SKIPPED_METHOD, false);
    this.lateStart = new RequestRecorder(lateStartStatsName(part), LATE_START_METHOD);
  }

  /** `vu` starts an iteration at `at` (performance.now()), or now when `at` is -1. */
  started(vu: EngineVu, at = -1): void {
    if (vu.index >= this.startedAt.length) {
      const grown = new Float64Array(Math.max(vu.index + 1, this.startedAt.length * 2));
      grown.set(this.startedAt);
      this.startedAt = grown;
    }
    this.startedAt[vu.index] = at < 0 ? performance.now() : at;
  }

  /** `vu` ended its iteration; returns when (performance.now()). */
  ended(vu: EngineVu): number {
    const now = performance.now();
    if (vu.outcome === "finished") {
      this.finished.record((now - this.startedAt[vu.index]) * 1000, 0, 0, 0);
    } else if (vu.outcome === "exhausted") {
      this.skipped.record(0, 0, 0, 0);
    }
    return now;
  }

  /** `count` iterations were due before the thread began, `lateMs` after the scheduled start. */
  startedLate(count: number, lateMs: number): void {
    for (let i = 0; i < count; i++) this.lateStart.record(lateMs * 1000, 0, 0, 0);
  }

  /** Planned iterations that will never start because a feeder ran out (beyond the one that found it). */
  skip(count: number): void {
    for (let i = 0; i < count; i++) this.skipped.record(0, 0, 0, 0);
  }
}
