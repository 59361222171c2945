import {
  type CaptureSource,
  type HttpMethod,
  parseCapture,
  type RequestConfig,
  requestName,
  type Scenario,
  type StatusRange,
} from "@volley/protocol";
import { basicAuthorization } from "../http/basic-auth.js";
import type { StreamSpec } from "../http/stream-reader.js";
import { type CompiledGrpc, compileGrpc, ProtoPackages } from "./compiled-grpc.js";
import { CompiledMultipart } from "./compiled-multipart.js";
import { CompiledTemplate, type TemplateEnvironment } from "./compiled-template.js";
import { type CompiledWs, compileWs } from "./compiled-ws.js";

export interface CompiledCapture {
  variable: string;
  source: CaptureSource;
  regex?: RegExp;
}

/** A request of the scenario prepared for the hot path: templates parsed, fixed parts serialized once. */
export interface CompiledRequest {
  index: number;
  /** Index of its origin in the thread's origins (the target, or a `url`'s host). */
  originIndex: number;
  name: string;
  method: HttpMethod;
  path: CompiledTemplate;
  headerNames: string[];
  headerValues: CompiledTemplate[];
  /** Header list ready for undici when no header value has a template. */
  staticHeaders: readonly string[] | null;
  body: CompiledTemplate | null;
  /** A multipart body (instead of `body`). */
  multipart: CompiledMultipart | null;
  /** Body bytes when the body has no template. */
  staticBody: Buffer | null;
  timeoutMs: number;
  captures: CompiledCapture[];
  /** Allowed status ranges; null means "anything below 400". */
  expectStatus: StatusRange[] | null;
  expectBody: string | null;
  /** The response body is kept only when a capture or expectation reads it. */
  needsBody: boolean;
  /** Bytes of the request line and fixed headers, for the bytes-out count. */
  fixedBytesOut: number;
  /** A `ws:` request: its socket and steps (the HTTP fields above are unused); else null. */
  ws: CompiledWs | null;
  /** A streamed response: how its events are read; else null. */
  stream: StreamSpec | null;
  /** A `grpc:` request: its method and message (the HTTP fields above are unused, but captures); else null. */
  grpc: CompiledGrpc | null;
}

/** An origin the thread keeps a connection pool for. */
export interface RequestOrigin {
  origin: string;
  host: string;
  https: boolean;
}

/** The scenario's origins: the target first, then each `url`'s, in order of appearance. */
export function requestOrigins(scenario: Scenario): RequestOrigin[] {
  const origins: RequestOrigin[] = [];
  const add = (url: URL) => {
    if (!origins.some((o) => o.origin === url.origin)) {
      origins.push({ origin: url.origin, host: url.host, https: url.protocol === "https:" });
    }
  };
  // A gRPC target has no HTTP requests: its pool (made lazily) is never used.
  add(new URL(httpTarget(scenario.target)));
  for (const request of scenario.requests) if (request.url) add(new URL(splitUrl(request.url).origin));
  return origins;
}

/** The target as an HTTP URL (grpc:// as http://, grpcs:// as https://: their host and port). */
export function httpTarget(target: string): string {
  return target.replace(/^grpc(s?):/, "http$1:");
}

/** `https://host:port/path?q` as its origin and the rest (at least "/"). */
function splitUrl(url: string): { origin: string; rest: string } {
  const match = /^(https?:\/\/[^/?#]+)(.*)$/.exec(url);
  const rest = match?.[2] ?? "";
  return { origin: match?.[1] ?? url, rest: rest.startsWith("/") ? rest : `/${rest}` };
}

export function compileRequests(
  scenario: Scenario,
  environment?: TemplateEnvironment,
  /** The bytes of the files multipart bodies send, by name. */
  attachments: Readonly<Record<string, Buffer>> = {},
  /** The run's protos, loaded once per thread (scripts use them too). */
  protos = new ProtoPackages(attachments),
): CompiledRequest[] {
  const base = new URL(httpTarget(scenario.target));
  const prefix = base.pathname.replace(/\/$/, "");
  const origins = requestOrigins(scenario);
  return scenario.requests.map((request, index) => {
    const absolute = request.url ? splitUrl(request.url) : null;
    const originIndex = absolute ? origins.findIndex((o) => o.origin === new URL(absolute.origin).origin) : 0;
    const path = absolute ? absolute.rest : prefix + (request.path ?? "/");
    // Credentials in the URL (the request's, else the target's) travel as Basic authentication.
    const authorization = basicAuthorization(absolute ? new URL(absolute.origin) : base);
    // A ws: or grpc: request keeps the HTTP fields too (captures among them), never sent.
    const placeholder = () =>
      compileRequest(
        request,
        index,
        prefix || "/",
        0,
        origins[0].host,
        null,
        scenario.timeout,
        false,
        environment,
        attachments,
      );
    if (request.grpc !== undefined) {
      const grpc = compileGrpc(
        { ...request, grpc: request.grpc },
        scenario.target,
        scenario.timeout,
        protos,
        environment,
      );
      return { ...placeholder(), grpc };
    }
    if (request.ws !== undefined) {
      const ws = compileWs({ ...request, ws: request.ws }, base, scenario.timeout, environment);
      return { ...placeholder(), ws };
    }
    return compileRequest(
      request,
      index,
      path,
      originIndex,
      origins[originIndex].host,
      authorization,
      scenario.timeout,
      scenario.http.compression,
      environment,
      attachments,
    );
  });
}

/** The body's template text, how its values are escaped, and its content type. */
function bodyOf(
  request: RequestConfig,
): { source: string; escape: "none" | "json" | "url"; type?: string } | null {
  if (request.json !== undefined) {
    return { source: JSON.stringify(request.json), escape: "json", type: "application/json" };
  }
  if (request.form !== undefined) {
    return { source: urlEncoded(request.form), escape: "url", type: "application/x-www-form-urlencoded" };
  }
  if (request.body === undefined) return null;
  if (typeof request.body === "string") return { source: request.body, escape: "none" };
  return { source: JSON.stringify(request.body), escape: "json", type: "application/json" };
}

function compileRequest(
  request: RequestConfig,
  index: number,
  requestPath: string,
  originIndex: number,
  host: string,
  authorization: string | null,
  defaultTimeout: number,
  compression: boolean,
  environment: TemplateEnvironment | undefined,
  attachments: Readonly<Record<string, Buffer>>,
): CompiledRequest {
  const headers = Object.entries(request.headers ?? {}).map(
    ([name, value]) => [name.toLowerCase(), value] as const,
  );
  if (authorization !== null && !headers.some(([name]) => name === "authorization")) {
    headers.push(["authorization", authorization]);
  }
  if (compression && !headers.some(([name]) => name === "accept-encoding")) {
    headers.push(["accept-encoding", "gzip, br, deflate"]);
  }
  const bodySpec = bodyOf(request);
  const multipart = request.multipart
    ? new CompiledMultipart(request.multipart, attachments, environment)
    : null;
  const contentType = multipart?.contentType ?? bodySpec?.type;
  if (contentType && !headers.some(([name]) => name === "content-type")) {
    headers.push(["content-type", contentType]);
  }
  const headerValues = headers.map(([, value]) => new CompiledTemplate(value, "none", environment));
  const body = bodySpec === null ? null : new CompiledTemplate(bodySpec.source, bodySpec.escape, environment);
  const captures = Object.entries(request.capture ?? {}).map(([variable, expression]) => {
    const source = parseCapture(expression);
    return { variable, source, regex: source.kind === "regex" ? new RegExp(source.pattern) : undefined };
  });
  const path = requestPath + queryString(request.query, requestPath.includes("?") ? "&" : "?");
  return {
    index,
    originIndex,
    name: requestName(request),
    method: request.method,
    path: new CompiledTemplate(path, "none", environment),
    headerNames: headers.map(([name]) => name),
    headerValues,
    // Frozen: the HTTP/1.1 client serialises a frozen header list once and reuses it.
    staticHeaders: headerValues.every((v) => v.isStatic)
      ? Object.freeze(headers.flatMap(([name], i) => [name, headerValues[i].render(STATIC_CONTEXT)]))
      : null,
    body,
    multipart,
    staticBody: multipart?.isStatic
      ? multipart.render(STATIC_CONTEXT)
      : body?.isStatic
        ? Buffer.from(body.render(STATIC_CONTEXT))
        : null,
    timeoutMs: request.timeout ?? defaultTimeout,
    captures,
    expectStatus: request.expect?.status ?? null,
    expectBody: request.expect?.body ?? null,
    needsBody: request.expect?.body !== undefined || captures.some((c) => c.source.kind !== "header"),
    // "METHOD path HTTP/1.1\r\nhost: h\r\nconnection: keep-alive\r\n" + header lines + "\r\n"
    ws: null,
    grpc: null,
    stream: request.stream ? { kind: request.stream.kind, until: request.stream.until ?? null } : null,
    fixedBytesOut:
      request.method.length +
      12 +
      8 +
      host.length +
      24 +
      headers.reduce((sum, [name, value]) => sum + name.length + value.length + 4, 0) +
      2,
  };
}

/** A static template renders without reading its context. */
const STATIC_CONTEXT = { vu: 0, iter: 0, worker: "", vars: {}, rows: [] };

/** URL-encodes text but keeps {{templates}} readable for the template parser. */
function encodeKeepingTemplates(text: string): string {
  return encodeURIComponent(text).replace(
    /%7B%7B(.*?)%7D%7D/g,
    (_m, inner) => `{{${decodeURIComponent(inner)}}}`,
  );
}

type FormValue = string | number | boolean;

/** `a=1&b=2`, URL-encoded with {{templates}} kept; a list sends its field once per value. */
function urlEncoded(fields: Record<string, FormValue | FormValue[]>): string {
  return Object.entries(fields)
    .flatMap(([key, value]) => (Array.isArray(value) ? value : [value]).map((item) => [key, item] as const))
    .map(([key, value]) => `${encodeKeepingTemplates(key)}=${encodeKeepingTemplates(String(value))}`)
    .join("&");
}

function queryString(query: RequestConfig["query"], separator: string): string {
  if (!query || Object.keys(query).length === 0) return "";
  return `${separator}${urlEncoded(query)}`;
}

/** Whether a status meets the request's expectation. */
export function statusAccepted(request: CompiledRequest, status: number): boolean {
  if (request.expectStatus === null) return status < 400;
  for (const [low, high] of request.expectStatus) if (status >= low && status <= high) return true;
  return false;
}
