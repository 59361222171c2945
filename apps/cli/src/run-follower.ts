import {
  type LiveMessage,
  type LiveSecond,
  type RunDetail,
  TERMINAL_RUN_STATUSES,
  type WorkerInfo,
} from "@volley/protocol";
import WebSocket from "ws";
import type { ApiClient } from "./api-client.js";

const TERMINAL = new Set<string>(TERMINAL_RUN_STATUSES);
/** With the feed quiet this long, the run is read once over HTTP (a missed end is caught). */
const QUIET_MS = 5000;
/** How often the run is read when the feed cannot be opened. */
const POLL_MS = 1000;

/** What the follower shows each time the run changes: the run, and its saturated workers now. */
export type RunUpdate = (run: RunDetail, saturatedNow: string[]) => void;

/**
 * Follows one run to its end on the master's live feed (`/ws/live`, what the dashboard reads):
 * each merged second updates the figures, the end is seen the moment the master says so, and
 * nothing reads the database each second (a `volley run` on one core gave that a few percent
 * of its engine's time). The whole run is read over HTTP at the start, when its status or
 * workers change, when the feed has been quiet for 5 s, and at the end. Without the feed
 * (refused, or closed early) it reads the run every second instead.
 */
export class RunFollower {
  private detail: RunDetail | null = null;
  private saturated: string[] = [];
  private socket: WebSocket | null = null;
  private quietTimer: NodeJS.Timeout | null = null;
  private ended = false;

  constructor(
    private readonly api: ApiClient,
    private readonly runId: string,
    private readonly onUpdate: RunUpdate,
  ) {}

  /** Resolves with the run as stored once it ended. */
  follow(): Promise<RunDetail> {
    return new Promise((resolve, reject) => {
      const finish = (run: RunDetail) => {
        if (this.ended) return;
        this.ended = true;
        this.stop();
        resolve(run);
      };
      const fail = (error: Error) => {
        if (this.ended) return;
        this.ended = true;
        this.stop();
        reject(error);
      };
      const poll = () => this.poll(finish).catch(fail);
      const socket = new WebSocket(this.api.liveUrl(), { headers: this.api.authHeaders() });
      this.socket = socket;
      socket.on("open", () => {
        this.armQuiet(finish, fail);
        this.refresh(finish).catch(fail);
      });
      socket.on("message", (data) => {
        this.armQuiet(finish, fail);
        this.handle(JSON.parse(data.toString()) as LiveMessage, finish).catch(fail);
      });
      // No feed (an old master, a proxy without WebSocket) or a feed lost: read the run instead.
      socket.on("error", () => {});
      socket.on("close", () => {
        if (!this.ended) void poll();
      });
    });
  }

  private async handle(message: LiveMessage, finish: (run: RunDetail) => void): Promise<void> {
    switch (message.type) {
      case "run-second":
        if (message.runId === this.runId && this.detail) this.show(withSecond(this.detail, message));
        return;
      case "workers":
      case "state":
        this.saturated = saturatedIn(message.workers, this.runId);
        return;
      case "run-status":
        if (message.run.id === this.runId) await this.refresh(finish);
        return;
      case "run-load":
        // A rebalance adds workers: the run is read again to list them.
        if (message.runId === this.runId) await this.refresh(finish);
        return;
    }
  }

  /** Reads the run over HTTP: shows it, or finishes when it ended. */
  private async refresh(finish: (run: RunDetail) => void): Promise<void> {
    const run = await this.api.run(this.runId);
    if (TERMINAL.has(run.status)) finish(run);
    else this.show(run);
  }

  private async poll(finish: (run: RunDetail) => void): Promise<void> {
    while (!this.ended) {
      await this.refresh(finish);
      if (!this.ended) await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  private show(run: RunDetail): void {
    if (this.ended) return;
    this.detail = run;
    this.onUpdate(run, this.saturated);
  }

  private armQuiet(finish: (run: RunDetail) => void, fail: (error: Error) => void): void {
    if (this.quietTimer) clearTimeout(this.quietTimer);
    this.quietTimer = setTimeout(() => {
      this.refresh(finish)
        .then(() => this.armQuiet(finish, fail))
        .catch(fail);
    }, QUIET_MS);
  }

  private stop(): void {
    if (this.quietTimer) clearTimeout(this.quietTimer);
    this.socket?.removeAllListeners("close");
    this.socket?.on("error", () => {});
    this.socket?.close();
  }
}

/** The run with a merged second applied: its summary, the second, each worker's requests. */
export function withSecond(run: RunDetail, second: LiveSecond): RunDetail {
  const live = new Map(second.workers.map((w) => [w.workerId, w]));
  return {
    ...run,
    summary: second.summary,
    now: second.point,
    workers: run.workers.map((w) => {
      const current = live.get(w.workerId);
      return current ? { ...w, requests: current.requests, status: current.status } : w;
    }),
  };
}

/** Names of the run's workers that say they are saturated now. */
function saturatedIn(workers: WorkerInfo[], runId: string): string[] {
  return workers.filter((w) => w.runId === runId && w.saturated).map((w) => w.name);
}
