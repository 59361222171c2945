import type { ExecutorType, LoadConfig } from "@volley/protocol";
import type { BaseExecutor, ExecutorContext } from "./base-executor.js";
import { ConstantArrivalRateExecutor } from "./constant-arrival-rate.js";
import { ConstantVusExecutor } from "./constant-vus.js";
import { PerVuIterationsExecutor } from "./per-vu-iterations.js";
import { RampingArrivalRateExecutor } from "./ramping-arrival-rate.js";
import { RampingVusExecutor } from "./ramping-vus.js";

type Factory = (config: LoadConfig, ctx: ExecutorContext) => BaseExecutor;

/** Executor type → constructor; one file per executor beside this one. */
const EXECUTOR_FACTORIES: Record<ExecutorType, Factory> = {
  "constant-vus": (config, ctx) => new ConstantVusExecutor(config as never, ctx),
  "ramping-vus": (config, ctx) => new RampingVusExecutor(config as never, ctx),
  "per-vu-iterations": (config, ctx) => new PerVuIterationsExecutor(config as never, ctx),
  "constant-arrival-rate": (config, ctx) => new ConstantArrivalRateExecutor(config as never, ctx),
  "ramping-arrival-rate": (config, ctx) => new RampingArrivalRateExecutor(config as never, ctx),
};

export function createExecutor(config: LoadConfig, ctx: ExecutorContext): BaseExecutor {
  return EXECUTOR_FACTORIES[config.executor](config, ctx);
}
