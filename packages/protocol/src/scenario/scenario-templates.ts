import { jsonDepthExceeds, MAX_JSON_DEPTH } from "../json-depth.js";
import type { RequestConfig } from "./request.js";

/** Every template text of a scenario's requests, with the field path it came from. */
export function forEachTemplate(
  scenario: { requests: readonly RequestConfig[]; requestPaths: ReadonlyArray<Array<string | number>> },
  visit: (text: string, path: Array<string | number>) => void,
): void {
  scenario.requests.forEach((request, index) => {
    const at = (...path: Array<string | number>) => [...scenario.requestPaths[index], ...path];
    if (request.path !== undefined) visit(request.path, at("path"));
    if (request.url !== undefined) visit(request.url, at("url"));
    for (const [key, value] of Object.entries(request.query ?? {})) visit(String(value), at("query", key));
    for (const [key, value] of Object.entries(request.headers ?? {})) visit(value, at("headers", key));
    if (request.body !== undefined && !jsonDepthExceeds(request.body, MAX_JSON_DEPTH)) {
      visit(typeof request.body === "string" ? request.body : JSON.stringify(request.body), at("body"));
    }
    if (request.json !== undefined && !jsonDepthExceeds(request.json, MAX_JSON_DEPTH)) {
      visit(JSON.stringify(request.json), at("json"));
    }
    for (const [key, value] of Object.entries(request.form ?? {})) visit(String(value), at("form", key));
    for (const [key, value] of Object.entries(request.multipart ?? {})) {
      if (typeof value !== "object") visit(String(value), at("multipart", key));
    }
  });
}
