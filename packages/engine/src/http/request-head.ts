import type { Dispatcher } from "undici";

/** Bytes a request line, header or path may hold (undici's rules): no CR, LF, NUL or other controls. */
const PATH_RE = /^[\x21-\xff]+$/;
const VALUE_RE = /^[\t\x20-\x7e\x80-\xff]*$/;
const TOKEN_RE = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** A request this client refuses to write: it would break the framing (header injection). */
export class InvalidRequestError extends Error {
  readonly code = "UND_ERR_INVALID_ARG";
}

// The header block of a frozen header list (a request's compiled, untemplated headers) is
// serialised once and reused for every request that sends it; other lists are built each time.
const serialised = new WeakMap<object, string>();

/** `name: value\r\n` for each header, checked; cached for a list seen before. */
function headerBlock(headers: Dispatcher.DispatchOptions["headers"]): string {
  if (headers === null || headers === undefined) return "";
  const cached = serialised.get(headers);
  if (cached !== undefined) return cached;
  let block = "";
  eachHeader(headers, (name, value) => {
    block += `${name}: ${value}\r\n`;
  });
  if (Object.isFrozen(headers)) serialised.set(headers, block);
  return block;
}

/**
 * Calls `add` with each header of a dispatch's list (flat name-value array, or an object whose
 * values may be arrays), every name and value checked first: both clients refuse the same bytes.
 */
export function eachHeader(
  headers: Dispatcher.DispatchOptions["headers"],
  add: (name: string, value: string) => void,
): void {
  const checked = (name: string, value: string) => {
    if (!TOKEN_RE.test(name)) throw new InvalidRequestError(`invalid header name ${JSON.stringify(name)}`);
    if (!VALUE_RE.test(value)) throw new InvalidRequestError(`invalid value of header ${name}`);
    add(name, value);
  };
  if (headers === null || headers === undefined) return;
  if (Array.isArray(headers)) {
    for (let i = 0; i < headers.length; i += 2) checked(String(headers[i]), String(headers[i + 1]));
  } else {
    for (const [name, value] of Object.entries(headers as Record<string, unknown>)) {
      if (Array.isArray(value)) for (const item of value) checked(name, String(item));
      else if (value !== undefined) checked(name, String(value));
    }
  }
}

/** A request path this client refuses (control characters, spaces: request-line injection). */
export function checkPath(path: string): void {
  if (!PATH_RE.test(path))
    throw new InvalidRequestError(`invalid request path ${JSON.stringify(path.slice(0, 80))}`);
}

/**
 * Dispatch options with a W3C `traceparent` (`http.tracing`) Volley's client writes after the
 * other headers: kept out of `headers`, the compiled header list stays the same (and its bytes
 * cached) from request to request. undici's client takes it in `headers` instead.
 */
export interface TracedDispatchOptions extends Dispatcher.DispatchOptions {
  traceparent?: string;
}

/**
 * The request line and headers, ending with the blank line: `host` and `content-length` are
 * added, then a `traceparent` when the options carry one; everything else is the caller's.
 * Throws InvalidRequestError for a path or header that would break the framing.
 */
export function requestHead(options: TracedDispatchOptions, host: string, bodyLength: number): string {
  const path = options.path;
  checkPath(path);
  let head = `${options.method} ${path} HTTP/1.1\r\nhost: ${host}\r\n${headerBlock(options.headers)}`;
  if (bodyLength > 0 || (options.method !== "GET" && options.method !== "HEAD")) {
    head += `content-length: ${bodyLength}\r\n`;
  }
  // Made by TraceIds (hex and dashes only): nothing in it to check.
  if (options.traceparent !== undefined) head += `traceparent: ${options.traceparent}\r\n`;
  return `${head}\r\n`;
}
