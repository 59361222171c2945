import {
  type CaptureSource,
  type HttpMethod,
  parseCapture,
  type RequestConfig,
  requestName,
  type Scenario,
  type StatusRange,
} from "@volley/protocol";
import { CompiledTemplate } from "./compiled-template.js";

export interface CompiledCapture {
  variable: string;
  source: CaptureSource;
  regex?: RegExp;
}

/** A request of the scenario prepared for the hot path: templates parsed, fixed parts serialized once. */
export interface CompiledRequest {
  index: number;
  name: string;
  method: HttpMethod;
  path: CompiledTemplate;
  headerNames: string[];
  headerValues: CompiledTemplate[];
  /** Header list ready for undici when no header value has a template. */
  staticHeaders: string[] | null;
  body: CompiledTemplate | null;
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
}

export function compileRequests(scenario: Scenario): CompiledRequest[] {
  const base = new URL(scenario.target);
  const prefix = base.pathname.replace(/\/$/, "");
  const host = base.host;
  return scenario.requests.map((request, index) =>
    compileRequest(request, index, prefix, host, scenario.timeout),
  );
}

function compileRequest(
  request: RequestConfig,
  index: number,
  prefix: string,
  host: string,
  defaultTimeout: number,
): CompiledRequest {
  const headers = Object.entries(request.headers ?? {}).map(
    ([name, value]) => [name.toLowerCase(), value] as const,
  );
  let bodySource: string | null = null;
  let bodyIsJson = false;
  if (request.body !== undefined) {
    bodyIsJson = typeof request.body !== "string";
    bodySource = typeof request.body === "string" ? request.body : JSON.stringify(request.body);
    if (bodyIsJson && !headers.some(([name]) => name === "content-type")) {
      headers.push(["content-type", "application/json"]);
    }
  }
  const headerValues = headers.map(([, value]) => new CompiledTemplate(value));
  const body = bodySource === null ? null : new CompiledTemplate(bodySource, bodyIsJson);
  const captures = Object.entries(request.capture ?? {}).map(([variable, expression]) => {
    const source = parseCapture(expression);
    return { variable, source, regex: source.kind === "regex" ? new RegExp(source.pattern) : undefined };
  });
  const path = prefix + request.path + queryString(request.query, request.path.includes("?") ? "&" : "?");
  return {
    index,
    name: requestName(request),
    method: request.method,
    path: new CompiledTemplate(path),
    headerNames: headers.map(([name]) => name),
    headerValues,
    staticHeaders: headerValues.every((v) => v.isStatic) ? headers.flat() : null,
    body,
    staticBody: body?.isStatic ? Buffer.from(bodySource as string) : null,
    timeoutMs: request.timeout ?? defaultTimeout,
    captures,
    expectStatus: request.expect?.status ?? null,
    expectBody: request.expect?.body ?? null,
    needsBody: request.expect?.body !== undefined || captures.some((c) => c.source.kind !== "header"),
    // "METHOD path HTTP/1.1\r\nhost: h\r\nconnection: keep-alive\r\n" + header lines + "\r\n"
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

function queryString(query: RequestConfig["query"], separator: string): string {
  if (!query || Object.keys(query).length === 0) return "";
  // Keep {{templates}} readable for the template parser; encode everything else.
  const encode = (text: string) =>
    encodeURIComponent(text).replace(/%7B%7B(.*?)%7D%7D/g, (_m, inner) => `{{${decodeURIComponent(inner)}}}`);
  return `${separator}${Object.entries(query)
    .map(([key, value]) => `${encode(key)}=${encode(String(value))}`)
    .join("&")}`;
}

/** Whether a status meets the request's expectation. */
export function statusAccepted(request: CompiledRequest, status: number): boolean {
  if (request.expectStatus === null) return status < 400;
  for (const [low, high] of request.expectStatus) if (status >= low && status <= high) return true;
  return false;
}
