import { BUILTIN_VARIABLES } from "@volley/protocol";
import type { HarEntry } from "./har-entries.js";

/** A value a response handed out that a later request sends back: captured, then templated. */
export interface Capture {
  /** Index of the (kept) entry whose response holds it. */
  from: number;
  name: string;
  /** `json.path` or `header.name`. */
  expression: string;
  value: string;
}

// Short values (ids, "true", "en-US") recur by chance; tokens and session ids are long.
const MIN_LENGTH = 8;
const TOKEN_RE = /^[A-Za-z0-9\-._~+/=:]+$/;
const HEADER_HINT_RE = /token|csrf|xsrf|session|auth|request-id|location/i;
const MAX_LEAVES = 2000;

/**
 * Finds values that a response gave and a later request sends (a token from a login, an order id
 * in the next path): each is captured where it first appears. A value some request sent before the
 * response came is the client's own, not the server's, and is left alone.
 */
export function findCaptures(entries: readonly HarEntry[]): Capture[] {
  const captures: Capture[] = [];
  const taken = new Set<string>();
  const names = new Set<string>();
  // What each request sent (URL, header values, body), read once for every candidate.
  // (A token holds no line break, so no match spans two parts.)
  const sent = entries.map((e) => ({
    url: e.url.href,
    all: [e.url.href, ...e.headers.map(([, v]) => v), e.body?.text ?? ""].join("\n"),
  }));
  for (const [index, entry] of entries.entries()) {
    for (const candidate of candidates(entry)) {
      if (taken.has(candidate.value)) continue;
      const encoded = encodeURIComponent(candidate.value);
      const first = sent.findIndex((e) => e.all.includes(candidate.value) || e.url.includes(encoded));
      // Sent by no later request, or by this one or an earlier: not the server's to give.
      if (first <= index) continue;
      taken.add(candidate.value);
      const name = uniqueName(candidate.hint, names);
      captures.push({ from: index, name, expression: candidate.expression, value: candidate.value });
    }
  }
  return captures;
}

function candidates(entry: HarEntry): Array<{ expression: string; value: string; hint: string }> {
  const found: Array<{ expression: string; value: string; hint: string }> = [];
  for (const [name, value] of entry.responseHeaders) {
    if (HEADER_HINT_RE.test(name) && usable(value))
      found.push({ expression: `header.${name.toLowerCase()}`, value, hint: name });
  }
  if (entry.responseText !== undefined && entry.responseType.includes("json")) {
    try {
      walk(JSON.parse(entry.responseText), "json", "", found);
    } catch {
      // A body that says JSON and is not: nothing to capture from it.
    }
  }
  return found;
}

function walk(
  value: unknown,
  path: string,
  key: string,
  found: Array<{ expression: string; value: string; hint: string }>,
): void {
  if (found.length >= MAX_LEAVES) return;
  if (typeof value === "string") {
    if (usable(value)) found.push({ expression: path, value, hint: key });
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => {
      walk(item, `${path}[${i}]`, key, found);
    });
  } else if (typeof value === "object" && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      // A key the capture path cannot spell (dots, brackets) is passed over.
      if (/^[^.[\]]+$/.test(k)) walk(v, `${path}.${k}`, k, found);
    }
  }
}

function usable(value: string): boolean {
  return value.length >= MIN_LENGTH && value.length <= 4096 && TOKEN_RE.test(value);
}

/** A template variable's name from the field it came from: `access_token` → access_token, `X-Csrf` → x_csrf. */
function uniqueName(hint: string, names: Set<string>): string {
  let base = hint.replace(/[^A-Za-z0-9_]+/g, "_").replace(/^_+|_+$/g, "");
  if (!/^[A-Za-z_]/.test(base)) base = `v_${base}`;
  if (base === "" || base === "v_") base = "captured";
  let name = base;
  for (let n = 2; names.has(name) || RESERVED.has(name); n++) name = `${base}${n}`;
  names.add(name);
  return name;
}

/** Names the templates read as something else (built-ins, env, data). */
const RESERVED = new Set<string>([...BUILTIN_VARIABLES, "env", "data", "base64"]);
