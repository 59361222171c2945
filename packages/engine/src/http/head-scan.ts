import {
  digitsOf,
  type HeaderSelection,
  hasToken,
  isBlank,
  isName,
  isOneOf,
  latin1,
  quoteLine,
  TCHAR,
} from "./head-bytes.js";
import type { HeadMemo } from "./head-memo.js";
import {
  isHttp11,
  listedContentLength,
  statusCodeOf,
  statusLineProblem,
  statusTextOf,
} from "./status-line.js";

/** The headers of a response none were asked of (frozen: shared by every such response). */
export const NO_HEADERS = Object.freeze([]) as unknown as string[];

/**
 * Scans and checks a head's status line and headers (bytes `from`..`to`) into `head`; returns
 * the header strings `keepHeaders` asks for, or why the head is malformed.
 */
export function scanHead(
  bytes: Buffer,
  from: number,
  to: number,
  keepHeaders: HeaderSelection,
  head: HeadMemo,
): string[] | string {
  head.forget();
  // Scanned as bytes (far cheaper than characters); strings are made only for what is read.
  let statusEnd = from;
  while (statusEnd < to && bytes[statusEnd] !== 13) statusEnd++;
  const problem = statusLineProblem(bytes, from, statusEnd, to);
  if (problem !== null) return problem;
  let rawHeaders = NO_HEADERS;
  let keepAliveHintS = -1;
  let contentLength = -1;
  let chunked = false;
  let transferEncoding = false;
  let closeAsked = false;
  let keepAliveAsked = false;
  let start = statusEnd + 2;
  while (start < to) {
    // The name: token characters up to the colon.
    let colon = start;
    while (colon < to && TCHAR[bytes[colon]] === 1) colon++;
    // One pass to the line's end that also checks the value is field text (no controls but tab).
    let end = colon + 1;
    let control = false;
    for (; end < to; end++) {
      const c = bytes[end];
      if (c < 32 || c === 127) {
        if (c === 13) break;
        if (c !== 9) control = true;
      }
    }
    if (colon === start || colon >= to || bytes[colon] !== 58) {
      end = colon;
      while (end < to && bytes[end] !== 13) end++;
      const named = bytes.indexOf(58, start) >= 0 && bytes.indexOf(58, start) < end;
      return `${named ? "a malformed header" : "a header line without a name"}: ${quoteLine(latin1(bytes, start, end))}`;
    }
    // The value: field text, its surrounding spaces and tabs dropped; the line ends in CRLF.
    let valueStart = colon + 1;
    let valueEnd = end;
    while (valueStart < valueEnd && isBlank(bytes[valueStart])) valueStart++;
    while (valueEnd > valueStart && isBlank(bytes[valueEnd - 1])) valueEnd--;
    if (control || (end < to && bytes[end + 1] !== 10)) {
      return `a malformed header: ${quoteLine(latin1(bytes, start, end))}`;
    }
    if (keepHeaders === true || (keepHeaders !== false && isOneOf(bytes, start, colon, keepHeaders))) {
      if (rawHeaders === NO_HEADERS) rawHeaders = [];
      rawHeaders.push(latin1(bytes, start, colon), latin1(bytes, valueStart, valueEnd));
    }
    const nameLength = colon - start;
    if (nameLength === 14 && isName(bytes, start, "content-length")) {
      const simple = digitsOf(bytes, valueStart, valueEnd);
      if (simple >= 0 && (contentLength < 0 || contentLength === simple)) {
        contentLength = simple;
        start = end + 2;
        continue;
      }
      const listed = listedContentLength(latin1(bytes, valueStart, valueEnd), contentLength);
      if (typeof listed === "string") {
        return listed;
      }
      contentLength = listed;
    } else if (nameLength === 17 && isName(bytes, start, "transfer-encoding")) {
      transferEncoding = true;
      const codings = latin1(bytes, valueStart, valueEnd).toLowerCase().split(",");
      chunked = codings[codings.length - 1].trim() === "chunked";
    } else if (nameLength === 10 && isName(bytes, start, "connection")) {
      if (hasToken(bytes, valueStart, valueEnd, "close")) closeAsked = true;
      if (hasToken(bytes, valueStart, valueEnd, "keep-alive")) keepAliveAsked = true;
    } else if (nameLength === 10 && isName(bytes, start, "keep-alive")) {
      const hint = /timeout=(\d+)/i.exec(latin1(bytes, valueStart, valueEnd));
      if (hint) keepAliveHintS = Number(hint[1]);
    }
    start = end + 2;
  }
  head.code = statusCodeOf(bytes, from);
  head.statusText = statusTextOf(bytes, from, statusEnd);
  head.contentLength = contentLength;
  head.transferEncoding = transferEncoding;
  head.chunked = chunked;
  head.keepAlive = isHttp11(bytes, from) ? !closeAsked : keepAliveAsked && !closeAsked;
  head.keepAliveHintS = keepAliveHintS;
  return rawHeaders;
}
