import type { ExecutorType, LoadConfig } from "@volley/protocol";
import type { BaseExecutor, ExecutorContext } from "./base-executor.js";
import { CapacitySearchExecutor } from "./capacity-search.js";
import { ConstantArrivalRateExecutor } from "./constant-arrival-rate.js";
import { ConstantVusExecutor } from "./constant-vus.js";
import { PerVuIterationsExecutor } from "./per-vu-iterations.js";
import { RampingArrivalRateExecutor } from "./ramping-arrival-rate.js";
import { RampingVusExecutor } from "./ramping-vus.js";
import { SharedIterationsExecutor } from "./shared-iterations.js";

type ConfigOf<T extends ExecutorType> = Extract<LoadConfig, { executor: T }>;
type Factory<C extends LoadConfig> = (config: C, ctx: ExecutorContext) => BaseExecutor;

/** Executor type → constructor; one file per executor beside this one. */
const EXECUTOR_FACTORIES: { [T in ExecutorType]: Factory<ConfigOf<T>> } = {
  "constant-vus": (config, ctx) => new ConstantVusExecutor(config, ctx),
  "ramping-vus": (config, ctx) => new RampingVusExecutor(config, ctx),
  "per-vu-iterations": (config, ctx) => new PerVuIterationsExecutor(config, ctx),
  "shared-iterations": (config, ctx) => new SharedIterationsExecutor(config, ctx),
  "constant-arrival-rate": (config, ctx) => new ConstantArrivalRateExecutor(config, ctx),
  "ramping-arrival-rate": (config, ctx) => new RampingArrivalRateExecutor(config, ctx),
  "capacity-search": (config, ctx) => new CapacitySearchExecutor(config, ctx),
};

export function createExecutor(config: LoadConfig, ctx: ExecutorContext): BaseExecutor {
  // TypeScript cannot tie the looked-up factory to the config's own type; the map above does.
  const factory = EXECUTOR_FACTORIES[config.executor] as Factory<LoadConfig>;
  return factory(config, ctx);
}
