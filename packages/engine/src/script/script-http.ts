import { randomUUID } from "node:crypto";
import { statusExpectationSchema } from "@volley/protocol";
import type { HttpResponse, RequestOptions, ResponseTimings } from "@volley/script";
import { basicAuthorization } from "../http/basic-auth.js";
import type { CookieJar } from "../http/cookie-jar.js";
import { DecodedBodyTooLargeError, decodeBody } from "../vu/http-session.js";
import type { VuOrigin } from "../vu/vu-context.js";
import { bundleCallSite } from "./call-site.js";
import type { ScriptRecorders } from "./script-recorders.js";
import { type RawAnswer, RequestFailedError, ScriptRequest } from "./script-request.js";

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
  /** Accept any TLS certificate (http.insecureTls): for wss:// sockets too. */
  insecureTls: boolean;
}

/** One VU's side of a request: its cookies, and the request it may have to abort. */
export interface ScriptRequester {
  cookies: CookieJar | null;
  /** performance.now() the first request of an arrival-rate iteration counts from; -1 otherwise. */
  takeScheduledStart(): number;
  /**
   * A request of the running iteration starts: the VU sends it when one of its connection slots
   * (http.maxConnectionsPerVu) is free. `untrack` hears of its end (answered, failed or aborted).
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

/** Sends one scripted request and gives the script its answer; every call is one recorded request. */
export function scriptRequest(
  settings: ScriptHttpSettings,
  vu: ScriptRequester,
  method: string,
  url: string,
  options: RequestOptions = NO_OPTIONS,
): Promise<HttpResponse> {
  vu.assertRunning();
  const verb = METHODS.has(method) ? method : String(method).toUpperCase();
  if (!METHODS.has(verb)) throw new TypeError(`vu.http: unknown method "${method}"`);
  const { origin, path, host, https, authorization } = locate(settings, url);
  const query = path.indexOf("?");
  const name = options.name ?? `${verb} ${query < 0 ? path : path.slice(0, query)}`;
  const recorder = settings.recorders.request(name, verb);
  const expected =
    options.expect?.status === undefined ? null : statusExpectationSchema.parse(options.expect.status);
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
  // No headers of its own: the shared frozen list lets the client reuse the request's bytes.
  const headers = built.length === 0 ? NO_HEADERS : built;
  const timeoutMs = options.timeout ?? settings.timeoutMs;
  // An estimate for undici's client; Volley's own reports what it wrote (answer.bytesOut).
  let estimatedBytesOut = verb.length + path.length + 12 + (body === null ? 0 : body.length);
  for (let i = 0; i < headers.length; i++) estimatedBytesOut += headers[i].length + 2;
  const scheduled = vu.takeScheduledStart();
  const answer = new Promise<HttpResponse>((resolve, reject) => {
    const request: ScriptRequest = new ScriptRequest(
      settings.originOf(origin),
      {
        path,
        method: verb,
        headers: headers as string[],
        body,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      },
      recorder,
      timeoutMs,
      settings.maxBodyBytes,
      estimatedBytesOut,
      scheduled,
      (answer) => {
        if (vu.cookies !== null && answer.setCookies !== null) {
          for (const line of answer.setCookies) vu.cookies.store(line, host, path);
        }
        const response = new ScriptResponse(
          answer,
          settings.compression ? answer.encoding : null,
          settings.maxBodyBytes,
        );
        const failure = response.problem(options.expect?.body);
        const { status, bytesIn, bytesOut, latencyUs } = answer;
        const statusOk = expected
          ? expected.some(([low, high]) => status >= low && status <= high)
          : status < 400;
        if (!statusOk)
          recorder.record(latencyUs, status, bytesIn, bytesOut, "status", `unexpected status ${status}`);
        else if (failure !== null) recorder.record(latencyUs, status, bytesIn, bytesOut, "expect", failure);
        else recorder.record(latencyUs, status, bytesIn, bytesOut);
        resolve(response);
        // Last: the end of the iteration's last request may end the slice, which sends its
        // final statistics at once; this request's record must be in them.
        vu.untrack(request);
      },
      (error) => {
        vu.untrack(request);
        reject(error);
      },
    );
    if (vu.locatesCalls !== null) request.callSite = bundleCallSite(vu.locatesCalls);
    vu.send(request);
  });
  // A script that does not await the request (k6's http is synchronous: the first thing a k6 user
  // writes) must not turn its failure into an unhandled rejection that ends the thread; one that
  // awaits still gets it.
  answer.catch(ignore);
  return answer;
}

function ignore(): void {}

const NO_HEADERS: readonly string[] = Object.freeze([]);

/**
 * The answer as the script sees it. Headers and text are made when the script reads them: most
 * scripts read the status only, and a million responses should not each build a header map.
 */
class ScriptResponse implements HttpResponse {
  readonly status: number;
  readonly timings: ResponseTimings;
  private text: string | null = null;
  private headerMap: Record<string, string> | null = null;
  private tooLarge: boolean;

  constructor(
    private readonly answer: RawAnswer,
    private readonly encoding: string | null,
    private readonly maxBodyBytes: number,
  ) {
    this.status = answer.status;
    this.tooLarge = answer.body === null;
    this.timings = { blocked: answer.blockedMs, duration: answer.latencyUs / 1000 };
  }

  get headers(): Record<string, string> {
    this.headerMap ??= readHeaders(this.answer.rawHeaders);
    return this.headerMap;
  }

  get body(): string {
    if (this.text === null) {
      this.text = this.tooLarge
        ? ""
        : decodeBody(this.answer.body as Buffer, this.encoding, this.maxBodyBytes);
    }
    return this.text;
  }

  json<T = unknown>(): T {
    return JSON.parse(this.body) as T;
  }

  /** What makes it fail besides its status: too large, not decodable, or lacking `expectBody`. */
  problem(expectBody: string | undefined): string | null {
    if (this.tooLarge) return `response body is larger than http.maxBodyBytes (${this.maxBodyBytes} bytes)`;
    if (this.encoding === null && expectBody === undefined) return null;
    let text: string;
    try {
      text = this.body;
    } catch (error) {
      this.text = "";
      if (error instanceof DecodedBodyTooLargeError) return error.message;
      return `cannot decode the body: ${(error as Error).message}`;
    }
    return expectBody !== undefined && !text.includes(expectBody)
      ? `body does not contain "${expectBody}"`
      : null;
  }
}

const NO_OPTIONS: RequestOptions = {};

/** The origin, path and host a script's `url` (a path on the target, or absolute) goes to. */
export function locate(settings: ScriptHttpSettings, url: string) {
  if (url.startsWith("/")) {
    const target = new URL(settings.target.origin);
    return {
      origin: settings.target.origin,
      path: settings.target.prefix + url,
      host: target.host,
      https: target.protocol === "https:",
      authorization: settings.target.authorization,
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

/** Lower-case names; repeats joined with ", " (set-cookie with "\n", as its values hold commas). */
function readHeaders(raw: Buffer[] | string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i].toString().toLowerCase();
    const value = raw[i + 1].toString();
    const before = headers[name];
    headers[name] = before === undefined ? value : `${before}${name === "set-cookie" ? "\n" : ", "}${value}`;
  }
  return headers;
}

export { RequestFailedError };
