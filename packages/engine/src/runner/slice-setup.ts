import {
  GROUP_METHOD,
  GRPC_METHOD,
  hasParallelRequests,
  isGrpcTarget,
  type Partition,
  runVuCeiling,
  type Scenario,
  STREAM_METHODS,
  STREAM_TIMINGS,
  streamStatsName,
  WS_METHOD,
} from "@volley/protocol";
import { RequestRecorder } from "@volley/stats";
import type { FeederSet } from "../feeders/feeder.js";
import type { GrpcChannels } from "../grpc/grpc-channels.js";
import { h2Sessions } from "../http/dispatcher.js";
import type { TraceIds } from "../http/trace-ids.js";
import type { WriteBatch } from "../http/write-batch.js";
import type { ConnectionSettings } from "../network/connection-settings.js";
import type { ProtoPackages } from "../scenario/compiled-grpc.js";
import type { CompiledRequest } from "../scenario/compiled-request.js";
import type { LoadedScript } from "../script/load-scripts.js";
import type { ScriptMetrics } from "../script/script-metrics.js";
import { type ScriptThread, scriptTarget } from "../script/script-part.js";
import { PlainRequests } from "../script/script-prepare.js";
import type { ScriptRecorders } from "../script/script-recorders.js";
import { ThreadPools } from "./thread-pools.js";

/**
 * A thread's recorders: one per request name (requests sharing a name share it; a `ws:` request's
 * awaited exchanges have names of their own, method WS), one per group.
 */
export function sliceRecorders(
  requests: readonly Pick<CompiledRequest, "name" | "method" | "ws" | "grpc" | "stream">[],
  groups: readonly string[],
  latencyHistograms: boolean,
): {
  perRequest: RequestRecorder[];
  groups: RequestRecorder[];
  unique: RequestRecorder[];
  byName: ReadonlyMap<string, RequestRecorder>;
} {
  const byName = new Map<string, RequestRecorder>();
  const named = (name: string, method: string) => {
    let recorder = byName.get(name);
    if (!recorder) {
      recorder = new RequestRecorder(name, method, latencyHistograms);
      byName.set(name, recorder);
    }
    return recorder;
  };
  const perRequest = requests.map((r) => named(r.name, r.ws ? WS_METHOD : r.grpc ? GRPC_METHOD : r.method));
  for (const r of requests) {
    for (const step of r.ws?.steps ?? []) if (step.kind === "expect") named(step.name, WS_METHOD);
    if (r.stream)
      for (const timing of STREAM_TIMINGS) named(streamStatsName(r.name, timing), STREAM_METHODS[timing]);
  }
  const groupRecorders = groups.map((group) => new RequestRecorder(group, GROUP_METHOD, latencyHistograms));
  return { perRequest, groups: groupRecorders, unique: [...byName.values(), ...groupRecorders], byName };
}

/**
 * Sockets (HTTP/2: sessions) and requests in flight one origin takes for `vus` VUs: HTTP/1.1 a
 * socket per request in flight (opened as needed); HTTP/2 every request in flight at once, over a
 * few sessions. A VU may have several requests in flight: a script's (Promise.all,
 * vu.http.batch), a parallel step's.
 */
export function originConnections(scenario: Scenario, vus: number): { sockets: number; inFlight: number } {
  const h2 = scenario.http.version !== "1.1";
  const perVu = hasParallelRequests(scenario) ? scenario.http.maxConnectionsPerVu : 1;
  const wanted = vus * perVu;
  const inFlight = h2 ? wanted : Math.min(wanted, scenario.http.maxConnections ?? wanted);
  return { inFlight, sockets: h2 ? h2Sessions(vus, scenario.http.maxConnections) : inFlight };
}

/** A thread's connection pools, sized for its share of the VUs at their ceiling (sockets open as needed). */
export function slicePools(
  scenario: Scenario,
  partition: Partition,
  network: ConnectionSettings,
  writes: WriteBatch,
): ThreadPools {
  const { sockets, inFlight } = originConnections(
    scenario,
    Math.max(1, partition.count(runVuCeiling(scenario))),
  );
  return new ThreadPools(scenario.http, network, sockets, inFlight, writes);
}

/** What a thread shares with its scripted parts (see `scriptThreadOf`). */
export interface ScriptThreadParts {
  pools: ThreadPools;
  grpc: GrpcChannels;
  network: ConnectionSettings;
  protos: ProtoPackages;
  tracing: TraceIds | null;
  metrics: ScriptMetrics;
  worker: string;
  env: Record<string, string>;
  feeders: FeederSet;
  scripts: Record<string, LoadedScript>;
}

/** The thread as one scripted part sees it: the shared parts, and the part's own recorders. */
export function scriptThreadOf(
  scenario: Scenario,
  parts: ScriptThreadParts,
  recorders: ScriptRecorders,
): ScriptThread {
  const { pools } = parts;
  return {
    scenario,
    metrics: parts.metrics,
    http: {
      target: scriptTarget(scenario),
      originOf: (origin: string) => pools.get(origin),
      recorders,
      timeoutMs: scenario.timeout,
      maxBodyBytes: scenario.http.maxBodyBytes,
      compression: scenario.http.compression,
      network: parts.network,
      grpc: parts.grpc,
      protos: parts.protos,
      grpcTarget: isGrpcTarget(scenario.target) ? scenario.target : null,
      tracing: parts.tracing,
      plain: new PlainRequests(),
      proto: scenario.http.version === "1.1" ? "HTTP/1.1" : "HTTP/2",
    },
    worker: parts.worker,
    env: parts.env,
    feeders: parts.feeders,
    scripts: parts.scripts,
  };
}
