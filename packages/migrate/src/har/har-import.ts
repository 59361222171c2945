import {
  checkSize,
  ImportError,
  type Imported,
  type ImportSource,
  MAX_IMPORTED_REQUESTS,
  parseJson,
  requestName,
  SMOKE_LOAD,
} from "../imported.js";
import { bodyFields, CLIENT_HEADERS } from "../request-parts.js";
import { type Capture, findCaptures } from "./har-captures.js";
import { type HarEntry, readHarEntries } from "./har-entries.js";

export interface HarOptions {
  /** Keep images, scripts, styles, fonts and media. */
  keepAssets?: boolean;
  /** Keep requests to other origins than the recorded site's. */
  keepOrigins?: boolean;
}

/** What a browser adds to every request and a load test need not send. */
const NOISE_HEADERS = new Set([
  "accept-encoding",
  "accept-language",
  "cache-control",
  "pragma",
  "priority",
  "dnt",
  "te",
  "upgrade-insecure-requests",
  "user-agent",
  "referer",
  "origin",
  "if-none-match",
  "if-modified-since",
  // The jar sends what the responses set: recorded cookies would be the recording's session.
  "cookie",
]);
const ASSET_TYPES = new Set([
  "stylesheet",
  "script",
  "image",
  "font",
  "media",
  "manifest",
  "texttrack",
  "ping",
]);
const ASSET_PATH_RE =
  /\.(css|js|mjs|map|png|jpe?g|gif|svg|ico|webp|avif|bmp|woff2?|ttf|otf|eot|mp4|webm|mp3|ogg|wav)$/i;
const ASSET_MIME_RE = /^(image|font|audio|video)\/|^text\/css|javascript/i;
/** Pauses shorter than this are the browser's own work, not the user's thinking. */
const MIN_THINK_MS = 200;
const MAX_THINK_MS = 5 * 60_000;

/** `volley import har`: a browser recording → the requests in order, paced as recorded. */
export function importHar(source: ImportSource, options: HarOptions = {}): Imported {
  checkSize(source);
  const { entries: all, skipped, title } = readHarEntries(source.name, parseJson(source, "a HAR"));
  if (all.length === 0) throw new ImportError(source.name, "holds no http(s) request");
  const notes: string[] = [];
  if (skipped.length > 0)
    notes.push(
      `${requests(skipped.length)} that are not http(s) (${[...new Set(skipped)].join(", ")}) left out`,
    );
  const site = siteOrigin(all);
  const assets = all.filter((e) => !options.keepAssets && isAsset(e));
  const otherOrigins = all.filter(
    (e) => !options.keepOrigins && e.url.origin !== site && !assets.includes(e),
  );
  if (assets.length > 0)
    notes.push(
      `${assets.length} static assets (images, scripts, styles, fonts) left out: --keep-assets keeps them`,
    );
  if (otherOrigins.length > 0) {
    const origins = [...new Set(otherOrigins.map((e) => e.url.host))].slice(0, 5).join(", ");
    notes.push(
      `${requests(otherOrigins.length)} to other origins (${origins}) left out: --keep-origins keeps them`,
    );
  }
  // CORS preflights are the browser's to send, before the request a scenario makes itself.
  const preflights = all.filter(
    (e) => e.method === "OPTIONS" && hasHeader(e, "access-control-request-method"),
  );
  if (preflights.length > 0) notes.push(`${requests(preflights.length, "CORS preflight")} left out`);
  const kept = all.filter((e) => !assets.includes(e) && !otherOrigins.includes(e) && !preflights.includes(e));
  if (kept.length === 0)
    throw new ImportError(source.name, "every request was a static asset or on another origin");
  if (kept.length > MAX_IMPORTED_REQUESTS)
    throw new ImportError(
      source.name,
      `${kept.length} requests: at most ${MAX_IMPORTED_REQUESTS}; cut the recording`,
    );
  const captures = findCaptures(kept);
  for (const c of captures)
    notes.push(`"${c.name}" is captured (${c.expression}) and sent where the recording sent its value`);
  const steps: unknown[] = [];
  let previousEnd: number | undefined;
  for (const [index, entry] of kept.entries()) {
    const gap = previousEnd === undefined ? 0 : entry.startedMs - previousEnd;
    if (gap >= MIN_THINK_MS) steps.push({ sleep: `${Math.min(Math.round(gap), MAX_THINK_MS)}ms` });
    previousEnd = Math.max(previousEnd ?? 0, entry.startedMs + entry.timeMs);
    steps.push(harRequest(entry, index, site, captures));
  }
  const http: Record<string, unknown> = { cookies: true };
  if (kept.some((e) => hasHeader(e, "accept-encoding"))) http.compression = true;
  return {
    scenario: {
      name: requestName(title ?? new URL(site).host),
      target: site,
      load: SMOKE_LOAD,
      http,
      requests: steps,
    },
    notes,
  };
}

function harRequest(entry: HarEntry, index: number, site: string, captures: readonly Capture[]) {
  const given = captures.filter((c) => c.from < index);
  const fill = (text: string) => templated(text, given);
  const headers: Record<string, string> = {};
  for (const [name, value] of entry.headers) {
    const lower = name.toLowerCase();
    if (lower.startsWith(":") || CLIENT_HEADERS.has(lower) || NOISE_HEADERS.has(lower)) continue;
    if (lower.startsWith("sec-")) continue;
    headers[lower] = fill(value);
  }
  const path = fill(`${entry.url.pathname}${entry.url.search}`);
  const contentType = entry.body?.mimeType ?? "";
  const body = entry.body ? bodyFields(fill(entry.body.text), contentType) : {};
  // The fields say json and form themselves; a text body keeps its type in the headers.
  if ("json" in body || "form" in body) delete headers["content-type"];
  else if (entry.body && contentType && headers["content-type"] === undefined)
    headers["content-type"] = contentType;
  const own = captures.filter((c) => c.from === index);
  return {
    name: requestName(
      `${entry.method} ${entry.url.origin === site ? "" : entry.url.host}${entry.url.pathname}`,
    ),
    method: entry.method,
    ...(entry.url.origin === site ? { path } : { url: `${entry.url.origin}${path}` }),
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    ...body,
    ...(own.length > 0 ? { capture: Object.fromEntries(own.map((c) => [c.name, c.expression])) } : {}),
    // 304 answered the browser's cache headers, which are not sent: the server answers 200 then.
    ...(entry.status >= 100 && entry.status !== 304 ? { expect: { status: entry.status } } : {}),
  };
}

/** Every recorded value a capture holds, replaced by its template. */
function templated(text: string, captures: readonly Capture[]): string {
  let out = text;
  for (const c of captures) {
    out = out.split(c.value).join(`{{${c.name}}}`);
    const encoded = encodeURIComponent(c.value);
    if (encoded !== c.value) out = out.split(encoded).join(`{{${c.name}}}`);
  }
  return out;
}

/** The recorded site: the first page the browser loaded, else the first request's origin. */
function siteOrigin(entries: readonly HarEntry[]): string {
  const page = entries.find((e) => e.resourceType === "document" || e.responseType.startsWith("text/html"));
  return (page ?? entries[0]).url.origin;
}

function isAsset(entry: HarEntry): boolean {
  if (entry.resourceType !== undefined && ASSET_TYPES.has(entry.resourceType)) return true;
  if (entry.method !== "GET") return false;
  return ASSET_PATH_RE.test(entry.url.pathname) || ASSET_MIME_RE.test(entry.responseType);
}

function hasHeader(entry: HarEntry, name: string): boolean {
  return entry.headers.some(([n]) => n.toLowerCase() === name);
}

function requests(n: number, kind = ""): string {
  return `${n} ${kind ? `${kind} ` : ""}request${n === 1 ? "" : "s"}`;
}
