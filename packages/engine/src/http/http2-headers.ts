import type { OutgoingHttpHeaders } from "node:http2";
import type { ConnectionTarget } from "./connection-target.js";
import { encodeHeaderBlock } from "./hpack/hpack-encoder.js";
import { checkPath, eachHeader, InvalidRequestError, type TracedDispatchOptions } from "./request-head.js";

/**
 * HTTP/1.1's connection-specific headers, which HTTP/2 forbids (RFC 9113 §8.2.2: a server
 * treats a request with one as malformed). A request's own list may hold them when it was written for HTTP/1.1: they are left
 * out, as undici does. `host` becomes `:authority`.
 */
const LEFT_OUT = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade"]);

/** A header list made into a header object: lowercase names, repeats as arrays. */
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
 * it is used again, and with it its HPACK block (`headerBlock`, encoded once). A list that is not
 * frozen (templated headers, cookies), a body's length or a traceparent make a new object.
 */
export class Http2Headers {
  private readonly byList = new WeakMap<object, LastRequest>();

  /**
   * The header object of a request: pseudo-headers, the list's headers checked (a name or value
   * that would break the framing is an InvalidRequestError, and nothing is sent), `content-length`
   * of a body, and the request's `traceparent`.
   */
  /** The HPACK block of a request's headers (see `of` and `headerBlock`). */
  block(options: TracedDispatchOptions, bodyLength: number, target: ConnectionTarget): Buffer {
    return headerBlock(this.of(options, bodyLength), target);
  }

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

/** Header blocks already encoded, by the header object `of` made (reused for a repeated request). */
const blocks = new WeakMap<OutgoingHttpHeaders, Buffer>();

/**
 * The HPACK block of a header object: pseudo-headers first (`:scheme` and `:authority` the
 * target's unless given), then the others, arrays as repeated fields.
 */
export function headerBlock(made: OutgoingHttpHeaders, target: ConnectionTarget): Buffer {
  const known = blocks.get(made);
  if (known !== undefined) return known;
  const fields: Array<[string, string]> = [
    [":method", String(made[":method"])],
    [":scheme", target.https ? "https" : "http"],
    [":authority", String(made[":authority"] ?? target.hostHeader)],
    [":path", String(made[":path"])],
  ];
  for (const name in made) {
    if (name.charCodeAt(0) === 58 /* ":" */) continue;
    const value = made[name];
    if (Array.isArray(value)) for (const item of value) fields.push([name, String(item)]);
    else if (value !== undefined) fields.push([name, String(value)]);
  }
  const block = encodeHeaderBlock(fields);
  blocks.set(made, block);
  return block;
}

/** The length of a body the client can write, or an InvalidRequestError for any other kind. */
export function bodyLength(body: TracedDispatchOptions["body"]): number {
  if (body === null || body === undefined) return 0;
  if (typeof body === "string") return Buffer.byteLength(body);
  if (body instanceof Uint8Array) return body.length;
  throw new InvalidRequestError("a request body must be a string or bytes");
}
