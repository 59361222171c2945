import { performance } from "node:perf_hooks";
import type { Feeder as ScriptFeeder, Vu } from "@volley/script";
import type { VuGrpc } from "../grpc/vu-grpc.js";
import type { VuSockets } from "../ws/vu-sockets.js";
import { latestRequest, startedBatch } from "./call-stamps.js";
import { RequestFailedError, type ScriptRequester, scriptRequest } from "./script-http.js";
import type { ScriptRequest } from "./script-request.js";
import { scriptStream } from "./script-stream.js";
import type { ScriptVuContext } from "./script-vu-context.js";
import { vuCookies } from "./vu-cookies.js";

/** `vu.data.NAME.next()` found no row left: the iteration is skipped and the VU stops, not a script error. */
export class FeederExhaustedError extends Error {
  constructor(feeder: string) {
    super(`feeder "${feeder}" ran out of rows (mode unique, onExhausted stop)`);
    this.name = "FeederExhaustedError";
  }
}

/** What a VU's `vu` object asks of the VU it belongs to. */
export interface VuApiHost extends ScriptRequester {
  readonly number: number;
  readonly iteration: number;
  /** The running iteration's WebSockets. */
  readonly sockets: VuSockets;
  /** Its gRPC clients. */
  readonly grpcClients: VuGrpc;
  /** Think time, ended early (rejected) by an abort. */
  sleep(ms: number): Promise<void>;
}

/**
 * The `vu` object a script's iterations get, one per VU. A class, not an object literal: V8 keeps
 * a literal with getters (`number`, `iteration`) as a dictionary, and every `vu.http` a script
 * read was a lookup in it (seen in `perf` as LoadIC under each iteration). Its methods and
 * `http`'s are closures of the VU's, so a script may take them apart (`const { check, sleep } = vu`).
 */
export class VuApi implements Vu {
  readonly #host: VuApiHost;
  readonly worker: string;
  readonly vars: Record<string, unknown> = {};
  readonly setupData: unknown;
  readonly data: Record<string, ScriptFeeder>;
  readonly env: Record<string, string>;
  readonly http: Vu["http"];
  readonly ws: Vu["ws"];
  readonly grpc: Vu["grpc"];
  readonly cookies: Vu["cookies"];
  readonly metrics: Vu["metrics"];
  readonly check: Vu["check"];
  readonly group: Vu["group"];
  readonly sleep: Vu["sleep"];

  constructor(host: VuApiHost, ctx: ScriptVuContext) {
    this.#host = host;
    this.worker = ctx.worker;
    this.setupData = ctx.script.setupData;
    this.data = feedersOf(host, ctx);
    this.env = ctx.env;
    this.http = httpOf(host, ctx);
    this.ws = {
      connect: (url, options) => {
        host.assertRunning();
        return host.sockets.connect(url, options);
      },
    };
    this.grpc = {
      connect: (options) => {
        host.assertRunning();
        return host.grpcClients.connect(options);
      },
    };
    this.cookies = vuCookies(ctx.http, () => host.cookies);
    this.metrics = ctx.metrics.api;
    this.check = (name, condition) => {
      const passed = Boolean(condition);
      ctx.http.recorders
        .check(String(name))
        .record(0, 0, 0, 0, passed ? undefined : "expect", `check "${name}" failed`);
      return passed;
    };
    this.group = (name, fn) => group(ctx, name, fn);
    this.sleep = (ms) => host.sleep(ms);
  }

  get number(): number {
    return this.#host.number;
  }

  get iteration(): number {
    return this.#host.iteration;
  }
}

function feedersOf(host: VuApiHost, ctx: ScriptVuContext): Record<string, ScriptFeeder> {
  const data: Record<string, ScriptFeeder> = {};
  for (const name of ctx.feederNames) {
    const [index] = ctx.feeders.indexesOf([name]);
    const feeder = ctx.feeders.feeders[index];
    data[name] = {
      next() {
        const row = feeder.next(host.number, host.iteration);
        if (row === null) throw new FeederExhaustedError(name);
        return Object.fromEntries(feeder.columns.map((column, i) => [column, row[i]]));
      },
    };
  }
  return data;
}

function httpOf(host: VuApiHost, ctx: ScriptVuContext): Vu["http"] {
  const request = (method: string, url: string, options?: Parameters<Vu["http"]["get"]>[1]) =>
    scriptRequest(ctx.http, host, method, url, options);
  return {
    get: (url, options) => request("GET", url, options),
    post: (url, options) => request("POST", url, options),
    put: (url, options) => request("PUT", url, options),
    patch: (url, options) => request("PATCH", url, options),
    delete: (url, options) => request("DELETE", url, options),
    request: (method, url, options) => request(method, url, options),
    stream: (method, url, options) => scriptStream(ctx.http, host, method, url, options),
    batch: (requests) => {
      if (!Array.isArray(requests)) throw new TypeError("vu.http.batch takes an array of requests");
      const made: ScriptRequest[] = [];
      const answer = Promise.all(
        requests.map(({ method, url, ...options }) => {
          const answered = request(method ?? "GET", url, options);
          const latest = latestRequest();
          if (latest !== null) made.push(latest);
          return answered;
        }),
      );
      startedBatch(answer, made);
      return answer;
    },
  };
}

/** `vu.group`: the time `fn` took, recorded under `name` (failed as its error says). */
async function group<T>(ctx: ScriptVuContext, name: string, fn: () => Promise<T> | T): Promise<T> {
  const started = performance.now();
  const recorder = ctx.http.recorders.group(String(name));
  try {
    const value = await fn();
    recorder.record((performance.now() - started) * 1000, 0, 0, 0);
    return value;
  } catch (error) {
    const why = error instanceof RequestFailedError ? error.kind : "script";
    recorder.record(
      (performance.now() - started) * 1000,
      0,
      0,
      0,
      why,
      (error as Error).message ?? String(error),
    );
    throw error;
  }
}
