import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import { CookieJar } from "../http/cookie-jar.js";

/** The scenario's session settings, fixed for a run. */
export interface SessionSettings {
  cookies: boolean;
  /** When a VU's cookie jar is emptied: never ("vu") or at every iteration. */
  cookieReset: "vu" | "iteration";
  followRedirects: number;
  compression: boolean;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Whether a VU needs a session at all (else none is made: a million VUs, a million objects fewer). */
export function needsSession(settings: SessionSettings): boolean {
  return settings.cookies || settings.followRedirects > 0 || settings.compression;
}

/** What one exchange read of its response's headers for the session's features. */
export interface SessionHeaders {
  /** The Location of a redirect response, when redirects are followed. */
  location: string | null;
  /** Content-Encoding of the response (lower case), when compression is on. */
  encoding: string | null;
}

/**
 * What a VU carries from one response to the next request besides captures: its cookies, and
 * which response headers its features read (a redirect's Location, the Content-Encoding).
 * Response headers are scanned only when one of the features is on, and nothing is allocated
 * for headers none of them reads.
 */
export class HttpSession {
  private jar: CookieJar | null = null;

  /** The response headers the session reads (lowercase), for a client that makes only those. */
  readonly headerNames: readonly string[];

  constructor(readonly settings: SessionSettings) {
    this.headerNames = [
      ...(settings.cookies ? ["set-cookie"] : []),
      ...(settings.followRedirects > 0 ? ["location"] : []),
      ...(settings.compression ? ["content-encoding"] : []),
    ];
  }

  /** A new iteration starts: with `cookieReset: iteration` the jar is emptied. */
  iterationStarts(): void {
    if (this.settings.cookieReset === "iteration") this.jar = null;
  }

  /** The Cookie header for a request to `host` (over https or not) and `path`, or null. */
  cookieHeader(host: string, https: boolean, path: string): string | null {
    return this.jar?.header(host, path, https) ?? null;
  }

  /** Reads the headers the features need from the raw name/value list: cookies kept, the rest into `into`. */
  readHeaders(
    status: number,
    rawHeaders: Buffer[] | string[],
    host: string,
    requestPath: string,
    into: SessionHeaders,
  ): void {
    into.location = null;
    into.encoding = null;
    const { cookies, followRedirects, compression } = this.settings;
    const redirect = followRedirects > 0 && REDIRECTS.has(status);
    for (let i = 0; i < rawHeaders.length; i += 2) {
      const name = rawHeaders[i];
      const length = name.length;
      // Cheap length checks first: most headers are none of these.
      if (cookies && length === 10 && lower(name) === "set-cookie") {
        this.jar ??= new CookieJar();
        this.jar.store(rawHeaders[i + 1].toString(), host, requestPath);
      } else if (redirect && length === 8 && lower(name) === "location") {
        into.location = rawHeaders[i + 1].toString();
      } else if (compression && length === 16 && lower(name) === "content-encoding") {
        into.encoding = rawHeaders[i + 1].toString().trim().toLowerCase();
      }
    }
  }

  /**
   * The path a redirect to `location` leads to on the same origin, or null (none, off-origin, or
   * `hops` already followed for this request).
   */
  redirectPath(location: string | null, hops: number, host: string, https: boolean): string | null {
    if (location === null || hops >= this.settings.followRedirects) return null;
    let url: URL;
    try {
      url = new URL(location, `${https ? "https" : "http"}://${host}`);
    } catch {
      return null;
    }
    if (url.host !== host || (url.protocol === "https:") !== https) return null;
    return url.pathname + url.search;
  }
}

/** A decoded body passed http.maxBodyBytes: decoding stopped there (a small gzip can hold gigabytes). */
export class DecodedBodyTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`response body is larger than http.maxBodyBytes (${maxBytes} bytes) once decoded`);
  }
}

/**
 * A body as text, decoded per its Content-Encoding (null: as it is), at most `maxBytes` of output.
 * Throws DecodedBodyTooLargeError past it, and zlib's error on a corrupt body.
 */
export function decodeBody(body: Buffer, encoding: string | null, maxBytes: number): string {
  const options = { maxOutputLength: Math.max(1, maxBytes) };
  try {
    switch (encoding) {
      case "gzip":
      case "x-gzip":
        return gunzipSync(body, options).toString();
      case "br":
        return brotliDecompressSync(body, options).toString();
      case "deflate":
        return inflateSync(body, options).toString();
      default:
        return body.toString();
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") {
      throw new DecodedBodyTooLargeError(maxBytes);
    }
    throw error;
  }
}

function lower(name: Buffer | string): string {
  return name.toString().toLowerCase();
}
