import {
  isLiveRunStatus,
  type LiveMessage,
  type LiveSecond,
  type LoadChangeRecord,
  type MetricPoint,
  type RunDetail,
  type RunListItem,
  type RunSummary,
  type TimeseriesPoint,
  type WorkerInfo,
} from "@volley/protocol";
import { useEffect, useRef, useState } from "react";

export type ConnectionState = "connecting" | "open" | "lost";

export interface LiveFeed {
  connection: ConnectionState;
  workers: WorkerInfo[];
  /** The active run as the master described it when the feed opened, or null. */
  run: RunDetail | null;
  /** The run the live series below belong to. */
  liveRunId: string | null;
  points: TimeseriesPoint[];
  requestPoints: Record<string, TimeseriesPoint[]>;
  /** Each of the live run's `scenarios:`, as its own series. */
  scenarioPoints: Record<string, TimeseriesPoint[]>;
  /** The live run's custom metrics, each second they were recorded. */
  metricPoints: Record<string, MetricPoint[]>;
  summary: RunSummary | null;
  /** The live run's workers: requests so far and state. */
  runWorkers: LiveSecond["workers"];
  /** The last status change of any run (for pages following a run that just ended). */
  lastStatus: RunListItem | null;
  /** The run started last (running, stopping, or just ended), with its current status. */
  current: Pick<RunListItem, "id" | "name" | "status" | "stopReason"> | null;
  /** Runs waiting for their turn, first in line first. */
  queued: RunListItem[];
  /** The load changes of the active run, as last pushed (`PATCH /api/runs/:id/load`). */
  runLoad: { runId: string; loadChanges: LoadChangeRecord[] } | null;
}

/** A run is in progress: it holds the workers (a queued one waits). */
export function isInProgress(run: { status: string } | null): boolean {
  return run !== null && isLiveRunStatus(run.status);
}

const EMPTY: LiveFeed = {
  connection: "connecting",
  workers: [],
  run: null,
  liveRunId: null,
  points: [],
  requestPoints: {},
  scenarioPoints: {},
  metricPoints: {},
  summary: null,
  runWorkers: [],
  lastStatus: null,
  current: null,
  queued: [],
  runLoad: null,
};

/**
 * The one subscription to `/ws/live`: the master pushes every change, nothing is polled. The
 * socket reconnects by itself; `connection` says when it is lost.
 */
export function useLiveFeed(): LiveFeed {
  const [feed, setFeed] = useState<LiveFeed>(EMPTY);
  const attempts = useRef(0);
  useEffect(() => {
    let socket: WebSocket | null = null;
    let timer: ReturnType<typeof setTimeout> | null = null;
    let closed = false;
    const connect = () => {
      const url = new URL("/ws/live", window.location.href);
      url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
      socket = new WebSocket(url);
      socket.onopen = () => {
        attempts.current = 0;
      };
      socket.onmessage = (event) =>
        setFeed((current) => apply(current, JSON.parse(event.data) as LiveMessage));
      socket.onclose = () => {
        if (closed) return;
        setFeed((current) => ({ ...current, connection: "lost" }));
        const delay = Math.min(5000, 250 * 2 ** attempts.current++);
        timer = setTimeout(connect, delay / 2 + Math.random() * (delay / 2));
      };
    };
    connect();
    return () => {
      closed = true;
      if (timer) clearTimeout(timer);
      socket?.close();
    };
  }, []);
  return feed;
}

function apply(feed: LiveFeed, message: LiveMessage): LiveFeed {
  switch (message.type) {
    case "state":
      return {
        ...feed,
        connection: "open",
        workers: message.workers,
        run: message.run,
        liveRunId: message.run?.id ?? null,
        points: message.points,
        requestPoints: {},
        scenarioPoints: {},
        metricPoints: {},
        summary: message.run?.summary ?? null,
        current: message.run,
        queued: message.queued ?? [],
      };
    case "workers":
      return { ...feed, workers: message.workers };
    case "run-status": {
      const changed = message.run;
      const run = feed.run?.id === changed.id ? { ...feed.run, status: changed.status } : feed.run;
      const others = feed.queued.filter((q) => q.id !== changed.id);
      const queued = changed.status === "queued" ? [...others, changed] : others;
      const current = isInProgress(changed) || feed.current?.id === changed.id ? changed : feed.current;
      return { ...feed, lastStatus: changed, run, queued, current };
    }
    case "run-load":
      return { ...feed, runLoad: { runId: message.runId, loadChanges: message.loadChanges } };
    case "run-second": {
      const fresh = feed.liveRunId !== message.runId;
      const requestPoints = fresh ? {} : { ...feed.requestPoints };
      for (const [name, point] of Object.entries(message.requests)) {
        requestPoints[name] = [...(requestPoints[name] ?? []), point];
      }
      const scenarioPoints = fresh ? {} : { ...feed.scenarioPoints };
      for (const [name, point] of Object.entries(message.scenarios ?? {})) {
        scenarioPoints[name] = [...(scenarioPoints[name] ?? []), point];
      }
      const metricPoints = fresh ? {} : { ...feed.metricPoints };
      for (const [name, point] of Object.entries(message.metrics ?? {})) {
        metricPoints[name] = [...(metricPoints[name] ?? []), point];
      }
      return {
        ...feed,
        liveRunId: message.runId,
        points: fresh ? [message.point] : [...feed.points, message.point],
        requestPoints,
        scenarioPoints,
        metricPoints,
        summary: message.summary,
        runWorkers: message.workers,
      };
    }
  }
}
