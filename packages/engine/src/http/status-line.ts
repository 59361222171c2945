import { DIGITS_RE, isDigit, isExactly, isFieldText, latin1 } from "./head-bytes.js";

/**
 * The status line of an HTTP/1.x response, read as bytes: "HTTP/1.x NNN reason". Used by
 * `ResponseParser`; the code and minor version are read by position once the line is accepted.
 */

/** The status code of an accepted status line starting at `from`. */
export function statusCodeOf(bytes: Buffer, from: number): number {
  return (bytes[from + 9] - 48) * 100 + (bytes[from + 10] - 48) * 10 + (bytes[from + 11] - 48);
}

/**
 * Why the status line in bytes `from`..`statusEnd` (the head ends at `to`) is not HTTP/1.x, or
 * null when it is. The protocol name is case-sensitive (RFC 9112): "HTTP/1." to the byte.
 */
export function statusLineProblem(bytes: Buffer, from: number, statusEnd: number, to: number): string | null {
  const minorCode = bytes[from + 7];
  const length = statusEnd - from;
  if (
    !isExactly(bytes, from, "HTTP/1.") ||
    (minorCode !== 48 && minorCode !== 49) ||
    bytes[from + 8] !== 32 ||
    !(length === 12 || (length > 12 && bytes[from + 12] === 32)) ||
    !isDigit(bytes[from + 9]) ||
    !isDigit(bytes[from + 10]) ||
    !isDigit(bytes[from + 11]) ||
    statusCodeOf(bytes, from) < 100 ||
    !isFieldText(bytes, from + 13, statusEnd) ||
    (statusEnd < to && bytes[statusEnd + 1] !== 10)
  ) {
    return `not an HTTP/1.x status line: ${JSON.stringify(latin1(bytes, from, from + Math.min(length, 60)))}`;
  }
  return null;
}

/** Whether an accepted status line starting at `from` says HTTP/1.1 (else 1.0). */
export function isHttp11(bytes: Buffer, from: number): boolean {
  return bytes[from + 7] === 49;
}

/** The reason phrase of a status line (bytes `from`..`to`); the common "OK" without a new string. */
export function statusTextOf(bytes: Buffer, from: number, to: number): string {
  if (to - from <= 13) return "";
  if (to - from === 15 && bytes[from + 13] === 79 && bytes[from + 14] === 75) return "OK";
  return latin1(bytes, from + 13, to);
}

/**
 * A Content-Length value that is not one plain number: a comma-separated list of the same number
 * (RFC 9110 8.6) is accepted; `previous` is the value an earlier Content-Length gave (-1: none).
 * The length, or why the value is refused.
 */
export function listedContentLength(value: string, previous: number): number | string {
  let length = previous;
  for (const part of value.split(",")) {
    const digits = part.trim();
    if (!DIGITS_RE.test(digits))
      return `content-length is not a number: ${JSON.stringify(value.slice(0, 40))}`;
    const n = Number(digits);
    if (length >= 0 && n !== length) return "content-length is given twice with different values";
    length = n;
  }
  return length;
}
