import type { RequestConfig } from "./request.js";
import {
  type Flow,
  hasParallelSteps,
  iterationStatsName,
  lateStartStatsName,
  skippedStatsName,
  WS_METHOD,
} from "./steps.js";
import { STREAM_TIMINGS, streamStatsName } from "./stream-names.js";
import { wsExchangeName } from "./ws-request.js";

// The names a scenario's statistics come under, and how reports show them.

/** How reports show a request: its name, after its method unless the name starts with it. */
export function requestLabel(method: string, name: string): string {
  return name.startsWith(`${method} `) ? name : `${method} ${name}`;
}

/** How reports show a summarised request: its scenario and flow (when it has them), then its label. */
export function summaryLabel(r: { method: string; name: string; scenario?: string; flow?: string }): string {
  const place = [r.scenario, r.flow].filter(Boolean).join(" · ");
  return `${place ? `${place} · ` : ""}${requestLabel(r.method, r.name)}`;
}

/** What names a request: its own name, else its method and path (`WS /chat` for a `ws:` one, the gRPC method for a `grpc:` one). */
type NamedRequest = {
  name?: string;
  method: string;
  path?: string;
  url?: string;
  ws?: string;
  grpc?: { method: string };
  steps?: ReadonlyArray<{ expect?: string; name?: string } | object>;
};

/** The name a request's statistics are grouped under. */
export function requestName(request: NamedRequest): string {
  if (request.ws !== undefined) return request.name ?? `${WS_METHOD} ${request.ws}`;
  if (request.grpc !== undefined) return request.name ?? request.grpc.method;
  return request.name ?? `${request.method} ${request.path ?? request.url}`;
}

/** Every name a request records under: its own, then (a `ws:` request) each awaited exchange's. */
export function requestStatsNames(request: NamedRequest): string[] {
  const name = requestName(request);
  if (request.ws === undefined) return [name];
  const exchanges = (request.steps ?? []).flatMap((step) =>
    "expect" in step ? [wsExchangeName(name, step as { name?: string })] : [],
  );
  return [...new Set([name, ...exchanges])];
}

/** Every name a run's statistics come under: its requests' (WebSocket exchanges included), then its groups'. */
export function statsNames(scenario: {
  requests: ReadonlyArray<NamedRequest>;
  groups: readonly string[];
}): string[] {
  return [...new Set(scenario.requests.flatMap(requestStatsNames)), ...scenario.groups];
}

/**
 * Whether a VU of the scenario may have several requests in flight: a scripted part
 * (`Promise.all`, `vu.http.batch`) or a `parallel` step. Its threads then size their
 * connections for `http.maxConnectionsPerVu` per VU.
 */
export function hasParallelRequests(scenario: {
  parts: ReadonlyArray<{ script: string | null; flows: readonly Flow[] }>;
}): boolean {
  return (
    scenario.parts.some((part) => part.script !== null) ||
    hasParallelSteps(scenario.parts.map((part) => part.flows))
  );
}

/** Every name a worker's statistics of this scenario may carry: requests, groups, each part's iterations. */
export function recordedStatsNames(
  scenario: Parameters<typeof statsNames>[0] & { parts: ReadonlyArray<{ name: string | null }> },
): string[] {
  const streamed = scenario.requests.filter((r) => "stream" in r && r.stream !== undefined).map(requestName);
  return [
    ...statsNames(scenario),
    ...[...new Set(streamed)].flatMap((name) =>
      STREAM_TIMINGS.map((timing) => streamStatsName(name, timing)),
    ),
    ...scenario.parts.flatMap((part) => [
      iterationStatsName(part.name),
      skippedStatsName(part.name),
      lateStartStatsName(part.name),
    ]),
  ];
}

/** The names of a scenario's checks: each request with `expect` is one, under its name. */
export function checkNames(scenario: { requests: ReadonlyArray<RequestConfig> }): string[] {
  return [...new Set(scenario.requests.filter((r) => r.expect !== undefined).map(requestName))];
}
