import type { MasterToWorker, WorkerHeartbeat, WorkerHello, WorkerInfo } from "@volley/protocol";
import { LoopGap } from "../loop-gap.js";

/** How often silence is judged. */
const SWEEP_INTERVAL_MS = 250;
/** Silence allowed to a worker between a run's start-run and its first heartbeat after it. */
const START_SILENCE_MS = 60_000;

/** What the registry needs of a worker's socket. */
export interface WorkerChannel {
  send(message: MasterToWorker): void;
  close(code: number, reason: string): void;
}

export interface WorkerEntry {
  info: WorkerInfo;
  channel: WorkerChannel | null;
  lastSeen: number;
  /**
   * The run the master no longer needs this worker for (its final batch is merged, or it said
   * `run-ended`). Heartbeats that still name it come from the slice's teardown: the worker is free.
   */
  releasedRunId: string | null;
  /**
   * The run the master sent this worker a slice of, until a heartbeat names it: heartbeats sent
   * before the worker read `start-run` must not show it free (it could be retired mid-start).
   */
  assignedRunId: string | null;
  /** The join token it came with (null: the master's token, or none asked). */
  joinTokenId: string | null;
}

export interface WorkerRegistryOptions {
  /** A worker silent this long is lost. @defaultValue 5000 */
  heartbeatTimeoutMs: number;
  /** Heartbeat period workers are told to keep. @defaultValue 1000 */
  heartbeatIntervalMs?: number;
  /** Lost workers are forgotten after this long, unless `keep` says a run still needs them. @defaultValue 600000 */
  lostRetentionMs?: number;
  /** Whether a lost worker must stay listed (it belongs to the active run). */
  keep?: (workerId: string) => boolean;
  /**
   * Whether a run is still in progress on this master. A worker done with its slice of such a
   * run stays held by it until the run releases it (its last batch merged): a run holds its
   * workers until it ends, so the next one never starts before it has. Unset: a worker is free once it says so.
   */
  inProgress?: (runId: string) => boolean;
  /** CPU percent above which a worker counts as saturated. @defaultValue 90 */
  cpuLimit?: number;
  /** Event-loop delay above which a worker counts as saturated. @defaultValue 50 */
  loopDelayLimitMs?: number;
  onLost: (entry: WorkerEntry) => void;
  onChange: () => void;
}

/** Every worker node the master knows: connected, lost, or local and starting. */
export class WorkerRegistry {
  private readonly entries = new Map<string, WorkerEntry>();
  private timer: NodeJS.Timeout | null = null;
  private readonly gap = new LoopGap(SWEEP_INTERVAL_MS);

  constructor(private readonly options: WorkerRegistryOptions) {}

  start(): void {
    this.timer = setInterval(() => this.sweep(Date.now()), SWEEP_INTERVAL_MS);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /**
   * A worker said hello (first time, or again after a reconnect). Returns null, and changes
   * nothing, when that id is connected on another socket and heard from lately: a live worker
   * cannot be taken over. A socket silent for two heartbeats (half-open) can be replaced.
   */
  connect(
    hello: WorkerHello,
    channel: WorkerChannel,
    host: string,
    joinTokenId: string | null = null,
  ): WorkerEntry | null {
    const now = Date.now();
    const previous = this.entries.get(hello.workerId);
    if (previous?.channel && previous.channel !== channel) {
      if (now - previous.lastSeen < this.takeoverAfterMs()) return null;
      previous.channel.close(4000, "replaced by a new connection");
    }
    const info: WorkerInfo = {
      id: hello.workerId,
      name: hello.name,
      host: hello.host || host,
      threads: hello.threads,
      cores: hello.cores,
      version: hello.version,
      state: hello.activeRunId ? "running" : "ready",
      vus: previous?.info.vus ?? 0,
      cpu: previous?.info.cpu ?? 0,
      machineCpu: previous?.info.machineCpu ?? 0,
      memoryMb: previous?.info.memoryMb ?? 0,
      eventLoopDelayMs: previous?.info.eventLoopDelayMs ?? 0,
      lastSeenAt: new Date(now).toISOString(),
      connectedAt: new Date(now).toISOString(),
      local: hello.local,
      runId: hello.activeRunId,
      saturated: false,
      aggregator: null,
      labels: hello.labels ?? {},
    };
    const entry: WorkerEntry = {
      info,
      channel,
      lastSeen: now,
      releasedRunId: null,
      assignedRunId: previous?.assignedRunId ?? null,
      joinTokenId,
    };
    this.entries.set(hello.workerId, entry);
    this.options.onChange();
    return entry;
  }

  heartbeat(workerId: string, heartbeat: WorkerHeartbeat): WorkerEntry | undefined {
    const entry = this.entries.get(workerId);
    if (!entry) return undefined;
    const now = Date.now();
    entry.lastSeen = now;
    if (heartbeat.runId !== null && heartbeat.runId === entry.assignedRunId) entry.assignedRunId = null;
    const released = heartbeat.runId !== null && heartbeat.runId === entry.releasedRunId;
    if (heartbeat.runId === null) entry.releasedRunId = null;
    const free = released || heartbeat.runId === null;
    const pending = free ? entry.assignedRunId : null;
    const previous = entry.info.runId;
    const unreleased =
      heartbeat.runId === null && previous !== null && this.options.inProgress?.(previous) ? previous : null;
    Object.assign(entry.info, {
      state: pending ? "running" : released ? "ready" : heartbeat.state,
      runId: pending ?? unreleased ?? (released ? null : heartbeat.runId),
      vus: heartbeat.vus,
      cpu: heartbeat.cpu,
      machineCpu: heartbeat.machineCpu,
      memoryMb: heartbeat.memoryMb,
      eventLoopDelayMs: heartbeat.eventLoopDelayMs,
      lastSeenAt: new Date(now).toISOString(),
      // Only a worker that is generating load can distort results (start-up spikes do not count).
      saturated: heartbeat.state !== "ready" && this.isSaturated(heartbeat),
      aggregator: heartbeat.runId === null ? null : (heartbeat.aggregator ?? null),
    });
    this.options.onChange();
    return entry;
  }

  /** The generator may be the bottleneck: its process, its cores or its event loop is at the limit. */
  isSaturated(sample: { cpu: number; machineCpu: number; eventLoopDelayMs: number }): boolean {
    const cpuLimit = this.options.cpuLimit ?? 90;
    return (
      sample.cpu > cpuLimit ||
      sample.machineCpu > cpuLimit ||
      sample.eventLoopDelayMs > (this.options.loopDelayLimitMs ?? 50)
    );
  }

  private held(entry: WorkerEntry): boolean {
    const runId = entry.info.runId;
    return runId !== null && (this.options.inProgress?.(runId) ?? false);
  }

  /** The master sent this worker a slice of `runId`: it is busy from now on, whatever heartbeats in flight say. */
  assign(workerId: string, runId: string): void {
    const entry = this.entries.get(workerId);
    if (!entry) return;
    entry.assignedRunId = runId;
    if (entry.info.state !== "lost") entry.info.state = "running";
    entry.info.runId = runId;
    this.options.onChange();
  }

  /**
   * The master has all it needs of this worker for `runId`: it is free for the next run even
   * before its own heartbeat says so (its threads may still be winding down; the worker waits
   * for them before it starts the next run).
   */
  release(workerId: string, runId: string): void {
    const entry = this.entries.get(workerId);
    if (entry?.assignedRunId === runId) entry.assignedRunId = null;
    if (!entry || entry.info.runId !== runId) return;
    entry.releasedRunId = runId;
    if (entry.info.state !== "lost") entry.info.state = "ready";
    entry.info.runId = null;
    entry.info.vus = 0;
    entry.info.saturated = false;
    this.options.onChange();
  }

  /** The socket closed; the worker becomes lost if it does not come back in time. */
  disconnected(workerId: string, channel: WorkerChannel): void {
    const entry = this.entries.get(workerId);
    if (entry && entry.channel === channel) entry.channel = null;
  }

  get(workerId: string): WorkerEntry | undefined {
    return this.entries.get(workerId);
  }

  /** Closes the sockets of the workers that joined with `tokenId` (it was revoked); returns their names. */
  disconnectJoinedWith(tokenId: string, reason: string): string[] {
    const names: string[] = [];
    for (const entry of this.entries.values()) {
      if (entry.joinTokenId !== tokenId || !entry.channel) continue;
      // 4003, as for a wrong token: the worker logs that the master refused it.
      entry.channel.close(4003, reason);
      names.push(entry.info.name);
    }
    return names;
  }

  remove(workerId: string): void {
    if (this.entries.delete(workerId)) this.options.onChange();
  }

  list(): WorkerInfo[] {
    return [...this.entries.values()]
      .map((e) => ({ ...e.info }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Workers with an open socket, whatever their state. */
  connected(): WorkerEntry[] {
    return [...this.entries.values()].filter((e) => e.channel && e.info.state !== "lost");
  }

  /** Connected workers free to take a run: ready, and held by no run in progress (`inProgress`). */
  ready(): WorkerEntry[] {
    return [...this.entries.values()]
      .filter((e) => e.channel && e.info.state === "ready" && !this.held(e))
      .sort((a, b) => a.info.name.localeCompare(b.info.name));
  }

  /**
   * The workers free for a new run (of those `wanted`). Workers still winding down a run that has ended (their
   * heartbeat has not caught up) are waited for up to `maxWaitMs`, so a run posted right after
   * another ends is not refused.
   */
  async readySoon(
    maxWaitMs: number,
    wanted: (info: WorkerInfo) => boolean = () => true,
  ): Promise<WorkerEntry[]> {
    const deadline = Date.now() + maxWaitMs;
    for (;;) {
      const ready = this.ready().filter((e) => wanted(e.info));
      const finishing = this.connected().some((e) => e.info.state !== "ready" && wanted(e.info));
      if (ready.length > 0 || !finishing || Date.now() >= deadline) return ready;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  send(workerId: string, message: MasterToWorker): boolean {
    const entry = this.entries.get(workerId);
    if (!entry?.channel) return false;
    entry.channel.send(message);
    return true;
  }

  counts(): Record<string, number> {
    const counts: Record<string, number> = { ready: 0, running: 0, stopping: 0, lost: 0 };
    for (const entry of this.entries.values()) counts[entry.info.state]++;
    return counts;
  }

  private takeoverAfterMs(): number {
    return 2 * (this.options.heartbeatIntervalMs ?? 1000);
  }

  /** Judges silence; public for tests that drive the clock. */
  sweep(now: number): void {
    const retention = this.options.lostRetentionMs ?? 600_000;
    // Heartbeats that came while this master could not run sit unread in the sockets: the
    // time it was stalled is nobody's silence (a 5 s stall once lost every worker of a run).
    const blind = this.gap.tick(now);
    for (const [id, entry] of this.entries) {
      entry.lastSeen += blind;
      // Run records keep their own copy of each worker; the live list forgets the long gone.
      if (entry.info.state === "lost" && now - entry.lastSeen > retention && !this.options.keep?.(id)) {
        this.entries.delete(id);
        this.options.onChange();
        continue;
      }
      // A worker sent a run's slice reads its files and starts its threads before it beats again:
      // a 40 MB feeder takes it seconds, which is no silence of a lost worker.
      const timeout =
        entry.assignedRunId === null
          ? this.options.heartbeatTimeoutMs
          : Math.max(this.options.heartbeatTimeoutMs, START_SILENCE_MS);
      if (entry.info.state !== "lost" && now - entry.lastSeen > timeout) {
        entry.info.state = "lost";
        entry.info.vus = 0;
        entry.channel?.close(4001, "heartbeat timeout");
        entry.channel = null;
        this.options.onLost(entry);
        this.options.onChange();
      }
    }
  }
}
