import type { CompiledCapture } from "../scenario/compiled-request.js";

/**
 * Reads a capture from a response. Returns undefined when the value is missing; the VU reports
 * that as an `expect` failure. `body` is parsed as JSON at most once per response (`parsed` caches it).
 */
export function readCapture(
  capture: CompiledCapture,
  body: string,
  rawHeaders: Buffer[] | string[] | null,
  parsed: { value?: unknown; done: boolean },
): string | undefined {
  const source = capture.source;
  switch (source.kind) {
    case "header":
      return headerValue(rawHeaders, source.name);
    case "regex": {
      const match = capture.regex?.exec(body);
      if (!match) return undefined;
      return match[1] ?? match[0];
    }
    case "json": {
      if (!parsed.done) {
        parsed.done = true;
        try {
          parsed.value = JSON.parse(body);
        } catch {
          parsed.value = undefined;
        }
      }
      let value: unknown = parsed.value;
      for (const key of source.path) {
        if (value === null || typeof value !== "object") return undefined;
        value = (value as Record<string | number, unknown>)[key];
      }
      if (value === undefined || value === null) return undefined;
      return typeof value === "object" ? JSON.stringify(value) : String(value);
    }
  }
}

function headerValue(rawHeaders: Buffer[] | string[] | null, name: string): string | undefined {
  if (!rawHeaders) return undefined;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (rawHeaders[i].toString().toLowerCase() === name) return rawHeaders[i + 1].toString();
  }
  return undefined;
}
