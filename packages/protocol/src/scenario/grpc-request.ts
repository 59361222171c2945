import { z } from "zod";
import { GRPC_STATUS_NAMES, grpcStatusCode } from "../grpc/grpc-status.js";
import { jsonDepthExceeds, MAX_JSON_DEPTH } from "../json-depth.js";
import { CONTROL_RE, relativeFileSchema } from "./text-rules.js";

/**
 * The `method` of gRPC statistics: each call (unary or streaming) is a request of this method,
 * its status counted as `grpc:NAME`.
 */
export const GRPC_METHOD = "GRPC";

/** A .proto file's path, relative to the scenario file (its imports travel with it). */
export const protoPathSchema = relativeFileSchema("protos/greeter.proto").refine(
  (path) => path.endsWith(".proto"),
  { error: "a proto file's name ends in .proto" },
);

/** `package.Service/Method`, as gRPC names a method (the package may be empty). */
export const GRPC_METHOD_RE = /^(?:[A-Za-z_][A-Za-z0-9_]*\.)*[A-Za-z_][A-Za-z0-9_]*\/[A-Za-z_][A-Za-z0-9_]*$/;

/** Metadata keys as gRPC allows them: lower-case letters, digits, `-`, `_`, `.`. */
const METADATA_KEY_RE = /^[0-9a-z_.-]+$/;

/** `grpc:` on a request: a unary call of `method` with `message` (templates in its strings). */
export const grpcCallSchema = z.strictObject({
  proto: protoPathSchema,
  method: z.string().max(500).regex(GRPC_METHOD_RE, {
    error: 'method is "package.Service/Method", as in the .proto (e.g. helloworld.Greeter/SayHello)',
  }),
  /** The request message as JSON (proto field names); strings may hold templates. @defaultValue {} */
  message: z
    .record(z.string(), z.unknown())
    .refine((message) => !jsonDepthExceeds(message, MAX_JSON_DEPTH), {
      error: `is nested more than ${MAX_JSON_DEPTH} levels deep`,
    })
    .default({}),
  metadata: z
    .record(
      z.string().regex(METADATA_KEY_RE, {
        error: "a metadata key is lower-case letters, digits, -, _ and .",
      }),
      z
        .string()
        .max(16_384)
        .refine((value) => !CONTROL_RE.test(value), {
          error: "a metadata value must not hold control characters",
        }),
    )
    .refine((metadata) => Object.keys(metadata).length <= 100, { error: "at most 100 metadata entries" })
    .optional(),
});
export type GrpcCall = z.output<typeof grpcCallSchema>;

const statusValue = z.union([z.string(), z.number()]);

/** `expect.grpcStatus`: a status or a list of them, by name (`NOT_FOUND`) or number; as codes. */
export const grpcStatusExpectationSchema = z
  .union([statusValue, z.array(statusValue).min(1).max(17)], {
    error: "grpcStatus is a status (NOT_FOUND, or 5) or a list of them",
  })
  .transform((value, ctx) => {
    const codes: number[] = [];
    for (const status of Array.isArray(value) ? value : [value]) {
      const code = grpcStatusCode(status);
      if (code === undefined) {
        ctx.addIssue({
          code: "custom",
          message: `"${status}" is not a gRPC status: use a name (${GRPC_STATUS_NAMES.slice(0, 3).join(", ")}, ...) or 0-16`,
        });
        return z.NEVER;
      }
      codes.push(code);
    }
    return codes;
  });

/** Fields of a request that a `grpc:` request does not take, and why. */
const NOT_FOR_GRPC: Readonly<Record<string, string>> = {
  path: "a grpc request calls grpc.method on the target, not a path",
  url: "a grpc request calls grpc.method on the target, not a url",
  query: "a grpc request has no query: put values in grpc.message",
  headers: "a grpc request sends grpc.metadata, not headers",
  body: "a grpc request sends grpc.message, not a body",
  json: "a grpc request sends grpc.message, not a body",
  form: "a grpc request sends grpc.message, not a body",
  multipart: "a grpc request sends grpc.message, not a body",
  stream: "a grpc request in a scenario is unary: stream from a script (vu.grpc)",
  ws: "a request is either grpc or ws",
  steps: "steps go with ws: a WebSocket request",
};

/** What a `grpc:` request has that it must not (or lacks), field by field. */
export function grpcRequestProblems(
  request: Record<string, unknown> & { method: string; expect?: Record<string, unknown> },
): Array<{ field: string; message: string }> {
  const problems = Object.entries(NOT_FOR_GRPC)
    .filter(([field]) => request[field] !== undefined)
    .map(([field, message]) => ({ field, message }));
  if (request.method !== "GET") {
    problems.push({ field: "method", message: "a grpc request names its method in grpc.method" });
  }
  for (const field of ["status", "body"]) {
    if (request.expect?.[field] !== undefined) {
      problems.push({ field: `expect.${field}`, message: "a grpc request expects a grpcStatus" });
    }
  }
  return problems;
}

/** Whether a scenario's target speaks gRPC (`grpc://` plaintext, `grpcs://` TLS). */
export function isGrpcTarget(target: string): boolean {
  return target.startsWith("grpc://") || target.startsWith("grpcs://");
}

/** What carried a name's messages, as reports say it: a WebSocket, or a gRPC stream. */
export function messageKind(method: string): string {
  return method === GRPC_METHOD ? "gRPC stream" : "WebSocket";
}
