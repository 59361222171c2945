import type { ExecutorType } from "./load.js";

/**
 * What each executor can do while a run goes, declared once: the master's load control and
 * rebalance, the engine's dealing of unique rows and the dashboard's controls all read this.
 */
export interface ExecutorCapabilities {
  /** What `PATCH /api/runs/:id/load` changes, or null when the load is fixed. */
  knob: "vus" | "rate" | null;
  /** Why the load cannot be changed (when `knob` is null). */
  fixedBecause?: string;
  /** Why workers cannot join while it runs (`POST /api/runs/:id/rebalance`); absent when they can. */
  noRebalanceBecause?: string;
  /** VUs run its iterations (not an arrival rate): unique rows are dealt by each thread's VUs. */
  vuDriven: boolean;
  /** It ends when its planned iterations are done (maxDuration only bounds it). */
  iterationBound: boolean;
}

const FIXED_ITERATIONS = "runs a fixed number of iterations";

export const EXECUTOR_CAPABILITIES: Readonly<Record<ExecutorType, ExecutorCapabilities>> = {
  "constant-vus": { knob: "vus", vuDriven: true, iterationBound: false },
  "ramping-vus": { knob: "vus", vuDriven: true, iterationBound: false },
  "per-vu-iterations": {
    knob: null,
    fixedBecause: `per-vu-iterations has no load to change: each VU ${FIXED_ITERATIONS}`,
    noRebalanceBecause: `per-vu-iterations cannot be rebalanced: each VU ${FIXED_ITERATIONS}`,
    vuDriven: true,
    iterationBound: true,
  },
  "shared-iterations": {
    knob: null,
    fixedBecause: `shared-iterations has no load to change: the fleet ${FIXED_ITERATIONS}`,
    noRebalanceBecause: `shared-iterations cannot be rebalanced: each thread's share of the iterations is dealt at the start`,
    vuDriven: true,
    iterationBound: true,
  },
  "constant-arrival-rate": { knob: "rate", vuDriven: false, iterationBound: false },
  "ramping-arrival-rate": { knob: "rate", vuDriven: false, iterationBound: false },
  "capacity-search": {
    knob: null,
    fixedBecause:
      "capacity-search sets its own rate, step by step: change startRate, step or maxRate in the scenario",
    vuDriven: false,
    iterationBound: false,
  },
};
