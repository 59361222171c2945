import type { IncomingMessage, ServerResponse } from "node:http";
import type { Http2ServerRequest, Http2ServerResponse } from "node:http2";
import { gzipSync } from "node:zlib";

/** A request as both servers give it (HTTP/1.1, and h2c through node's compatibility API). */
export type DemoRequest = IncomingMessage | Http2ServerRequest;
export type DemoResponse = ServerResponse | Http2ServerResponse;

/** Largest request body the demo reads; a bigger one is a 413. */
export const MAX_BODY_BYTES = 1024 * 1024;

export class TooLargeError extends Error {}

/** The request's body, whole (at most MAX_BODY_BYTES). */
export async function readBody(req: DemoRequest): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new TooLargeError();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** A JSON body or a form body as a flat record (other bodies: empty). */
export function fields(req: DemoRequest, body: Buffer): Record<string, unknown> {
  const type = String(req.headers["content-type"] ?? "");
  if (type.includes("application/x-www-form-urlencoded")) {
    return Object.fromEntries(new URLSearchParams(body.toString("utf8")));
  }
  if (body.length === 0) return {};
  try {
    const value = JSON.parse(body.toString("utf8")) as unknown;
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** Answers JSON, gzipped when the client takes it and the body is worth it. */
export function sendJson(req: DemoRequest, res: DemoResponse, status: number, value: unknown): void {
  let body = Buffer.from(JSON.stringify(value));
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (body.length > 1024 && /\bgzip\b/.test(String(req.headers["accept-encoding"] ?? ""))) {
    body = gzipSync(body);
    headers["content-encoding"] = "gzip";
  }
  headers["content-length"] = String(body.length);
  res.writeHead(status, headers);
  res.end(body);
}

export function sendText(res: DemoResponse, status: number, text: string, type = "text/plain"): void {
  const body = Buffer.from(text);
  res.writeHead(status, { "content-type": `${type}; charset=utf-8`, "content-length": String(body.length) });
  res.end(body);
}

/** The cookie `name` of a request, or undefined. */
export function cookie(req: DemoRequest, name: string): string | undefined {
  for (const part of String(req.headers.cookie ?? "").split(";")) {
    const [key, ...value] = part.trim().split("=");
    if (key === name) return value.join("=");
  }
  return undefined;
}

/** A number from the query within [min, max], else `fallback`. */
export function bounded(text: string | null, fallback: number, min: number, max: number): number {
  const value = Number(text);
  return text !== null && Number.isFinite(value) ? Math.min(max, Math.max(min, value)) : fallback;
}
