/**
 * The scripted-VU API: what a script's default export receives. Types only, so an editor can
 * check a script against them without Volley's internals:
 *
 * ```ts
 * import type { Vu } from "@volley/script";
 * export default async function (vu: Vu) {
 *   const r = await vu.http.get("/hello", { name: "hello" });
 *   vu.check("hello is 200", r.status === 200);
 * }
 * ```
 *
 * @packageDocumentation
 */

/** A JSON value: what `vu.vars` may hold across iterations and `setup()` may return. */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/** What one request sends besides its method and URL. */
export interface RequestOptions {
  /** The name its statistics are kept under. @defaultValue `METHOD path` (query string left out) */
  name?: string;
  headers?: Record<string, string>;
  /** A body as is (a string or bytes). */
  body?: string | Uint8Array;
  /** A JSON body; sets `content-type: application/json`. */
  json?: unknown;
  /** An `application/x-www-form-urlencoded` body. */
  form?: Record<string, string>;
  /** A `multipart/form-data` body: a field is text, or a file's bytes with its type and name. */
  multipart?: Record<
    string,
    string | { content: string | Uint8Array; contentType?: string; filename?: string }
  >;
  /** Milliseconds before the request fails with kind `timeout`. @defaultValue the scenario's `timeout` */
  timeout?: number;
  /**
   * What the answer must be, else the request counts as failed (kind `expect`): a status, a list
   * of statuses or `"2xx"`-style classes, and text the body must contain.
   */
  expect?: { status?: number | string | Array<number | string>; body?: string };
  /**
   * The answer's body is read off the connection and counted (bytes in, framing, the deadline)
   * but not kept: the answer's `body` and `json()` throw. For requests whose body the script never
   * reads: each answer then costs no copy of it (k6's `responseType: "none"`). Not with
   * `expect.body`, which reads it.
   */
  discardBody?: boolean;
}

/** Where a request's time went, in milliseconds. */
export interface ResponseTimings {
  /**
   * Waiting for a free connection: the VU had `http.maxConnectionsPerVu` requests in flight, or
   * the thread its `http.maxConnections`. Never part of the request's latency.
   */
  blocked: number;
  /** Opening its connection's TCP connection; 0 on a reused connection. */
  connect: number;
  /** Its connection's TLS handshake; 0 on a reused or plain connection. */
  tls: number;
  /** Handing the request to the socket. */
  sending: number;
  /** From the request sent to the answer's first byte: the server's time (and the network's). */
  waiting: number;
  /** From the first byte to the last. */
  receiving: number;
  /** From the request handed a connection to its answer's last byte: the latency it is recorded with. */
  duration: number;
}

/** The answer to one request. A request that got no answer (refused, timed out) rejects instead. */
export interface HttpResponse {
  status: number;
  /** Where the request's time went, in ms. */
  timings: ResponseTimings;
  /** The protocol it went over. */
  proto: "HTTP/1.1" | "HTTP/2";
  /** Header names in lower case; repeated headers are joined with ", " (set-cookie with "\n"). */
  headers: Record<string, string>;
  /** The body as text (decoded when compressed and `http.compression` is on), up to `http.maxBodyBytes`. */
  body: string;
  /** The body parsed as JSON; throws (ending the iteration as a script error) when it is not JSON. */
  json<T = unknown>(): T;
}

/** HTTP through the engine's pooled keep-alive connections; every call is one recorded request. */
export interface VuHttp {
  /** `url` is a path on the scenario's `target` ("/login") or an absolute http(s) URL. */
  get(url: string, options?: RequestOptions): Promise<HttpResponse>;
  post(url: string, options?: RequestOptions): Promise<HttpResponse>;
  put(url: string, options?: RequestOptions): Promise<HttpResponse>;
  patch(url: string, options?: RequestOptions): Promise<HttpResponse>;
  delete(url: string, options?: RequestOptions): Promise<HttpResponse>;
  request(method: string, url: string, options?: RequestOptions): Promise<HttpResponse>;
  /**
   * Sends the requests at once, each on a connection of its own (up to `http.maxConnectionsPerVu`
   * in flight; the rest as those finish), like a browser loading a page. Resolves with the
   * answers in order; rejects as `Promise.all` does when one gets no answer (every request is
   * still counted once).
   */
  batch(requests: ReadonlyArray<BatchRequest>): Promise<HttpResponse[]>;
  /**
   * A request whose answer is a stream of events (SSE, NDJSON, LLM tokens): resolves once its head
   * arrives; `events()` yields each event as it comes. Recorded when the stream ends, with its time
   * to first byte, to first event and the gaps between events (as a scenario's `stream:` request).
   */
  stream(method: string, url: string, options?: StreamOptions): Promise<HttpStream>;
}

/** How `vu.http.stream` reads the answer. */
export interface StreamOptions extends Omit<RequestOptions, "expect" | "discardBody"> {
  /** `sse` (Server-Sent Events, the default) or `lines` (NDJSON and the like); `until`: the event holding this text ends the stream. */
  stream?: { kind?: "sse" | "lines"; until?: string };
}

/** One event of a stream: an SSE event's data (its `data:` lines joined), its name and id; a line's text. */
export interface StreamEvent {
  data: string;
  event?: string;
  id?: string;
}

/** A streamed answer: its status once the head arrived, then its events as they come. */
export interface HttpStream {
  status: number;
  /** Each event as it arrives; leaving the loop ends the stream (counted as answered). */
  events(): AsyncIterable<StreamEvent>;
}

/** One request of `vu.http.batch`. */
export interface BatchRequest extends RequestOptions {
  /** @defaultValue "GET" */
  method?: string;
  /** A path on the scenario's `target` or an absolute http(s) URL. */
  url: string;
}

/** The VU's cookie jar (`http.cookies`), as the requests use it. */
export interface VuCookies {
  /** The cookies the VU would send to `url` (a path on the target, or an absolute URL), by name. */
  get(url: string): Record<string, string>;
  /** Puts a cookie in the jar as if `url`'s host had set it (host-only, path "/"). Throws with `http.cookies: false`. */
  set(url: string, name: string, value: string): void;
  /** Empties the jar. */
  clear(): void;
}

/** How `vu.ws.connect` opens a socket. */
export interface WsConnectOptions {
  /** The name the handshake (and the socket's messages and bytes) are recorded under. @defaultValue "WS /path" */
  name?: string;
  headers?: Record<string, string>;
  /** Milliseconds the handshake may take. @defaultValue the scenario's `timeout` */
  timeout?: number;
}

/** Which message `ws.next` waits for, and how it is recorded. */
export interface WsNextOptions {
  /** A substring, a pattern or a test the message must meet; earlier messages that do not are skipped. @defaultValue any message */
  match?: string | RegExp | ((message: string | Uint8Array) => boolean);
  /** Milliseconds to wait. @defaultValue the scenario's `timeout` */
  timeout?: number;
  /** Records the time from the last `send` to the message as a request of this name (a timeout or a close as its failure). */
  name?: string;
}

/** An open WebSocket of this VU; closed for it when the iteration ends, if the script did not. */
export interface WsSocket {
  send(data: string | Uint8Array): void;
  /** The next matching message: text as a string, binary as bytes. */
  next(options?: WsNextOptions): Promise<string | Uint8Array>;
  close(): Promise<void>;
}

export interface VuWs {
  /**
   * Opens a WebSocket: a path on the target (ws:// or wss:// as the target is http or https) or a
   * ws(s):// URL. The handshake is a request (status 101); a refusal fails as `status`.
   */
  connect(url: string, options?: WsConnectOptions): Promise<WsSocket>;
}

/** Where `vu.grpc.connect` calls, and with which services. */
export interface GrpcConnectOptions {
  /** The .proto file, relative to the scenario file (`volley run` sends it and its imports with the run). */
  proto: string;
  /** `grpc://host:port` (plaintext) or `grpcs://host:port` (TLS). @defaultValue the scenario's target, when it is one */
  target?: string;
}

/** How one call is made and recorded. */
export interface GrpcCallOptions {
  /** The name the call is recorded under. @defaultValue the method, "package.Service/Method" */
  name?: string;
  metadata?: Record<string, string>;
  /** Milliseconds before the call fails with kind `timeout` (its deadline). @defaultValue the scenario's `timeout` */
  timeout?: number;
}

/** How a unary call ended: its status (`OK`, `NOT_FOUND`, ...), the answer, and metadata (headers and trailers). */
export interface GrpcResponse {
  status: string;
  /** The status code (0 is OK). */
  code: number;
  /** The status message the server gave with a status that is not OK. */
  details: string;
  /** The answer as JSON-like data (proto field names; 64-bit integers, enums and bytes as strings); null without one. */
  message: Record<string, unknown> | null;
  metadata: Record<string, string>;
}

/** A call that streams messages from this side: send them, end, and read the answers with `for await`. */
export interface GrpcStream extends AsyncIterable<Record<string, unknown>> {
  send(message: Record<string, unknown>): void;
  /** No more messages from this side (the server then ends the call). */
  end(): void;
}

/**
 * A channel to a gRPC server, the VU's own (one HTTP/2 connection, kept across iterations like a
 * keep-alive connection). Each call is one request: its latency from start to status, its
 * status as `grpc:NAME`; a stream's messages are counted both ways. A status that is not OK is a
 * failure of kind `status` (invoke resolves with it; a stream's loop throws it).
 */
export interface GrpcClient {
  invoke(method: string, message: Record<string, unknown>, options?: GrpcCallOptions): Promise<GrpcResponse>;
  /** The server's messages, as they come. */
  serverStream(
    method: string,
    message: Record<string, unknown>,
    options?: GrpcCallOptions,
  ): AsyncIterable<Record<string, unknown>>;
  /** Messages to the server; iterating yields its one answer. */
  clientStream(method: string, options?: GrpcCallOptions): GrpcStream;
  bidiStream(method: string, options?: GrpcCallOptions): GrpcStream;
  /** Closes the channel (the next connect opens a new connection). Calls still open are cancelled. */
  close(): void;
}

export interface VuGrpc {
  connect(options: GrpcConnectOptions): GrpcClient;
}

/** A feeder of the scenario's `data`: each call hands this iteration a row, as the feeder's mode says. */
export interface Feeder {
  /** The next row (by `mode`: unique across the fleet, sequential per VU, or random). */
  next(): Record<string, string>;
}

/** A trend: every value kept (merged across the fleet into exact percentiles), in its unit. */
export interface Trend {
  /** Records a value, a finite number ≥ 0 in the trend's unit. */
  add(value: number): void;
}

/** A counter: the sum of what is added, and its rate per second. */
export interface Counter {
  /** Adds `value` (a finite number ≥ 0; 1 when left out). */
  add(value?: number): void;
}

/** A rate: the share of true among the values added. */
export interface Rate {
  /** Adds a value: true (or any truthy value) passes, false fails. */
  add(value: boolean): void;
}

/** A gauge: the last value set across the fleet, with the lowest and highest. */
export interface Gauge {
  /** Sets the gauge to a finite number. */
  set(value: number): void;
}

/**
 * The script's own metrics, reported under `summary.metrics` and judged by thresholds
 * (`metrics.NAME.p95`). A name is `[a-z][a-z0-9_]*` (at most 64 characters), at most 200 per run,
 * and keeps one type: using it as another is an error of the script. Call these anywhere (each
 * call with a known name returns the same metric), or once at the top of the iteration.
 */
export interface VuMetrics {
  /** A trend; its unit says how values read: "ms" (the default), "bytes" or "none". */
  trend(name: string, options?: { unit?: "ms" | "bytes" | "none" }): Trend;
  counter(name: string): Counter;
  rate(name: string): Rate;
  gauge(name: string): Gauge;
}

/** One virtual user, as its script sees it (`SetupData`: what the script's `setup()` returns). */
export interface Vu<SetupData = unknown> {
  /** The VU's number, unique across workers and threads (from 1). */
  readonly number: number;
  /** The iteration this VU is running (from 0). */
  readonly iteration: number;
  /** The name of the worker running it. */
  readonly worker: string;
  /** Kept across this VU's iterations (a token after login, a cart id...). */
  readonly vars: Record<string, unknown>;
  /** What the script's exported `setup()` returned (run once on the master before the load), as JSON. */
  readonly setupData: SetupData;
  /** The scenario's feeders by name. */
  readonly data: Record<string, Feeder>;
  /** The run's env values (the names listed in the scenario's `env`). */
  readonly env: Record<string, string>;
  readonly http: VuHttp;
  readonly ws: VuWs;
  readonly grpc: VuGrpc;
  /** The VU's cookies: kept for its life, or emptied at each iteration with `http.cookies: { reset: iteration }`. */
  readonly cookies: VuCookies;
  /** The script's own metrics: trends, counters, rates and gauges. */
  readonly metrics: VuMetrics;
  /** Counts a check (into `summary.checks`) and returns `condition`, so it can guard what follows. */
  check(name: string, condition: boolean): boolean;
  /** Runs `fn` as a group: its time (first request sent to last answered) is recorded under `name`. */
  group<T>(name: string, fn: () => Promise<T> | T): Promise<T>;
  /** Waits `ms` milliseconds (think time; not part of any request's latency). */
  sleep(ms: number): Promise<void>;
}

/** A script module: its default export is one iteration of a VU. */
export type VuScript = (vu: Vu) => Promise<void> | void;

/**
 * An optional export `setup`: run once on the master, in a thread of its own, before the load
 * starts (at most 60 s); its JSON-serialisable result (at most 1 MiB) reaches every VU as
 * `vu.setupData`. A setup that throws refuses the run. Use `fetch` for any HTTP it needs.
 */
export type ScriptSetup<SetupData = unknown> = () => Promise<SetupData> | SetupData;

/** An optional export `teardown`: run once on the master after the run ended, with setup's result. */
export type ScriptTeardown<SetupData = unknown> = (setupData: SetupData) => Promise<void> | void;
