import {
  isLiveRunStatus,
  type LiveMessage,
  type LiveSecond,
  type LoadChangeRecord,
  type MetricPoint,
  type RunListItem,
  type RunSummary,
  type TimeseriesPoint,
  type WorkerInfo,
} from "@volley/protocol";
import { useEffect, useRef, useState } from "react";

export type ConnectionState = "connecting" | "open" | "lost";

/** What the live feed brought of one run in progress. */
export interface LiveRunSeries {
  points: TimeseriesPoint[];
  requestPoints: Record<string, TimeseriesPoint[]>;
  /** Each of the run's `scenarios:`, as its own series. */
  scenarioPoints: Record<string, TimeseriesPoint[]>;
  /** The run's custom metrics, each second they were recorded. */
  metricPoints: Record<string, MetricPoint[]>;
  summary: RunSummary | null;
  /** The run's workers: requests so far and state. */
  runWorkers: LiveSecond["workers"];
}

export interface LiveFeed {
  connection: ConnectionState;
  workers: WorkerInfo[];
  /** The live series of each run in progress (runs on disjoint workers run at once), by id. */
  live: Record<string, LiveRunSeries>;
  /** The last status change of any run (for pages following a run that just ended). */
  lastStatus: RunListItem | null;
  /** The runs in progress (running or stopping), oldest first. */
  inProgress: Array<Pick<RunListItem, "id" | "name" | "status" | "stopReason">>;
  /** The run started last (running, stopping, or just ended), with its current status. */
  current: Pick<RunListItem, "id" | "name" | "status" | "stopReason"> | null;
  /** Runs waiting for their workers, first in line first. */
  queued: RunListItem[];
  /** The load changes of a run, as last pushed (`PATCH /api/runs/:id/load`). */
  runLoad: { runId: string; loadChanges: LoadChangeRecord[] } | null;
}

/** A run is in progress: it holds the workers (a queued one waits). */
export function isInProgress(run: { status: string } | null): boolean {
  return run !== null && isLiveRunStatus(run.status);
}

const EMPTY: LiveFeed = {
  connection: "connecting",
  workers: [],
  live: {},
  lastStatus: null,
  inProgress: [],
  current: null,
  queued: [],
  runLoad: null,
};

const NO_SERIES: LiveRunSeries = {
  points: [],
  requestPoints: {},
  scenarioPoints: {},
  metricPoints: {},
  summary: null,
  runWorkers: [],
};

/** The live series of run `id`, empty when the feed has none of it. */
export function liveSeries(feed: LiveFeed, id: string | null): LiveRunSeries {
  return (id !== null && feed.live[id]) || NO_SERIES;
}

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
        live: Object.fromEntries(
          message.runs.map(({ run, points }) => [run.id, { ...NO_SERIES, points, summary: run.summary }]),
        ),
        inProgress: message.runs.map(({ run }) => run),
        current: message.runs.at(-1)?.run ?? null,
        queued: message.queued ?? [],
      };
    case "workers":
      return { ...feed, workers: message.workers };
    case "run-status": {
      const changed = message.run;
      const others = feed.queued.filter((q) => q.id !== changed.id);
      const queued = changed.status === "queued" ? [...others, changed] : others;
      const current = isInProgress(changed) || feed.current?.id === changed.id ? changed : feed.current;
      const rest = feed.inProgress.filter((r) => r.id !== changed.id);
      const inProgress = isInProgress(changed) ? [...rest, changed] : rest;
      // A run that ended keeps its series until it is reloaded from the API; none comes for it now.
      return { ...feed, lastStatus: changed, queued, current, inProgress };
    }
    case "run-load":
      return { ...feed, runLoad: { runId: message.runId, loadChanges: message.loadChanges } };
    case "run-second":
      return {
        ...feed,
        live: { ...feed.live, [message.runId]: addSecond(feed.live[message.runId], message) },
      };
  }
}

/** One merged second added to a run's live series. */
function addSecond(series: LiveRunSeries = NO_SERIES, message: LiveSecond): LiveRunSeries {
  const requestPoints = { ...series.requestPoints };
  for (const [name, point] of Object.entries(message.requests)) {
    requestPoints[name] = [...(requestPoints[name] ?? []), point];
  }
  const scenarioPoints = { ...series.scenarioPoints };
  for (const [name, point] of Object.entries(message.scenarios ?? {})) {
    scenarioPoints[name] = [...(scenarioPoints[name] ?? []), point];
  }
  const metricPoints = { ...series.metricPoints };
  for (const [name, point] of Object.entries(message.metrics ?? {})) {
    metricPoints[name] = [...(metricPoints[name] ?? []), point];
  }
  return {
    points: [...series.points, message.point],
    requestPoints,
    scenarioPoints,
    metricPoints,
    summary: message.summary,
    runWorkers: message.workers,
  };
}
