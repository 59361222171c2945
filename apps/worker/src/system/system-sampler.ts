import { cpus } from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";

export interface SystemSample {
  /** This process's CPU, percent of the cores it can use (its threads, at most the machine's). */
  cpu: number;
  /** The whole machine's CPU, percent. */
  machineCpu: number;
  memoryMb: number;
  /** Worst event-loop delay of the worker's main thread since the last sample, ms. */
  eventLoopDelayMs: number;
}

/** Samples what the worker reports in its heartbeats. */
export class SystemSampler {
  private lastCpu = process.cpuUsage();
  private lastTime = process.hrtime.bigint();
  private lastMachine = machineTimes();
  private readonly loopDelay = monitorEventLoopDelay({ resolution: 10 });

  constructor(private readonly usableCores: number) {
    this.loopDelay.enable();
  }

  sample(): SystemSample {
    const now = process.hrtime.bigint();
    const cpu = process.cpuUsage();
    const wallUs = Number(now - this.lastTime) / 1000;
    const usedUs = cpu.user - this.lastCpu.user + (cpu.system - this.lastCpu.system);
    const machine = machineTimes();
    const busy = machine.busy - this.lastMachine.busy;
    const total = machine.total - this.lastMachine.total;
    const sample: SystemSample = {
      cpu: wallUs > 0 ? Math.min(100, (usedUs / wallUs / this.usableCores) * 100) : 0,
      machineCpu: total > 0 ? Math.min(100, (busy / total) * 100) : 0,
      memoryMb: process.memoryUsage().rss / 1024 / 1024,
      eventLoopDelayMs: this.loopDelay.count ? this.loopDelay.max / 1e6 : 0,
    };
    this.lastCpu = cpu;
    this.lastTime = now;
    this.lastMachine = machine;
    this.loopDelay.reset();
    return sample;
  }

  stop(): void {
    this.loopDelay.disable();
  }
}

function machineTimes(): { busy: number; total: number } {
  let busy = 0;
  let total = 0;
  for (const core of cpus()) {
    const t = core.times;
    const all = t.user + t.nice + t.sys + t.idle + t.irq;
    total += all;
    busy += all - t.idle;
  }
  return { busy, total };
}
