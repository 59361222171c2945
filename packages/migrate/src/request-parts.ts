import { jsonDepthExceeds, MAX_JSON_DEPTH } from "@volley/protocol";
import { ImportError } from "./imported.js";

/** An absolute http(s) URL as a scenario writes it: the target (origin) and the path with its query. */
export function splitUrl(source: string, text: string): { target: string; path: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ImportError(source, `"${text.slice(0, 200)}" is not an absolute URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new ImportError(source, `"${text.slice(0, 200)}" is not an http:// or https:// URL`);
  // The path as written (URL keeps its percent-encoding); a bare origin asks for "/".
  return { target: url.origin, path: `${url.pathname || "/"}${url.search}` };
}

/**
 * A body as the scenario's fields write it: `json` for JSON objects and arrays, `form` for a
 * urlencoded body that reads back the same, otherwise `body` as text (its content type stays in
 * the request's headers). Empty text: no body.
 */
export function bodyFields(text: string, contentType: string): Record<string, unknown> {
  if (text.length === 0) return {};
  const type = contentType.toLowerCase();
  if (type.includes("json")) {
    try {
      const value: unknown = JSON.parse(text);
      if (typeof value === "object" && value !== null && !jsonDepthExceeds(value, MAX_JSON_DEPTH))
        return { json: value };
    } catch {
      // Not JSON after all: sent as the text it is.
    }
  }
  if (type.includes("application/x-www-form-urlencoded")) {
    const form = formFields(text);
    if (form) return { form };
  }
  return { body: text };
}

/** A urlencoded body's fields, or undefined when writing them again would not send the same bytes. */
export function formFields(text: string): Record<string, string | string[]> | undefined {
  const params = new URLSearchParams(text);
  const form: Record<string, string | string[]> = {};
  for (const [name, value] of params) {
    if (name.length === 0) return undefined;
    const had = form[name];
    form[name] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
  }
  const names = Object.keys(form);
  if (names.length === 0 || names.length > 100) return undefined;
  // Volley encodes as URLSearchParams does: the same text back, or the body is kept as text.
  return params.toString() === text ? form : undefined;
}

/** Base64 of UTF-8 text, in Node and in the browser alike. */
export function base64(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Headers no scenario should send as written: the client sets them itself, or the jar does. */
export const CLIENT_HEADERS = new Set([
  "host",
  "connection",
  "content-length",
  "transfer-encoding",
  "keep-alive",
]);
