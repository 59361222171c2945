import type { RampingArrivalRateConfig } from "@volley/protocol";
import { ArrivalRateExecutor } from "./arrival-rate.js";
import type { ExecutorContext } from "./base-executor.js";
import { rampingRate } from "./rate-profile.js";

/** The arrival rate follows `stages` (iterations per second), with at most `maxVus` VUs. */
export class RampingArrivalRateExecutor extends ArrivalRateExecutor<RampingArrivalRateConfig> {
  constructor(config: RampingArrivalRateConfig, ctx: ExecutorContext) {
    super(config, ctx, rampingRate(config.startRate, config.stages));
  }
}
