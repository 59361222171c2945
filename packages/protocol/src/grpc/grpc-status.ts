/** gRPC status codes by number (the index), as the gRPC specification names them. */
export const GRPC_STATUS_NAMES = [
  "OK",
  "CANCELLED",
  "UNKNOWN",
  "INVALID_ARGUMENT",
  "DEADLINE_EXCEEDED",
  "NOT_FOUND",
  "ALREADY_EXISTS",
  "PERMISSION_DENIED",
  "RESOURCE_EXHAUSTED",
  "FAILED_PRECONDITION",
  "ABORTED",
  "OUT_OF_RANGE",
  "UNIMPLEMENTED",
  "INTERNAL",
  "UNAVAILABLE",
  "DATA_LOSS",
  "UNAUTHENTICATED",
] as const;
export type GrpcStatusName = (typeof GRPC_STATUS_NAMES)[number];

/**
 * A recorder counts statuses by number: HTTP's as they are (100-599), gRPC's as this plus the
 * code, so one counter table keeps both and each reports under its own key.
 */
export const GRPC_STATUS_BASE = 1000;

/** The key a gRPC status is counted under in `statusCodes`: `grpc:OK`, `grpc:UNAVAILABLE`. */
export function grpcStatusKey(code: number): string {
  return `grpc:${GRPC_STATUS_NAMES[code] ?? "UNKNOWN"}`;
}

/** A `statusCodes` key: an HTTP status (3 digits) or a gRPC status (`grpc:NAME`). */
export const STATUS_KEY_RE = new RegExp(`^(\\d{3}|grpc:(${GRPC_STATUS_NAMES.join("|")}))$`);

/** The key a recorded status number reports under (see GRPC_STATUS_BASE). */
export function statusKey(status: number): string {
  return status >= GRPC_STATUS_BASE ? grpcStatusKey(status - GRPC_STATUS_BASE) : String(status);
}

/** A gRPC status by name or number (`NOT_FOUND`, `5`), as its number; undefined when it is neither. */
export function grpcStatusCode(status: string | number): number | undefined {
  if (typeof status === "number")
    return Number.isInteger(status) && status >= 0 && status <= 16 ? status : undefined;
  const index = GRPC_STATUS_NAMES.indexOf(status.toUpperCase() as GrpcStatusName);
  return index >= 0 ? index : undefined;
}

/** Whether a `statusCodes` key is a failing answer: HTTP 400 and up, or a gRPC status other than OK. */
export function isFailingStatusKey(key: string): boolean {
  return key.startsWith("grpc:") ? key !== "grpc:OK" : Number(key) >= 400;
}
