// k6's script API on Volley's VU, written beside a script by `volley convert k6`. The converted
// script keeps k6's calls (http.get, check, group, sleep, Trend...): each finds the VU running it
// through AsyncLocalStorage, so helper functions need no `vu` parameter. What k6 does synchronously
// is awaited here: the converter made every caller async.
import { AsyncLocalStorage } from "node:async_hooks";
import { createHash, createHmac, randomBytes as nodeRandomBytes } from "node:crypto";
import type { HttpResponse, RequestOptions, Vu } from "@volley/script";

const current = new AsyncLocalStorage<Vu>();

/** Runs k6's default function (or an `exec` one) as a Volley iteration. */
export function k6Iteration(fn: (data: unknown) => unknown): (vu: Vu) => Promise<void> {
  return async (vu) => {
    await current.run(vu, async () => {
      await fn(vu.setupData);
    });
  };
}

function vuOrNull(): Vu | undefined {
  return current.getStore();
}

function vu(what: string): Vu {
  const running = current.getStore();
  if (running === undefined)
    throw new Error(`${what} runs inside an iteration only (not in setup or at the top level)`);
  return running;
}

/** `__VU` and `__ITER` as k6 gives them (0 outside an iteration). */
export function __VU(): number {
  return vuOrNull()?.number ?? 0;
}
export function __ITER(): number {
  return vuOrNull()?.iteration ?? 0;
}

/**
 * `__ENV`: the run's env values (the scenario's `env` lists the names the script reads): the
 * VU's, or in setup() and teardown() their process's, which holds those values and no others.
 */
export const __ENV: Record<string, string | undefined> = new Proxy(
  {},
  {
    get: (_target, name) => {
      if (typeof name !== "string") return undefined;
      const running = vuOrNull();
      return running ? running.env[name] : process.env[name];
    },
  },
);

/** k6's options that change how requests are sent (set by the converted script from its options). */
export const k6Defaults = { maxRedirects: 10 };

type Params = {
  redirects?: number;
  jar?: unknown;
  headers?: Record<string, string>;
  tags?: Record<string, string>;
  timeout?: string | number;
  cookies?: Record<string, string | { value: string }>;
  responseType?: string;
};
type Body = string | Record<string, unknown> | ArrayBuffer | Uint8Array | null | undefined;

export interface K6File {
  data: string | Uint8Array;
  filename?: string;
  content_type?: string;
}

/** A k6 response over Volley's: canonical header names, `json(selector)`, k6's timing names. */
export class K6Response {
  readonly status: number;
  readonly body: string | null;
  readonly headers: Record<string, string>;
  readonly timings: Record<string, number>;
  readonly proto: string;
  readonly url: string;
  readonly error: string;
  readonly error_code: number;
  readonly request: { method: string; url: string };

  constructor(method: string, url: string, answer: HttpResponse | null, error?: string) {
    this.status = answer?.status ?? 0;
    this.body = answer?.body ?? null;
    this.headers = {};
    for (const [name, value] of Object.entries(answer?.headers ?? {}))
      this.headers[canonical(name)] = String(value);
    const t = answer?.timings;
    this.timings = {
      blocked: t?.blocked ?? 0,
      connecting: t?.connect ?? 0,
      tls_handshaking: t?.tls ?? 0,
      sending: t?.sending ?? 0,
      waiting: t?.waiting ?? 0,
      receiving: t?.receiving ?? 0,
      duration: t?.duration ?? 0,
    };
    // k6 spells HTTP/2 "HTTP/2.0".
    this.proto = answer?.proto === "HTTP/2" ? "HTTP/2.0" : (answer?.proto ?? "");
    this.url = url;
    this.error = error ?? "";
    this.error_code = error === undefined ? 0 : 1000;
    this.request = { method, url };
  }

  /** The body as JSON, or the value at a dotted path (`"items.0.id"`, `"a.#"` for a length). */
  json(selector?: string): unknown {
    if (this.body === null) throw new Error("the response has no body");
    let value: unknown = JSON.parse(this.body);
    if (selector === undefined) return value;
    for (const part of selector.split(".")) {
      if (part === "#" && Array.isArray(value)) return value.length;
      value =
        typeof value === "object" && value !== null ? (value as Record<string, unknown>)[part] : undefined;
    }
    return value;
  }

  html(): never {
    throw new Error("res.html() (k6's HTML parsing) is not available in Volley: read res.body");
  }

  get cookies(): Record<string, Array<{ name: string; value: string }>> {
    const jar: Record<string, Array<{ name: string; value: string }>> = {};
    for (const line of (this.headers["Set-Cookie"] ?? "").split("\n")) {
      const [pair] = line.split(";");
      const eq = pair.indexOf("=");
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      jar[name] = [...(jar[name] ?? []), { name, value: pair.slice(eq + 1).trim() }];
    }
    return jar;
  }
}

function canonical(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());
}

function durationMs(value: string | number): number {
  if (typeof value === "number") return value;
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value.trim());
  if (!match) throw new Error(`timeout "${value}" is not a duration`);
  const unit = (match[2] ?? "ms") as "ms" | "s" | "m" | "h";
  return Number(match[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[unit];
}

/** k6's (body, params) as Volley's request options. */
function options(body: Body, params: Params = {}, url?: string): RequestOptions {
  const headers: Record<string, string> = { ...(params.headers ?? {}) };
  const cookies: Record<string, string | { value: string }> = { ...(params.cookies ?? {}) };
  if (params.jar instanceof LocalCookieJar && url !== undefined) {
    for (const [name, values] of Object.entries(params.jar.cookiesForURL(url))) cookies[name] ??= values[0];
  }
  if (Object.keys(cookies).length > 0) {
    const pairs = Object.entries(cookies).map(([n, v]) => `${n}=${typeof v === "string" ? v : v.value}`);
    headers.Cookie = [headers.Cookie, ...pairs].filter(Boolean).join("; ");
  }
  const out: RequestOptions = { headers };
  if (params.tags?.name) out.name = params.tags.name;
  if (params.timeout !== undefined) out.timeout = durationMs(params.timeout);
  if (body === null || body === undefined) return out;
  if (typeof body === "string") out.body = body;
  else if (body instanceof Uint8Array) out.body = body;
  else if (body instanceof ArrayBuffer) out.body = new Uint8Array(body);
  else if (Object.values(body).some(isFile)) {
    const multipart: NonNullable<RequestOptions["multipart"]> = {};
    for (const [name, value] of Object.entries(body)) {
      multipart[name] = isFile(value)
        ? { content: value.data, contentType: value.content_type, filename: value.filename }
        : String(value);
    }
    out.multipart = multipart;
  } else {
    // k6 sends an object as a url-encoded form, a list as the field repeated.
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(body)) {
      for (const item of Array.isArray(v) ? v : [v]) form.append(k, String(item));
    }
    out.body = form.toString();
    if (!Object.keys(headers).some((h) => h.toLowerCase() === "content-type"))
      headers["Content-Type"] = "application/x-www-form-urlencoded";
  }
  return out;
}

function isFile(value: unknown): value is K6File {
  return typeof value === "object" && value !== null && (value as { __k6File?: boolean }).__k6File === true;
}

async function send(method: string, url: string, body: Body, params?: Params): Promise<K6Response> {
  const running = vuOrNull();
  if (running === undefined) return sendFromSetup(method, url, body, params);
  let hops = params?.redirects ?? k6Defaults.maxRedirects;
  let verb = method;
  let at = url;
  let request = options(body, params, url);
  try {
    let answer = await running.http.request(verb, at, request);
    // k6 follows redirects (each hop a request, as in Volley's statistics); a 303, 301 or 302
    // after a POST goes on as a GET without the body, as browsers and k6 do.
    while (hops-- > 0 && answer.status >= 300 && answer.status < 400 && answer.headers.location) {
      at = new URL(answer.headers.location, absolute(at)).href;
      const asGet =
        answer.status === 303 || ((answer.status === 301 || answer.status === 302) && verb === "POST");
      if (asGet) {
        verb = "GET";
        request = options(null, params, at);
      }
      answer = await running.http.request(verb, at, request);
    }
    if (params?.jar instanceof LocalCookieJar) params.jar.keep(at, answer.headers["set-cookie"]);
    return new K6Response(verb, at, answer);
  } catch (error) {
    // k6 answers a request that got none with status 0; Volley has counted it as failed already.
    return new K6Response(verb, at, null, (error as Error).message);
  }
}

/** A path on the target made absolute, to resolve a relative Location against. */
function absolute(url: string): string {
  return /^https?:\/\//.test(url) ? url : `http://target${url}`;
}

/** setup() and teardown() have no VU: they send with fetch (not part of the run's statistics). */
async function sendFromSetup(method: string, url: string, body: Body, params?: Params): Promise<K6Response> {
  const request = options(body, params);
  const headers = new Headers(request.headers);
  let payload: string | Uint8Array | undefined = request.body;
  if (request.form) {
    payload = new URLSearchParams(request.form).toString();
    headers.set("content-type", "application/x-www-form-urlencoded");
  }
  try {
    const answer = await fetch(url, { method, headers, body: payload });
    const text = await answer.text();
    const head: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      head[name] = value;
    });
    const timings = { blocked: 0, connect: 0, tls: 0, sending: 0, waiting: 0, receiving: 0, duration: 0 };
    return new K6Response(method, url, {
      status: answer.status,
      headers: head,
      body: text,
      timings,
      proto: "HTTP/1.1",
      json: <T>() => JSON.parse(text) as T,
    });
  } catch (error) {
    return new K6Response(method, url, null, (error as Error).message);
  }
}

type BatchItem =
  | string
  | [string, string, Body?, Params?]
  | { method?: string; url: string; body?: Body; params?: Params };

/** k6/http. */
export const http = {
  get: (url: string, params?: Params) => send("GET", url, null, params),
  head: (url: string, params?: Params) => send("HEAD", url, null, params),
  options: (url: string, body?: Body, params?: Params) => send("OPTIONS", url, body, params),
  post: (url: string, body?: Body, params?: Params) => send("POST", url, body, params),
  put: (url: string, body?: Body, params?: Params) => send("PUT", url, body, params),
  patch: (url: string, body?: Body, params?: Params) => send("PATCH", url, body, params),
  del: (url: string, body?: Body, params?: Params) => send("DELETE", url, body, params),
  request: (method: string, url: string, body?: Body, params?: Params) =>
    send(method.toUpperCase(), url, body, params),
  /** The requests at once, as k6's batch: a list (answers in order) or an object (answers by key). */
  async batch(requests: BatchItem[] | Record<string, BatchItem>): Promise<unknown> {
    const one = (item: BatchItem) => {
      if (typeof item === "string") return send("GET", item, null);
      if (Array.isArray(item)) return send(item[0].toUpperCase(), item[1], item[2], item[3]);
      return send((item.method ?? "GET").toUpperCase(), item.url, item.body, item.params);
    };
    if (Array.isArray(requests)) return Promise.all(requests.map(one));
    const keys = Object.keys(requests);
    const answers = await Promise.all(keys.map((k) => one(requests[k])));
    return Object.fromEntries(keys.map((k, i) => [k, answers[i]]));
  },
  file(data: string | Uint8Array, filename?: string, contentType?: string): K6File {
    return {
      data,
      filename,
      content_type: contentType ?? "application/octet-stream",
      __k6File: true,
    } as K6File;
  },
  /** A jar of the script's own (`new http.CookieJar()`), sent with the requests given it as `jar`. */
  get CookieJar() {
    return LocalCookieJar;
  },
  /** The VU's jar, as k6's `http.cookieJar()`: a cookie for another domain is not put in it. */
  cookieJar() {
    const cookies = vu("http.cookieJar()").cookies;
    return {
      cookiesForURL: (url: string) =>
        Object.fromEntries(Object.entries(cookies.get(url)).map(([name, value]) => [name, [value]])),
      set: (url: string, name: string, value: string, attributes?: { domain?: string }) => {
        if (domainMatches(url, attributes?.domain)) cookies.set(url, name, value);
      },
      clear: () => cookies.clear(),
    };
  },
};

function hostOf(url: string): string {
  return /^https?:\/\//.test(url) ? new URL(url).hostname : "";
}

/** Whether a cookie for `domain` (none: the URL's own host) is sent to `url`. */
function domainMatches(url: string, domain?: string): boolean {
  if (!domain) return true;
  const host = hostOf(url);
  const bare = domain.replace(/^\./, "");
  return host === "" || host === bare || host.endsWith(`.${bare}`);
}

/** k6's local cookie jar: the script's own, apart from the VU's. */
class LocalCookieJar {
  private readonly cookies: Array<{ name: string; value: string; host: string; domain?: string }> = [];

  set(url: string, name: string, value: string, attributes?: { domain?: string }): void {
    const host = hostOf(url);
    const at = this.cookies.findIndex((c) => c.name === name && c.host === host);
    if (at >= 0) this.cookies.splice(at, 1);
    this.cookies.push({ name, value, host, domain: attributes?.domain });
  }

  cookiesForURL(url: string): Record<string, string[]> {
    const out: Record<string, string[]> = {};
    for (const c of this.cookies) {
      if (c.domain ? domainMatches(url, c.domain) : c.host === hostOf(url)) out[c.name] = [c.value];
    }
    return out;
  }

  clear(): void {
    this.cookies.length = 0;
  }

  /** What a response set (Volley's VU jar keeps it too). */
  keep(url: string, setCookie: string | undefined): void {
    for (const line of (setCookie ?? "").split("\n")) {
      const pair = line.split(";")[0];
      const eq = pair.indexOf("=");
      if (eq > 0) this.set(url, pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
  }
}

/** k6's check: each condition (a function of `value`, or a value) counted under its name. */
export function check(
  value: unknown,
  conditions: Record<string, unknown>,
  _tags?: Record<string, string>,
): boolean {
  // In setup() there is no VU: the conditions are evaluated, not counted.
  const running = vuOrNull();
  let all = true;
  for (const [name, condition] of Object.entries(conditions)) {
    const passed = Boolean(typeof condition === "function" ? condition(value) : condition);
    running?.check(name, passed);
    all &&= passed;
  }
  return all;
}

export async function group<T>(name: string, fn: () => T | Promise<T>): Promise<T> {
  const running = vuOrNull();
  return running ? running.group(name, fn) : fn();
}

export function sleep(seconds: number): Promise<void> {
  const running = vuOrNull();
  return running ? running.sleep(seconds * 1000) : new Promise((done) => setTimeout(done, seconds * 1000));
}

export function fail(message?: string): never {
  throw new Error(message ?? "fail() called");
}

/** k6/metrics: the same names on vu.metrics (a name was made `[a-z][a-z0-9_]*` by the converter). */
export class Trend {
  constructor(
    readonly name: string,
    private readonly isTime = false,
  ) {}
  add(value: number, _tags?: Record<string, string>): void {
    vu("Trend.add")
      .metrics.trend(this.name, { unit: this.isTime ? "ms" : "none" })
      .add(value);
  }
}
export class Counter {
  constructor(readonly name: string) {}
  add(value = 1, _tags?: Record<string, string>): void {
    vu("Counter.add").metrics.counter(this.name).add(value);
  }
}
export class Rate {
  constructor(readonly name: string) {}
  add(value: unknown, _tags?: Record<string, string>): void {
    vu("Rate.add").metrics.rate(this.name).add(Boolean(value));
  }
}
export class Gauge {
  constructor(readonly name: string) {}
  add(value: number, _tags?: Record<string, string>): void {
    vu("Gauge.add").metrics.gauge(this.name).set(value);
  }
}

/** k6/data's SharedArray: built once per engine thread (k6 builds it once per test). */
export class SharedArray<T> extends Array<T> {
  constructor(_name: string, make: () => T[]) {
    super();
    this.push(...make());
  }
  static get [Symbol.species]() {
    return Array;
  }
}

function encode(bytes: Buffer, encoding?: string): string {
  if (encoding === "base64") return bytes.toString("base64");
  if (encoding === "binary") return bytes.toString("latin1");
  return bytes.toString("hex");
}

/** k6/crypto's hasher objects: update() as often as needed, digest() in an encoding. */
function hasher(make: () => ReturnType<typeof createHash> | ReturnType<typeof createHmac>) {
  const hash = make();
  let digest: Buffer | undefined;
  return {
    update(data: string) {
      hash.update(data);
    },
    digest(out?: string) {
      digest ??= hash.digest();
      return encode(digest, out);
    },
  };
}

/** k6/crypto: hashes and HMACs (output "hex", "base64" or "binary"). */
export const crypto = {
  sha384: (data: string, out?: string) => encode(createHash("sha384").update(data).digest(), out),
  createHash: (algorithm: string) => hasher(() => createHash(algorithm)),
  createHMAC: (algorithm: string, key: string) => hasher(() => createHmac(algorithm, key)),
  md5: (data: string, out?: string) => encode(createHash("md5").update(data).digest(), out),
  sha1: (data: string, out?: string) => encode(createHash("sha1").update(data).digest(), out),
  sha256: (data: string, out?: string) => encode(createHash("sha256").update(data).digest(), out),
  sha512: (data: string, out?: string) => encode(createHash("sha512").update(data).digest(), out),
  hmac: (algorithm: string, key: string, data: string, out?: string) =>
    encode(createHmac(algorithm, key).update(data).digest(), out),
  randomBytes: (size: number) => new Uint8Array(nodeRandomBytes(size)).buffer,
};

/** k6/encoding: base64 in its std, rawstd, url and rawurl forms. */
export const encoding = {
  b64encode(input: string | ArrayBuffer, kind?: string): string {
    const bytes = typeof input === "string" ? Buffer.from(input) : Buffer.from(new Uint8Array(input));
    const url = kind === "url" || kind === "rawurl";
    const text = bytes.toString(url ? "base64url" : "base64");
    if (kind === "rawstd" || kind === "rawurl") return text.replace(/=+$/, "");
    return url ? text + "=".repeat((4 - (text.length % 4)) % 4) : text;
  },
  b64decode(input: string, kind?: string | null, format?: string): string | ArrayBuffer {
    const url = kind === "url" || kind === "rawurl";
    const bytes = Buffer.from(input, url ? "base64url" : "base64");
    return format === "s" ? bytes.toString("utf8") : new Uint8Array(bytes).buffer;
  },
};

/** `list.forEach(fn)` with an async `fn`, one after another as k6 ran it. */
export async function k6Each<T>(list: Iterable<T>, fn: (item: T, index: number) => unknown): Promise<void> {
  let index = 0;
  for (const item of list) await fn(item, index++);
}

type WsHandler = (...args: unknown[]) => unknown;

/**
 * k6/ws over vu.ws: `ws.connect(url, params, (socket) => {...})` opens the socket (the handshake is
 * a request of method WS), runs the callback, dispatches `open`, each `message` (and
 * `binaryMessage`), then `close`, and resolves when the socket closes (k6's call returns then too).
 * `ping()` sends nothing: Volley's sockets have no ping, so `pong` never fires.
 */
export const ws = {
  async connect(url: string, params?: { tags?: Record<string, string> } | WsHandler, callback?: WsHandler) {
    const run = (typeof params === "function" ? params : callback) as WsHandler | undefined;
    const options = typeof params === "object" ? params : undefined;
    const running = vu("ws.connect");
    const handlers: Record<string, WsHandler[]> = {};
    const emit = async (event: string, ...args: unknown[]) => {
      for (const handler of handlers[event] ?? []) await handler(...args);
    };
    const timers = new Set<ReturnType<typeof setTimeout>>();
    let closing = false;
    let socket: Awaited<ReturnType<Vu["ws"]["connect"]>>;
    try {
      socket = await running.ws.connect(url, { name: options?.tags?.name });
    } catch (error) {
      const message = (error as Error).message;
      await emit("error", { error: () => message });
      return { status: 0, url, error: message };
    }
    const k6Socket = {
      on(event: string, handler: WsHandler) {
        handlers[event] = [...(handlers[event] ?? []), handler];
      },
      send(data: unknown) {
        if (!closing)
          socket.send(typeof data === "string" || data instanceof Uint8Array ? data : String(data));
      },
      ping() {},
      close() {
        closing = true;
      },
      setTimeout(fn: WsHandler, ms: number) {
        const timer = setTimeout(() => {
          timers.delete(timer);
          void fn();
        }, ms);
        timers.add(timer);
      },
      setInterval(fn: WsHandler, ms: number) {
        timers.add(setInterval(() => void fn(), ms));
      },
    };
    await run?.(k6Socket);
    await emit("open");
    // Messages are read until the script closes the socket or the server does; a quiet spell
    // (next() timing out) is only waited through.
    while (!closing) {
      const arrival = await socket.next({ timeout: 100 }).then(
        (data) => ({ data }),
        (error: { kind?: string; message?: string }) => ({ error }),
      );
      if ("data" in arrival) {
        if (typeof arrival.data === "string") await emit("message", arrival.data);
        else await emit("binaryMessage", arrival.data.buffer);
      } else if (arrival.error.kind !== "timeout") {
        if (arrival.error.kind !== "closed")
          await emit("error", { error: () => arrival.error.message ?? "" });
        break;
      }
    }
    for (const timer of timers) clearTimeout(timer);
    await socket.close();
    await emit("close");
    return { status: 101, url };
  },
};
