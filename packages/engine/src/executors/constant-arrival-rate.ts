import type { ConstantArrivalRateConfig } from "@volley/protocol";
import { ArrivalRateExecutor } from "./arrival-rate.js";
import type { ExecutorContext } from "./base-executor.js";
import { constantRate } from "./rate-profile.js";

/** `rate` iterations per second for `duration`, with at most `maxVus` VUs. */
export class ConstantArrivalRateExecutor extends ArrivalRateExecutor<ConstantArrivalRateConfig> {
  constructor(config: ConstantArrivalRateConfig, ctx: ExecutorContext) {
    super(config, ctx, constantRate(config.rate, config.duration));
  }
}
