import { z } from "zod";
import { positiveDurationSchema } from "../duration.js";
import { jsonDepthExceeds, MAX_JSON_DEPTH } from "../json-depth.js";
import { CaptureSyntaxError, parseCapture } from "./capture.js";
import { grpcCallSchema, grpcStatusExpectationSchema } from "./grpc-request.js";
import { CONTROL_RE, statsNameSchema } from "./text-rules.js";
import { wsStepSchema, wsTargetSchema } from "./ws-request.js";

export { CONTROL_RE, statsNameSchema };

export const HTTP_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** Inclusive status ranges a response must fall in. */
export type StatusRange = [number, number];

const VARIABLE_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** An HTTP field name (RFC 9110 token). */
const HEADER_NAME_RE = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const HEADER_VALUE_BAD_RE = /[\u0000-\u0008\u000a-\u001f\u007f]/;

/** A header a request sends: a token name; a value without CR, LF or NUL (a CR/LF would start a header of its own). */
const headersSchema = z
  .record(
    z.string().min(1).max(200),
    z
      .string()
      .max(16_384)
      .refine((value) => !HEADER_VALUE_BAD_RE.test(value), {
        error: "a header value must not hold CR, LF or other control characters",
      }),
  )
  .superRefine((headers, ctx) => {
    const names = Object.keys(headers);
    if (names.length > 100) ctx.addIssue({ code: "custom", message: "at most 100 headers" });
    for (const name of names) {
      if (!HEADER_NAME_RE.test(name)) {
        ctx.addIssue({
          code: "custom",
          path: [name],
          message: "a header name must be an HTTP token (letters, digits, -)",
        });
      }
    }
  });
/** A multipart part's content type or file name: one line of text. */
const partLineSchema = z
  .string()
  .min(1)
  .max(200)
  .refine((text) => !CONTROL_RE.test(text), { error: "must not hold CR, LF or other control characters" });
const STATUS_RANGE_RE = /^([1-5])xx$|^(\d{3})\s*-\s*(\d{3})$/;

const statusCode = z.int().min(100).max(599);
const statusText = z.string().transform((text, ctx): StatusRange => {
  const match = STATUS_RANGE_RE.exec(text.trim());
  if (match?.[1]) return [Number(match[1]) * 100, Number(match[1]) * 100 + 99];
  if (match && Number(match[2]) <= Number(match[3])) return [Number(match[2]), Number(match[3])];
  ctx.addIssue({ code: "custom", message: `"${text}" is not a status range: use "2xx" or "200-299"` });
  return z.NEVER;
});

const statusItem = z.union([statusCode.transform((code): StatusRange => [code, code]), statusText]);

/** `expect.status`: 200, [200, 201], "2xx" or "200-299"; normalised to inclusive ranges. */
export const statusExpectationSchema = z.union(
  [statusItem.transform((range) => [range]), z.array(statusItem).min(1)],
  { error: 'expected a status code, a list of them, or a range such as "2xx" or "200-299"' },
);

const captureExpression = z.string().superRefine((expression, ctx) => {
  try {
    parseCapture(expression);
  } catch (error) {
    if (error instanceof CaptureSyntaxError) ctx.addIssue({ code: "custom", message: error.message });
    else throw error;
  }
});

export const requestSchema = z.strictObject({
  /** Name the statistics are grouped under. @defaultValue "METHOD path" */
  name: statsNameSchema.optional(),
  method: z
    .string()
    .transform((m) => m.toUpperCase())
    .pipe(z.enum(HTTP_METHODS, { error: `method must be one of ${HTTP_METHODS.join(", ")}` }))
    .default("GET"),
  /** Path on the scenario's target; or `url`. */
  path: z
    .string()
    .startsWith("/", { error: 'path must start with "/"' })
    .max(8192)
    .refine((path) => !CONTROL_RE.test(path), { error: "percent-encode control characters in a path" })
    .optional(),
  /** An absolute URL on another host (templates only after the host); one pool per origin. */
  url: z
    .string()
    .max(8192)
    .regex(/^https?:\/\/[^/{}\s?#]+(\/.*)?$/, {
      error: "url must be absolute (http:// or https://), with templates only after the host",
    })
    .refine((url) => !CONTROL_RE.test(url), { error: "percent-encode control characters in a url" })
    .optional(),
  query: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  headers: headersSchema.optional(),
  /** An object or array is sent as JSON; a string as it is. */
  body: z
    .union([z.string(), z.record(z.string(), z.unknown()), z.array(z.unknown())])
    .refine((body) => !jsonDepthExceeds(body, MAX_JSON_DEPTH), {
      error: `is nested more than ${MAX_JSON_DEPTH} levels deep`,
    })
    .optional(),
  /** Sent as JSON (content-type application/json); strings inside may hold templates. */
  json: z
    .unknown()
    .refine((body) => body !== undefined && !jsonDepthExceeds(body, MAX_JSON_DEPTH), {
      error: `is missing or nested more than ${MAX_JSON_DEPTH} levels deep`,
    })
    .optional(),
  /** Sent as application/x-www-form-urlencoded; values may hold templates. */
  form: z
    .record(
      z.string().min(1),
      z.union([
        z.string(),
        z.number(),
        z.boolean(),
        // A field sent once per value (`topping: [ham, olives]`: topping=ham&topping=olives).
        z
          .array(z.union([z.string(), z.number(), z.boolean()]))
          .min(1)
          .max(100),
      ]),
    )
    .optional(),
  /** Sent as multipart/form-data: text fields (templates allowed) and files (read once, sent from memory). */
  multipart: z
    .record(
      partLineSchema,
      z.union([
        z.string(),
        z.number(),
        z.boolean(),
        z.strictObject({
          file: z.string().min(1).max(500),
          contentType: partLineSchema.default("application/octet-stream"),
          filename: partLineSchema.optional(),
        }),
      ]),
    )
    .refine((fields) => Object.keys(fields).length > 0 && Object.keys(fields).length <= 100, {
      error: "needs 1 to 100 fields",
    })
    .optional(),
  capture: z
    .record(
      z.string().regex(VARIABLE_NAME_RE, { error: "a capture name must be a plain identifier" }),
      captureExpression,
    )
    .optional(),
  expect: z
    .strictObject({
      status: statusExpectationSchema.optional(),
      /** A substring the response body must contain. */
      body: z.string().min(1).optional(),
      /** A `grpc:` request's status(es) that count as success. @defaultValue OK */
      grpcStatus: grpcStatusExpectationSchema.optional(),
    })
    .optional(),
  timeout: positiveDurationSchema.optional(),
  /**
   * The response is a stream of events: Server-Sent Events (`sse`) or lines (`lines`, NDJSON and
   * the like). Besides its latency (to the stream's end) it records time to first byte, to first
   * event and the gaps between events. `until`: an event holding this text ends the stream.
   */
  stream: z
    .strictObject({
      kind: z.enum(["sse", "lines"], { error: 'kind must be "sse" or "lines"' }),
      until: z.string().min(1).max(1000).optional(),
    })
    .optional(),
  /** A WebSocket instead of an HTTP request: a path on the target or a ws(s):// URL (see ws-request.ts). */
  ws: wsTargetSchema.optional(),
  /** What the `ws` request does on its open socket, in order. */
  steps: z.array(wsStepSchema).min(1).max(100).optional(),
  /** A unary gRPC call instead of an HTTP request (see grpc-request.ts); the target is grpc:// or grpcs://. */
  grpc: grpcCallSchema.optional(),
});

export type RequestConfig = z.output<typeof requestSchema>;

/** The body fields of a request: at most one may be set. */
export const BODY_FIELDS = ["body", "json", "form", "multipart"] as const;

/** The files a request's multipart body sends. */
export function multipartFiles(request: RequestConfig): string[] {
  return Object.values(request.multipart ?? {}).flatMap((value) =>
    typeof value === "object" && value !== null ? [value.file] : [],
  );
}
