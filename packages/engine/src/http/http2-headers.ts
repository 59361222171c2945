import type { OutgoingHttpHeaders } from "node:http2";
import { checkPath, eachHeader, InvalidRequestError, type TracedDispatchOptions } from "./request-head.js";

/**
 * HTTP/1.1's connection-specific headers, which HTTP/2 forbids (RFC 9113 §8.2.2: node refuses the
 * request). A request's own list may hold them when it was written for HTTP/1.1: they are left
 * out, as undici does. `host` becomes `:authority`.
 */
const LEFT_OUT = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade"]);

/** A header list made into node's header object: lowercase names, repeats as arrays. */
function headerObject(headers: TracedDispatchOptions["headers"]): OutgoingHttpHeaders {
  const made: OutgoingHttpHeaders = {};
  eachHeader(headers, (name, value) => {
    const lower = name.toLowerCase();
    if (LEFT_OUT.has(lower)) return;
    const key = lower === "host" ? ":authority" : lower;
    const known = made[key];
    if (known === undefined) made[key] = value;
    else made[key] = Array.isArray(known) ? [...known, value] : [String(known), value];
  });
  return made;
}

/** The last request a frozen (compiled, untemplated) header list went out with, and its object. */
interface LastRequest {
  method: string;
  path: string;
  made: OutgoingHttpHeaders;
}

/**
 * The header objects of one pool's requests. A VU sends the same request again and again: when
 * method, path and frozen header list are those of the list's last request, the object made for
 * it is handed to node again (node copies it, never writes it); node validates and encodes the
 * object on every request, so only our own work is saved. A list that is not frozen (templated
 * headers, cookies) is made each time.
 */
export class Http2Headers {
  private readonly byList = new WeakMap<object, LastRequest>();

  /**
   * Node's header object for a request: pseudo-headers, the list's headers checked (a name or value
   * that would break the framing is an InvalidRequestError, before node would end the session for
   * it), `content-length` of a body, and the request's `traceparent`.
   */
  of(options: TracedDispatchOptions, bodyLength: number): OutgoingHttpHeaders {
    const { method, path, headers } = options;
    const frozen = headers !== null && headers !== undefined && Object.isFrozen(headers);
    const last = frozen ? this.byList.get(headers as object) : undefined;
    let made: OutgoingHttpHeaders;
    if (last !== undefined && last.path === path && last.method === method) made = last.made;
    else {
      checkPath(path);
      made = { ":method": method, ":path": path, ...headerObject(headers) };
      if (frozen) this.byList.set(headers as object, { method, path, made });
    }
    const sized = bodyLength > 0 || (method !== "GET" && method !== "HEAD");
    if (!sized && options.traceparent === undefined) return made;
    made = { ...made };
    if (sized) made["content-length"] = bodyLength;
    if (options.traceparent !== undefined) made.traceparent = options.traceparent;
    return made;
  }
}

/** The length of a body the client can write, or an InvalidRequestError for any other kind. */
export function bodyLength(body: TracedDispatchOptions["body"]): number {
  if (body === null || body === undefined) return 0;
  if (typeof body === "string") return Buffer.byteLength(body);
  if (body instanceof Uint8Array) return body.length;
  throw new InvalidRequestError("a request body must be a string or bytes");
}
