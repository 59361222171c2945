import { readFileSync } from "node:fs";
import { cpus } from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";

export interface SystemSample {
  /** This process's CPU, percent of the cores it can use (its threads, at most the machine's). */
  cpu: number;
  /**
   * How busy the cores this process may run on are, percent, whoever keeps them busy: another
   * process on the same cores starves the generator as surely as its own load does.
   */
  machineCpu: number;
  memoryMb: number;
  /** Worst event-loop delay of the worker's main thread since the last sample, ms. */
  eventLoopDelayMs: number;
}

/** Samples what the worker reports in its heartbeats. */
export class SystemSampler {
  private lastCpu = process.cpuUsage();
  private lastTime = process.hrtime.bigint();
  private readonly cores = allowedCores();
  private lastMachine = machineTimes(this.cores);
  private readonly loopDelay = monitorEventLoopDelay({ resolution: 10 });

  constructor(private readonly usableCores: number) {
    this.loopDelay.enable();
  }

  /**
   * CPU, memory and loop delay since the last sample. `pollIdleMs`: CPU time this process's
   * engine threads spent polling with nothing to do (busy-poll.ts), taken off both CPU figures.
   */
  sample(pollIdleMs = 0): SystemSample {
    const now = process.hrtime.bigint();
    const cpu = process.cpuUsage();
    const wallUs = Number(now - this.lastTime) / 1000;
    const usedUs = Math.max(
      0,
      cpu.user - this.lastCpu.user + (cpu.system - this.lastCpu.system) - pollIdleMs * 1000,
    );
    const machine = machineTimes(this.cores);
    const busy = Math.max(0, machine.busy - this.lastMachine.busy - pollIdleMs);
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

/** The cores this process may run on (Linux affinity), or null for all of them. */
export function allowedCores(): Set<number> | null {
  try {
    const status = readFileSync("/proc/self/status", "utf8");
    const list = /^Cpus_allowed_list:\s*(.+)$/m.exec(status)?.[1];
    if (!list) return null;
    const cores = new Set<number>();
    for (const part of list.split(",")) {
      const [from, to] = part.split("-").map(Number);
      for (let core = from; core <= (to ?? from); core++) cores.add(core);
    }
    return cores;
  } catch {
    return null;
  }
}

function machineTimes(allowed: Set<number> | null): { busy: number; total: number } {
  let busy = 0;
  let total = 0;
  for (const [index, core] of cpus().entries()) {
    if (allowed && !allowed.has(index)) continue;
    const t = core.times;
    const all = t.user + t.nice + t.sys + t.idle + t.irq;
    total += all;
    busy += all - t.idle;
  }
  return { busy, total };
}
