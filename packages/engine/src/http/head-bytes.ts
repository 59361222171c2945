/**
 * Byte-level checks of an HTTP/1.1 response head, on the bytes as read (no string per header):
 * token characters, names compared in any case, comma-separated tokens, plain numbers, field text.
 * Used by `ResponseParser`.
 */

export const TOKEN_RE = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** 1 for the characters a header name (token) may hold. */
export const TCHAR = new Uint8Array(256);
for (const c of "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") {
  TCHAR[c.charCodeAt(0)] = 1;
}

/** Whether the name in bytes `from`..`to` is one of `names` (lowercase), in any case. */
export function isOneOf(bytes: Buffer, from: number, to: number, names: readonly string[]): boolean {
  for (const name of names) if (name.length === to - from && isName(bytes, from, name)) return true;
  return false;
}

export function latin1(bytes: Buffer, from: number, to: number): string {
  return bytes.toString("latin1", from, to);
}

/** Whether a comma-separated header value (bytes `from`..`to`) lists `lower`, in any case. */
export function hasToken(bytes: Buffer, from: number, to: number, lower: string): boolean {
  let start = from;
  while (start < to) {
    let end = start;
    while (end < to && bytes[end] !== 44) end++;
    let a = start;
    let b = end;
    while (a < b && isBlank(bytes[a])) a++;
    while (b > a && isBlank(bytes[b - 1])) b--;
    if (b - a === lower.length && isName(bytes, a, lower)) return true;
    start = end + 1;
  }
  return false;
}

/** The start of a head line, quoted for an error message. */
export function quoteLine(line: string): string {
  return JSON.stringify(line.slice(0, 60));
}

/** A plain decimal number of 1 to 15 digits in bytes `from`..`to`; -1 for anything else. */
export function digitsOf(bytes: Buffer, from: number, to: number): number {
  if (to <= from || to - from > 15) return -1;
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = bytes[i];
    if (c < 48 || c > 57) return -1;
    n = n * 10 + (c - 48);
  }
  return n;
}

/** Whether bytes from `start` spell `lower` (a lowercase header name), in any case. */
export function isName(bytes: Buffer, start: number, lower: string): boolean {
  for (let i = 0; i < lower.length; i++) {
    if ((bytes[start + i] | 0x20) !== lower.charCodeAt(i)) return false;
  }
  return true;
}

/** Whether bytes from `start` are exactly `text` (ASCII), case included. */
export function isExactly(bytes: Buffer, start: number, text: string): boolean {
  for (let i = 0; i < text.length; i++) if (bytes[start + i] !== text.charCodeAt(i)) return false;
  return true;
}

export function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

export function isBlank(c: number): boolean {
  return c === 32 || c === 9;
}

/** Field text (a value, a reason phrase): tab, visible characters, spaces, obs-text; no controls. */
export function isFieldText(bytes: Buffer, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = bytes[i];
    if ((c < 32 && c !== 9) || c === 127) return false;
  }
  return true;
}

export const DIGITS_RE = /^\d{1,15}$/;
export const HEX_RE = /^[0-9A-Fa-f]{1,13}$/;

/** Largest response head (status line and headers), and largest trailer section. */
export const MAX_HEAD_BYTES = 64 * 1024;

/**
 * The headers of a head the parser accepted (status line to the blank line, as `onRawHead` hands it
 * over): name, value, ... as the parser would have made them, values without surrounding blanks.
 */
export function headerPairs(head: Buffer): string[] {
  const pairs: string[] = [];
  const statusEnd = head.indexOf(13);
  if (statusEnd < 0) return pairs; // the status line alone
  let start = statusEnd + 2;
  while (start < head.length) {
    let end = head.indexOf(13, start);
    if (end < 0) end = head.length;
    const colon = head.indexOf(58, start);
    let valueStart = colon + 1;
    let valueEnd = end;
    while (valueStart < valueEnd && isBlank(head[valueStart])) valueStart++;
    while (valueEnd > valueStart && isBlank(head[valueEnd - 1])) valueEnd--;
    pairs.push(latin1(head, start, colon), latin1(head, valueStart, valueEnd));
    start = end + 2;
  }
  return pairs;
}

/** Which response headers to hand over: all, none, or those named (lowercase). */
export type HeaderSelection = boolean | readonly string[];
