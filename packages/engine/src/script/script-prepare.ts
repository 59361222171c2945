import { randomUUID } from "node:crypto";
import type { RequestOptions } from "@volley/script";
import type { RequestRecorder } from "@volley/stats";
import type { Dispatcher } from "undici";
import type { GrpcChannels } from "../grpc/grpc-channels.js";
import { basicAuthorization } from "../http/basic-auth.js";
import type { CookieJar } from "../http/cookie-jar.js";
import type { TracedDispatchOptions } from "../http/request-head.js";
import { type TraceIds, traceIdOf } from "../http/trace-ids.js";
import type { ConnectionSettings } from "../network/connection-settings.js";
import type { ProtoPackages } from "../scenario/compiled-grpc.js";
import type { VuOrigin } from "../vu/vu-context.js";
import { MAX_SCRIPT_NAMES, type ScriptRecorders } from "./script-recorders.js";
import type { ScriptRequest } from "./script-request.js";

// A scripted request before it is sent: where it goes, under which name, and its bytes. Shared by
// `vu.http.*` (script-http.ts) and `vu.http.stream` (script-stream.ts).

/** What every scripted VU of a thread shares for HTTP. */
export interface ScriptHttpSettings {
  /** The scenario's target: origin, host, scheme and the path prefix of `target` (e.g. "/api"). */
  target: { origin: string; prefix: string; host: string; https: boolean; authorization: string | null };
  /** The pool and gate of an origin, made on first use (the target's is the engine's own). */
  originOf: (origin: string) => VuOrigin;
  recorders: ScriptRecorders;
  timeoutMs: number;
  maxBodyBytes: number;
  compression: boolean;
  /** How sockets connect (hosts, DNS, TLS): for wss:// sockets too. */
  network: ConnectionSettings;
  /** The thread's `traceparent` values when the scenario has `http.tracing`, else null. */
  tracing: TraceIds | null;
  /** The part's requests made with a URL and no options, prepared once. */
  plain: PlainRequests;
  /** What its requests go over (`http.version`), for `res.proto`. */
  proto: "HTTP/1.1" | "HTTP/2";
  /** The thread's gRPC channels, the protos the run was sent, and the scenario's target when it is grpc(s)://. */
  grpc: GrpcChannels;
  protos: ProtoPackages;
  grpcTarget: string | null;
}

/** One VU's side of a request: its cookies, and the request it may have to abort. */
export interface ScriptRequester {
  cookies: CookieJar | null;
  /** performance.now() the first request of an arrival-rate iteration counts from; -1 otherwise. */
  takeScheduledStart(): number;
  /**
   * A request of the running iteration starts (called in the call that made it): the VU sends it
   * at once or when one of its connection slots (http.maxConnectionsPerVu) is free. `untrack`
   * hears of its end (answered, failed or aborted).
   */
  send(request: ScriptRequest): void;
  untrack(request: ScriptRequest): void;
  /**
   * The frame root of the script whose requests keep where they were made (it was seen not
   * awaiting one), or null.
   */
  readonly locatesCalls: string | null;
  /** Throws when the iteration was aborted (no new request may start). */
  assertRunning(): void;
}

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** A scripted request ready to send: where, under which name, and what goes on the wire. */
export interface PreparedRequest {
  /** The pool and gate of its origin (settings.originOf, asked once here). */
  origin: VuOrigin;
  host: string;
  path: string;
  recorder: RequestRecorder;
  dispatch: TracedDispatchOptions;
  timeoutMs: number;
  /** An estimate for undici's client; Volley's own reports what it wrote. */
  estimatedBytesOut: number;
  /** The trace id it is sent with (`http.tracing`). */
  traceId: string | undefined;
}

/**
 * A script's request as it will be sent: the URL placed, the name (`METHOD path`, query left out)
 * and its recorder, the body encoded, the headers (compression, authorization, cookies) added.
 */
export function prepareScriptRequest(
  settings: ScriptHttpSettings,
  vu: ScriptRequester,
  method: string,
  url: string,
  options: RequestOptions,
): PreparedRequest {
  vu.assertRunning();
  const verb = METHODS.has(method) ? method : String(method).toUpperCase();
  if (!METHODS.has(verb)) throw new TypeError(`vu.http: unknown method "${method}"`);
  const { origin, path, host, https, authorization } = locate(settings, url);
  let recorder: RequestRecorder;
  if (options.name !== undefined) recorder = settings.recorders.request(options.name, verb);
  else {
    const query = path.indexOf("?");
    recorder = settings.recorders.requestAt(verb, query < 0 ? path : path.slice(0, query));
  }
  const { headers: built, body } = encodeBody(options);
  if (settings.compression && !hasHeader(built, "accept-encoding"))
    built.push("accept-encoding", "gzip, br, deflate");
  if (options.headers !== undefined) {
    for (const [key, value] of Object.entries(options.headers)) built.push(key, String(value));
  }
  if (authorization !== null && !hasHeader(built, "authorization"))
    built.push("authorization", authorization);
  const cookie = vu.cookies?.header(host, path, https) ?? null;
  if (cookie !== null) built.push("cookie", cookie);
  const traceparent = settings.tracing?.next();
  if (traceparent !== undefined && settings.tracing?.inHeaders) built.push("traceparent", traceparent);
  // No headers of its own: the shared frozen list lets the client reuse the request's bytes.
  const headers = built.length === 0 ? NO_HEADERS : built;
  const timeoutMs = options.timeout ?? settings.timeoutMs;
  let estimatedBytesOut = verb.length + path.length + 12 + (body === null ? 0 : body.length);
  for (let i = 0; i < headers.length; i++) estimatedBytesOut += headers[i].length + 2;
  return {
    origin: settings.originOf(origin),
    host,
    path,
    recorder,
    dispatch: {
      path,
      method: verb as Dispatcher.HttpMethod,
      headers: headers as string[],
      body,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      traceparent: settings.tracing?.inHeaders ? undefined : traceparent,
    } satisfies TracedDispatchOptions,
    timeoutMs,
    estimatedBytesOut,
    traceId: traceparent === undefined ? undefined : traceIdOf(traceparent),
  };
}

const NO_HEADERS: readonly string[] = Object.freeze([]);

/** The options of a call that gave none (`vu.http.get(url)`). */
export const NO_OPTIONS: RequestOptions = Object.freeze({});

/**
 * The name of options that carry a name and nothing else (`{ name: "login" }`, the common case;
 * `discardBody` beside it changes nothing that is sent),
 * `UNNAMED` for options that carry nothing; null when they carry more (headers, a body, ...).
 */
export function plainName(options: RequestOptions): string | typeof UNNAMED | null {
  if (options === NO_OPTIONS) return UNNAMED;
  let name: string | typeof UNNAMED = UNNAMED;
  for (const key in options) {
    const value = (options as Record<string, unknown>)[key];
    if (value === undefined) continue;
    // Whether the answer's body is kept changes nothing of what is sent.
    if (key === "discardBody" && typeof value === "boolean") continue;
    if (key !== "name" || typeof value !== "string") return null;
    name = value;
  }
  return name;
}

/** The key of requests made without a name. */
export const UNNAMED = Symbol("unnamed");

/**
 * The requests of a scripted part made with a URL and at most a name, prepared once each: a
 * script asks for the same few URLs again and again, and such a request has nothing that changes
 * from call to call when it carries no headers at all (no cookie, credentials, compression or
 * trace id). The prepared request is then shared by every call (nothing downstream writes to it).
 * A call whose VU holds any cookie is prepared afresh (its jar may have one for the URL). At most
 * MAX_SCRIPT_NAMES requests are kept: a script that makes a URL per call stops adding to it.
 */
export class PlainRequests {
  /** By name, then method, then URL. */
  private readonly byName = new Map<string | typeof UNNAMED, Map<string, Map<string, PreparedRequest>>>();
  private size = 0;
  /**
   * The last one handed out, and what it was asked by: a script's loop asks for the same call
   * again and again, and three comparisons (the same strings, mostly the same objects) stand in
   * for three map lookups.
   */
  private last: PreparedRequest | null = null;
  private lastName: string | typeof UNNAMED = UNNAMED;
  private lastMethod = "";
  private lastUrl = "";

  prepare(
    settings: ScriptHttpSettings,
    vu: ScriptRequester,
    method: string,
    url: string,
    name: string | typeof UNNAMED,
  ): PreparedRequest {
    // A VU holding cookies is prepared afresh: its jar is asked once, there.
    if (vu.cookies === null || vu.cookies.size === 0) {
      const last = this.last;
      if (last !== null && url === this.lastUrl && name === this.lastName && method === this.lastMethod) {
        vu.assertRunning();
        return last;
      }
      const known = this.byName.get(name)?.get(method)?.get(url);
      if (known !== undefined) {
        vu.assertRunning();
        this.remember(known, name, method, url);
        return known;
      }
    }
    const options = name === UNNAMED ? NO_OPTIONS : { name };
    const prepared = prepareScriptRequest(settings, vu, method, url, options);
    if (prepared.dispatch.headers === NO_HEADERS && prepared.traceId === undefined)
      this.keep(name, method, url, prepared);
    return prepared;
  }

  private remember(
    prepared: PreparedRequest,
    name: string | typeof UNNAMED,
    method: string,
    url: string,
  ): void {
    this.last = prepared;
    this.lastName = name;
    this.lastMethod = method;
    this.lastUrl = url;
  }

  private keep(name: string | typeof UNNAMED, method: string, url: string, prepared: PreparedRequest): void {
    if (this.size >= MAX_SCRIPT_NAMES) return;
    this.remember(prepared, name, method, url);
    let methods = this.byName.get(name);
    if (methods === undefined) {
      methods = new Map();
      this.byName.set(name, methods);
    }
    let urls = methods.get(method);
    if (urls === undefined) {
      urls = new Map();
      methods.set(method, urls);
    }
    if (urls.has(url)) return;
    urls.set(url, prepared);
    this.size++;
  }
}

/** The origin, path and host a script's `url` (a path on the target, or absolute) goes to. */
export function locate(settings: ScriptHttpSettings, url: string) {
  if (url.startsWith("/")) {
    const target = settings.target;
    return {
      origin: target.origin,
      path: target.prefix + url,
      host: target.host,
      https: target.https,
      authorization: target.authorization,
    };
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`vu.http: "${url}" is neither a path ("/...") nor an absolute URL`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new TypeError(`vu.http: "${url}" must use http:// or https://`);
  }
  return {
    origin: parsed.origin,
    path: parsed.pathname + parsed.search,
    host: parsed.host,
    https: parsed.protocol === "https:",
    // Credentials in the URL travel as Basic authentication (fetch would refuse the URL).
    authorization: basicAuthorization(parsed),
  };
}

function encodeBody(options: RequestOptions): { headers: string[]; body: string | Buffer | null } {
  if (
    options.body === undefined &&
    options.json === undefined &&
    options.form === undefined &&
    options.multipart === undefined
  ) {
    return { headers: [], body: null };
  }
  const given = ["body", "json", "form", "multipart"].filter(
    (k) => options[k as keyof RequestOptions] !== undefined,
  );
  if (given.length > 1)
    throw new TypeError(`vu.http: a request has one body: ${given.join(" and ")} are both set`);
  if (options.json !== undefined)
    return { headers: ["content-type", "application/json"], body: JSON.stringify(options.json) };
  if (options.form !== undefined) {
    return {
      headers: ["content-type", "application/x-www-form-urlencoded"],
      body: new URLSearchParams(options.form).toString(),
    };
  }
  if (options.multipart !== undefined) return multipartBody(options.multipart);
  if (options.body === undefined) return { headers: [], body: null };
  return { headers: [], body: typeof options.body === "string" ? options.body : Buffer.from(options.body) };
}

function multipartBody(fields: NonNullable<RequestOptions["multipart"]>): {
  headers: string[];
  body: Buffer;
} {
  const boundary = `volley-${randomUUID()}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    const safe = name.replace(/["\r\n]/g, "_");
    if (typeof value === "string") {
      parts.push(
        Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="${safe}"\r\n\r\n${value}\r\n`),
      );
    } else {
      const filename = (value.filename ?? safe).replace(/["\r\n]/g, "_");
      const type = value.contentType ?? "application/octet-stream";
      parts.push(
        Buffer.from(
          `--${boundary}\r\ncontent-disposition: form-data; name="${safe}"; filename="${filename}"\r\ncontent-type: ${type}\r\n\r\n`,
        ),
        typeof value.content === "string" ? Buffer.from(value.content) : Buffer.from(value.content),
        Buffer.from("\r\n"),
      );
    }
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return {
    headers: ["content-type", `multipart/form-data; boundary=${boundary}`],
    body: Buffer.concat(parts),
  };
}

function hasHeader(headers: string[], name: string): boolean {
  for (let i = 0; i < headers.length; i += 2) if (headers[i].toLowerCase() === name) return true;
  return false;
}
