import { type ChildProcess, spawn } from "node:child_process";
import type { Logger } from "pino";

/** How to start the `volley worker` program as a child process. */
export interface WorkerCommand {
  command: string;
  args: string[];
}

export interface LocalWorkersOptions {
  command: WorkerCommand;
  /** The URL local workers connect to (known once the master listens). */
  masterUrl: () => string;
  token?: string;
  /** The master's certificate fingerprint, when it serves HTTPS: local workers pin it. */
  masterFingerprint?: string;
  /** Most local workers at once. @defaultValue the machine's cores */
  max: number;
  log: Logger;
}

export class LocalWorkerLimitError extends Error {}

/** Worker processes the master starts on its own machine; they connect like any other worker. */
export class LocalWorkers {
  private readonly children = new Map<number, { child: ChildProcess; name: string }>();
  private counter = 0;

  constructor(private readonly options: LocalWorkersOptions) {}

  get running(): number {
    return this.children.size;
  }

  get max(): number {
    return this.options.max;
  }

  pids(): number[] {
    return [...this.children.keys()];
  }

  /** Starts `count` workers of `threads` threads; refuses past the limit before starting any. */
  start(count: number, threads: number): string[] {
    if (this.children.size + count > this.options.max) {
      throw new LocalWorkerLimitError(
        `at most ${this.options.max} local workers may run (${this.children.size} running, ${count} asked)`,
      );
    }
    const names: string[] = [];
    for (let i = 0; i < count; i++) {
      const name = `local-${process.pid}-${++this.counter}`;
      const { command, args } = this.options.command;
      const child = spawn(
        command,
        [
          ...args,
          "--master",
          this.options.masterUrl(),
          "--threads",
          String(threads),
          "--name",
          name,
          "--local",
        ],
        {
          env: {
            ...process.env,
            VOLLEY_TOKEN: this.options.token ?? "",
            VOLLEY_MASTER_FINGERPRINT: this.options.masterFingerprint ?? "",
          },
          // The IPC channel is the worker's lifeline: it closes when the master dies, however it
          // dies, and the worker then stops (no orphans even after a SIGKILL).
          stdio: ["ignore", "inherit", "inherit", "ipc"],
        },
      );
      const pid = child.pid ?? -1;
      this.children.set(pid, { child, name });
      child.on("exit", (code, signal) => {
        this.children.delete(pid);
        this.options.log.info({ name, pid, code, signal }, "local worker exited");
      });
      names.push(name);
    }
    return names;
  }

  /** Ends every local worker: SIGTERM, then SIGKILL for any still there after `graceMs`. */
  async stopAll(graceMs = 5000): Promise<void> {
    const exits = [...this.children.values()].map(
      ({ child }) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
          child.once("exit", () => {
            clearTimeout(timer);
            resolve();
          });
          child.kill("SIGTERM");
        }),
    );
    await Promise.all(exits);
  }
}
