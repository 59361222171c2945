import { field, stringOr } from "../fields.js";
import { ImportError } from "../imported.js";

/** The parts of a HAR 1.2 entry the importer reads, checked on the way in. */
export interface HarEntry {
  startedMs: number;
  timeMs: number;
  method: string;
  url: URL;
  headers: Array<[string, string]>;
  body?: { mimeType: string; text: string };
  status: number;
  resourceType?: string;
  responseType: string;
  responseHeaders: Array<[string, string]>;
  /** The response body as text, when the recording kept it and it is not base64. */
  responseText?: string;
}

const MAX_ENTRIES = 100_000;

/** The entries of a HAR, in the order they started; what is not http(s) is counted in `skipped`. */
export function readHarEntries(
  name: string,
  har: unknown,
): { entries: HarEntry[]; skipped: string[]; title?: string } {
  const log = field(har, "log");
  const list = field(log, "entries");
  if (!Array.isArray(list)) throw new ImportError(name, "not a HAR: no log.entries list");
  if (list.length > MAX_ENTRIES) throw new ImportError(name, `more than ${MAX_ENTRIES} entries`);
  const entries: HarEntry[] = [];
  const skipped: string[] = [];
  for (const [index, raw] of list.entries()) {
    const at = `log.entries[${index}]`;
    const request = field(raw, "request");
    const response = field(raw, "response");
    const urlText = field(request, "url");
    const method = field(request, "method");
    if (typeof urlText !== "string" || typeof method !== "string")
      throw new ImportError(name, `${at}.request needs a url and a method`);
    let url: URL;
    try {
      url = new URL(urlText);
    } catch {
      throw new ImportError(name, `${at}.request.url "${urlText.slice(0, 200)}" is not a URL`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      skipped.push(url.protocol.replace(/:$/, ""));
      continue;
    }
    const started = Date.parse(String(field(raw, "startedDateTime")));
    if (Number.isNaN(started)) throw new ImportError(name, `${at}.startedDateTime is not a date`);
    const postData = field(request, "postData");
    const content = field(response, "content");
    const text = field(content, "text");
    entries.push({
      startedMs: started,
      timeMs: Math.max(0, Number(field(raw, "time")) || 0),
      method: method.toUpperCase(),
      url,
      headers: pairs(field(request, "headers")),
      body: postBody(postData),
      status: Number(field(response, "status")) || 0,
      resourceType: stringOr(field(raw, "_resourceType")),
      responseType: stringOr(field(content, "mimeType")) ?? "",
      responseHeaders: pairs(field(response, "headers")),
      responseText: typeof text === "string" && field(content, "encoding") !== "base64" ? text : undefined,
    });
  }
  entries.sort((a, b) => a.startedMs - b.startedMs);
  const pages = field(log, "pages");
  const title = Array.isArray(pages) ? stringOr(field(pages[0], "title")) : undefined;
  return { entries, skipped, title };
}

function postBody(postData: unknown): HarEntry["body"] {
  if (postData === undefined || postData === null) return undefined;
  const mimeType = stringOr(field(postData, "mimeType")) ?? "";
  const text = field(postData, "text");
  if (typeof text === "string") return { mimeType, text };
  // Some recorders keep a form's fields only as params.
  const params = field(postData, "params");
  if (!Array.isArray(params)) return undefined;
  const form = new URLSearchParams();
  for (const [key, value] of pairs(params)) form.append(key, value);
  return { mimeType: mimeType || "application/x-www-form-urlencoded", text: form.toString() };
}

function pairs(list: unknown): Array<[string, string]> {
  if (!Array.isArray(list)) return [];
  return list.flatMap((item) => {
    const name = field(item, "name");
    const value = field(item, "value");
    return typeof name === "string" ? [[name, typeof value === "string" ? value : String(value ?? "")]] : [];
  }) as Array<[string, string]>;
}
