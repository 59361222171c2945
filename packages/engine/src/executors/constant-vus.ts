import { type ConstantVusConfig, vuCeiling } from "@volley/protocol";
import type { ExecutorContext } from "./base-executor.js";
import { ClosedModelExecutor, TARGET_TICK_MS } from "./closed-model.js";

/** A fixed number of VUs for a duration; with `rampUp`, VU i of N starts at rampUp * i / N. */
export class ConstantVusExecutor extends ClosedModelExecutor<ConstantVusConfig> {
  constructor(config: ConstantVusConfig, ctx: ExecutorContext) {
    super(config, ctx, ctx.partition.count(vuCeiling(config)));
  }

  start(): void {
    this.scheduleAt(this.config.duration, () => this.stop());
    this.ramp();
  }

  private ramp(): void {
    const { vus, rampUp } = this.config;
    const started = rampUp > 0 ? Math.min(vus, Math.floor((this.elapsed() * vus) / rampUp) + 1) : vus;
    this.setPlannedTarget(started);
    if (started < vus) {
      const nextAt = (started * rampUp) / vus;
      this.schedule(
        () => this.ramp(),
        Math.max(nextAt - this.elapsed(), Math.min(TARGET_TICK_MS, rampUp / vus)),
      );
    }
  }
}
