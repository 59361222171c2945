import type { ErrorKind } from "@volley/protocol";
import { type CompiledRequest, statusAccepted } from "../scenario/compiled-request.js";
import { readCapture } from "./capture-values.js";
import { DecodedBodyTooLargeError, decodeBody } from "./http-session.js";

/** What a VU kept of a response for its checks. */
export interface ReceivedResponse {
  status: number;
  /** Body chunks, kept only when a capture or expectation reads the body. */
  chunks: Buffer[] | null;
  bodyTooLarge: boolean;
  rawHeaders: Buffer[] | string[] | null;
  /** Content-Encoding to undo (compression on), or null. */
  encoding: string | null;
}

/** Checks expectations and runs captures into `vars`; returns the failure, or null. */
export function checkResponse(
  request: CompiledRequest,
  response: ReceivedResponse,
  maxBodyBytes: number,
  vars: Record<string, string>,
): [ErrorKind, string] | null {
  if (!statusAccepted(request, response.status)) return ["status", `unexpected status ${response.status}`];
  if (!request.needsBody && request.captures.length === 0) return null;
  if (response.bodyTooLarge) {
    return ["expect", `response body is larger than http.maxBodyBytes (${maxBodyBytes} bytes)`];
  }
  let body = "";
  if (response.chunks) {
    try {
      body = decodeBody(Buffer.concat(response.chunks), response.encoding, maxBodyBytes);
    } catch (error) {
      if (error instanceof DecodedBodyTooLargeError) return ["expect", error.message];
      return ["expect", `cannot decode the ${response.encoding} body: ${(error as Error).message}`];
    }
  }
  if (request.expectBody !== null && !body.includes(request.expectBody)) {
    return ["expect", `body does not contain "${request.expectBody}"`];
  }
  const parsed = { value: undefined as unknown, done: false };
  for (const capture of request.captures) {
    const value = readCapture(capture, body, response.rawHeaders, parsed);
    if (value === undefined) return ["expect", `capture "${capture.variable}" found nothing`];
    vars[capture.variable] = value;
  }
  return null;
}
