// k6/http over vu.http: k6's arguments, response and redirects.
import type { RequestOptions } from "@volley/script";
import { domainMatches, LocalCookieJar } from "./cookies.js";
import { K6Response } from "./response.js";
import { vu, vuOrNull } from "./vu.js";

/** k6's options that change how requests are sent (set by the converted script from its options). */
export const k6Defaults = { maxRedirects: 10, discardResponseBodies: false };

/**
 * Whether a request keeps its answer's body, as k6 decides: `responseType: "none"` drops it,
 * `"text"` or `"binary"` keeps it, else `discardResponseBodies` says.
 */
function discards(params: Params | undefined): boolean {
  const type = params?.responseType;
  return type === undefined ? k6Defaults.discardResponseBodies : type === "none";
}

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
  if (discards(params)) out.discardBody = true;
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
    return new K6Response(verb, at, answer, undefined, request.discardBody === true);
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
    return new K6Response(
      method,
      url,
      {
        status: answer.status,
        headers: head,
        body: text,
        timings,
        proto: "HTTP/1.1",
        json: <T>() => JSON.parse(text) as T,
      },
      undefined,
      request.discardBody === true,
    );
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
