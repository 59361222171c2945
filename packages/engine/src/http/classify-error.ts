import type { ErrorKind } from "@volley/protocol";

const CONNECT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EADDRNOTAVAIL",
  "UND_ERR_CONNECT_TIMEOUT",
  "ERR_TLS_CERT_ALTNAME_INVALID",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "CERT_HAS_EXPIRED",
  "ERR_SSL_WRONG_VERSION_NUMBER",
]);
const TIMEOUT_CODES = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "ETIMEDOUT"]);
const RESET_CODES = new Set(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET", "UND_ERR_CLOSED", "ECONNABORTED"]);

/** Sorts a transport error into the report's error kinds. */
export function classifyError(error: unknown): ErrorKind {
  const code = (error as { code?: string } | null)?.code ?? "";
  if (code === "UND_ERR_ABORTED") return "aborted";
  // The target answered with something that is not HTTP (Volley's client, or undici's parser).
  if (code === "VOL_ERR_PROTOCOL" || code === "HPE_INVALID_CONSTANT" || code.startsWith("HPE_"))
    return "protocol";
  if (CONNECT_CODES.has(code)) return "connect";
  if (TIMEOUT_CODES.has(code)) return "timeout";
  if (RESET_CODES.has(code)) return "reset";
  return "other";
}

/** A short message for the report: the error's code and message, without stack. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: string }).code;
    const cause = (error as { cause?: unknown }).cause;
    const base = code && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
    return cause instanceof Error && !base.includes(cause.message) ? `${base} (${cause.message})` : base;
  }
  return String(error);
}
