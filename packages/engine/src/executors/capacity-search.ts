import { type CapacitySearchConfig, capacityRates } from "@volley/protocol";
import { ArrivalRateExecutor } from "./arrival-rate.js";
import type { ExecutorContext } from "./base-executor.js";
import { rampingRate } from "./rate-profile.js";
import type { Stage } from "./stages.js";

/**
 * The arrival rate of a capacity search: a staircase of `stepDuration` steps from `startRate` to
 * `maxRate`. The engine only climbs; the master judges each step on the merged data and stops
 * the run once a step breaks the SLO.
 */
export class CapacitySearchExecutor extends ArrivalRateExecutor<CapacitySearchConfig> {
  constructor(config: CapacitySearchConfig, ctx: ExecutorContext) {
    const rates = capacityRates(config);
    // A zero-length stage jumps to the step's rate; the next holds it for the step.
    const stages: Stage[] = rates.flatMap((rate, i) => [
      ...(i > 0 ? [{ duration: 0, target: rate }] : []),
      { duration: config.stepDuration, target: rate },
    ]);
    super(config, ctx, rampingRate(rates[0], stages));
  }
}
