import type { ErrorKind } from "@volley/protocol";

const CONNECT_CODES = new Set([
  "ECONNREFUSED",
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
  // A TLS alert while writing the handshake (no shared protocol version, say).
  "EPROTO",
]);
/** The name did not resolve (getaddrinfo's answers). */
const DNS_CODES = new Set(["ENOTFOUND", "EAI_AGAIN", "EAI_FAIL", "EAI_NODATA", "EAI_NONAME", "ENODATA"]);
const TIMEOUT_CODES = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "ETIMEDOUT"]);
const RESET_CODES = new Set(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET", "UND_ERR_CLOSED", "ECONNABORTED"]);

/** Sorts a transport error into the report's error kinds. */
export function classifyError(error: unknown): ErrorKind {
  const code = (error as { code?: string } | null)?.code ?? "";
  // undici's ProxyAgent: the proxy refused the CONNECT (a 407, a 403...): no connection was made.
  // Plain HTTP through it: its 407 is turned into an error.
  if (/^Proxy response|^Proxy Authentication Required/.test((error as Error | null)?.message ?? ""))
    return "connect";
  if (code === "UND_ERR_ABORTED") return "aborted";
  // The target answered with something that is not HTTP (Volley's client, or undici's parser).
  if (code === "VOL_ERR_PROTOCOL" || code === "HPE_INVALID_CONSTANT" || code.startsWith("HPE_"))
    return "protocol";
  if (DNS_CODES.has(code)) return "dns";
  // TLS refused in the handshake (an alert: the server wanted a client certificate, no shared
  // protocol version or cipher...): the connection never carried the request.
  if (CONNECT_CODES.has(code) || code.startsWith("ERR_SSL_")) return "connect";
  if (TIMEOUT_CODES.has(code)) return "timeout";
  if (RESET_CODES.has(code)) return "reset";
  return "other";
}

/** A short message for the report: the error's code and message, without stack. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: string }).code;
    const cause = (error as { cause?: unknown }).cause;
    const message = openSslReason(error.message);
    const base = code && !message.includes(code) ? `${code}: ${message}` : message;
    return cause instanceof Error && !base.includes(cause.message) ? `${base} (${cause.message})` : base;
  }
  return String(error);
}

/** OpenSSL's "C0C6...:error:0A00045C:SSL routines:fn:reason:file:line:..." as its reason alone. */
function openSslReason(message: string): string {
  return message.replace(/[0-9A-F]+:error:[0-9A-F]+:[^:]+:[^:]+:([^:]+):[^\n]*/, "$1").trim();
}
