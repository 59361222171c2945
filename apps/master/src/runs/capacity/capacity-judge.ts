import {
  type CapacityResult,
  type CapacitySearchConfig,
  type CapacityStep,
  capacityRates,
  lateStartStatsName,
  scopedName,
  type TotalsSummary,
} from "@volley/protocol";
import { evaluateThresholds, StatsAggregate } from "@volley/stats";
import { capacitySentence } from "./capacity-sentence.js";

/** Dropped iterations above this share of a step's planned ones make it a generator limit. */
const DROPPED_LIMIT = 0.01;

/**
 * Judges a capacity search step by step on the merged seconds, as they close: each step's
 * figures (the whole step, or `slo.request`'s) against the SLO. The first failing step is
 * confirmed by the next (a noisy step does not end the search); two failing steps in a row, a
 * failing last step, or the last step passing at maxRate give the verdict.
 */
export class CapacityJudge {
  readonly rates: number[];
  readonly steps: CapacityStep[] = [];
  private readonly stepS: number;
  private current = new StatsAggregate();
  /** A failing step waiting for the next to confirm it. */
  private pending: number | null = null;
  private verdict: Pick<CapacityResult, "sustainedRate" | "breakingRate" | "limitedBy"> | null = null;

  constructor(
    private readonly load: CapacitySearchConfig,
    private readonly order: readonly string[],
    /** "req/s" when an iteration is one request, else "iterations/s". */
    private readonly unit: string,
    /** Its scenario's name, when written as the one of `scenarios:` (its requests' names are scoped). */
    private readonly part: string | null = null,
  ) {
    this.rates = capacityRates(load);
    this.stepS = load.stepDuration / 1000;
  }

  /** True once the search has its answer: the run can stop. */
  get done(): boolean {
    return this.verdict !== null;
  }

  /** The step a second belongs to. */
  stepOf(second: number): number {
    return Math.floor(second / this.stepS);
  }

  /** A merged second of the run, in order; a step is judged when its last second closes. */
  addSecond(second: number, stats: StatsAggregate): void {
    if (this.done) return;
    const step = this.stepOf(second);
    if (step < this.steps.length || step >= this.rates.length) return;
    this.current.addAggregate(stats);
    if (second === (step + 1) * this.stepS - 1) {
      this.judge(step, this.current);
      this.current = new StatsAggregate();
    }
  }

  /** Steps judged before a master took the run over (kept in the run's row). */
  restore(steps: CapacityStep[]): void {
    for (const step of steps.slice(0, this.rates.length)) this.record(this.steps.length, step);
  }

  result(): CapacityResult {
    const request = this.load.slo.request ?? null;
    const lastOk = [...this.steps].reverse().find((s) => s.ok);
    const verdict = this.verdict ?? {
      sustainedRate: lastOk?.rate ?? null,
      breakingRate: null,
      limitedBy: "stopped" as const,
    };
    const result = {
      ...verdict,
      request,
      steps: this.steps,
      stepDurationS: this.stepS,
      searching: !this.verdict,
    };
    return { ...result, sentence: capacitySentence(result, this.load, this.unit) };
  }

  private judge(index: number, stats: StatsAggregate): void {
    const summary = stats.summarize(this.stepS, this.order);
    const request = this.load.slo.request && scopedName(this.part, this.load.slo.request);
    const figures: TotalsSummary | undefined = request
      ? summary.requests.find((r) => r.name === request)
      : summary.total;
    const rate = this.rates[index];
    // Iterations due before a thread began are dropped too, but the VUs did not run out: the
    // run's late-start warning reports those, and they do not make the step fail on maxVus.
    const lateStarts = stats.get(lateStartStatsName(this.part))?.requests ?? 0;
    const dropped = Math.max(0, stats.dropped - lateStarts);
    const prefix = request ? `${request}.` : "";
    const rules: Record<string, string> = {};
    for (const metric of ["p95", "p99", "errorRate"] as const) {
      const rule = this.load.slo[metric];
      if (rule !== undefined) rules[`${prefix}${metric}`] = rule;
    }
    const broken = evaluateThresholds(rules, summary).find((r) => r.actual !== null && !r.pass);
    const generatorLimited = dropped > rate * this.stepS * DROPPED_LIMIT;
    // A step with nothing measured met nothing: the SLO cannot be judged on it.
    const failedOn = !figures?.requests
      ? ("noData" as const)
      : generatorLimited
        ? ("maxVus" as const)
        : broken
          ? (broken.key.slice(prefix.length) as CapacityStep["failedOn"])
          : null;
    this.record(index, {
      rate,
      achievedRps: figures?.rps ?? 0,
      p95: figures?.requests ? figures.latencyMs.p95 : null,
      p99: figures?.requests ? figures.latencyMs.p99 : null,
      errorRate: figures?.requests ? figures.failures / figures.requests : 0,
      dropped,
      ok: failedOn === null,
      failedOn,
      noise: false,
    });
  }

  /** Adds a judged step and decides whether the search is over. */
  private record(index: number, step: CapacityStep): void {
    this.steps[index] = step;
    const last = index === this.rates.length - 1;
    if (step.ok) {
      if (this.pending !== null) {
        // The next step passed: the failing one was noise.
        this.steps[this.pending] = { ...this.steps[this.pending], noise: true };
        this.pending = null;
      }
      if (last) this.verdict = { sustainedRate: step.rate, breakingRate: null, limitedBy: "maxRate" };
      return;
    }
    if (step.noise) return;
    if (this.load.confirm && this.pending === null && !last) {
      this.pending = index;
      return;
    }
    const breaking = this.steps[this.pending ?? index];
    const sustained = this.steps
      .slice(0, this.pending ?? index)
      .reverse()
      .find((s) => s.ok);
    this.verdict = {
      sustainedRate: sustained?.rate ?? null,
      breakingRate: breaking.rate,
      limitedBy: breaking.failedOn ?? "p95",
    };
  }
}
