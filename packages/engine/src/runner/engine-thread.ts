import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads";
import type { RowRange } from "@volley/protocol";
import type { SlicePeriod } from "./slice-engine.js";
import type { FromThread, ThreadStart, ToThread } from "./thread-messages.js";

const THREAD_ENTRY = new URL("./thread-main.js", import.meta.url);

export interface EngineThreadHandlers {
  onReady: () => void;
  onPeriod: (period: SlicePeriod) => void;
  onRowsReleased: (id: number, rows: Record<string, RowRange[]>) => void;
  /** The thread could not start, or broke while running (an error, a malformed message). */
  onFailed: (message: string) => void;
  /** The thread is gone: `lost` says why when it ended before its slice was done, else null. */
  onExit: (lost: string | null) => void;
}

/**
 * One engine thread and its private channel. The engine speaks over a MessagePort handed to the
 * thread in its start data (and taken out of it before any script loads), never over the
 * thread's parentPort, which a script can reach: what a script posts there is not listened to.
 * Every message is checked for its shape, so a thread that sends garbage is ended, not the worker.
 */
export class EngineThread {
  /** When the thread was last heard from (epoch ms); -1 once it exited or was stopped. */
  lastHeard = Date.now();
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private done = false;
  private started = false;
  /** Why the engine ended the thread itself (blocked, broken), or null. */
  private endedBy: string | null = null;

  constructor(
    readonly index: number,
    start: ThreadStart,
    resourceLimits: { maxYoungGenerationSizeMb?: number },
    private readonly handlers: EngineThreadHandlers,
  ) {
    const channel = new MessageChannel();
    this.port = channel.port1;
    this.worker = new Worker(THREAD_ENTRY, {
      workerData: { ...start, port: channel.port2 },
      transferList: [channel.port2],
      resourceLimits,
    });
    this.port.on("message", (message: unknown) => this.receive(message));
    this.worker.on("error", (error) => this.fail(`engine thread ${index + 1} failed: ${error.message}`));
    this.worker.on("exit", (code) => {
      // The private port is not the thread's own channel: what the thread posted before it
      // ended (its last period, "done") may still be queued when "exit" comes. Take it first.
      for (let queued = receiveMessageOnPort(this.port); queued; queued = receiveMessageOnPort(this.port)) {
        this.receive(queued.message);
      }
      this.port.close();
      const stopped = this.lastHeard < 0;
      this.lastHeard = -1;
      // A thread that never became ready did not run: its start failure is the answer, not a loss.
      const lost = !this.started
        ? null
        : this.done || stopped
          ? this.endedBy
          : `engine thread ${index + 1} ended before its slice was done (exit code ${code}): what it measured since its last second is missing`;
      handlers.onExit(lost);
    });
  }

  get running(): boolean {
    return this.lastHeard >= 0;
  }

  post(message: ToThread): void {
    if (this.running) this.port.postMessage(message);
  }

  /** Ends the thread now (blocked, broken): `why` is what its exit reports. */
  kill(why: string): void {
    this.endedBy ??= why;
    this.lastHeard = -1;
    void this.worker.terminate();
  }

  /** Ends the thread at once without a reason (shutdown). */
  terminate(): Promise<number> {
    this.done = true;
    return this.worker.terminate();
  }

  private fail(message: string): void {
    if (this.endedBy !== null) return;
    this.handlers.onFailed(message);
    this.kill(message);
  }

  private receive(raw: unknown): void {
    if (this.running) this.lastHeard = Date.now();
    const message = raw as FromThread;
    const problem = shapeProblem(message);
    if (problem !== null) {
      this.fail(`engine thread ${this.index + 1} sent a malformed message (${problem})`);
      return;
    }
    try {
      if (message.type === "period") this.handlers.onPeriod(message.period);
      else if (message.type === "ready") {
        this.started = true;
        this.handlers.onReady();
      } else if (message.type === "rows-released") this.handlers.onRowsReleased(message.id, message.rows);
      else if (message.type === "done") this.done = true;
      else if (message.type === "failed") {
        this.done = true;
        this.endedBy = message.message;
        this.handlers.onFailed(message.message);
      }
    } catch (error) {
      this.fail(
        `engine thread ${this.index + 1} sent a message that could not be merged (${(error as Error).message})`,
      );
    }
  }
}

/** What is wrong with a message's outer shape, or null (the engine wrote it; this catches the rest). */
function shapeProblem(message: FromThread | null | undefined): string | null {
  if (message === null || typeof message !== "object") return "not an object";
  switch (message.type) {
    case "ready":
    case "done":
      return null;
    case "failed":
      return typeof message.message === "string" ? null : "failed without a message";
    case "rows-released":
      return Number.isInteger(message.id) && message.rows !== null && typeof message.rows === "object"
        ? null
        : "rows-released without its id or rows";
    case "period": {
      const period = message.period as Partial<SlicePeriod> | undefined;
      if (period === null || typeof period !== "object") return "period without a period";
      if (!Number.isInteger(period.second) || (period.second as number) < 0) return "period.second";
      if (!Array.isArray(period.requests)) return "period.requests";
      if (typeof period.final !== "boolean") return "period.final";
      return null;
    }
    default:
      return `unknown type ${JSON.stringify(String((message as { type?: unknown }).type)).slice(0, 40)}`;
  }
}
