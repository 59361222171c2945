import { CALL_SITE_KEY, type CallSiteStamp } from "@volley/script/call-sites";
import type { ScriptRequest } from "./script-request.js";

/**
 * What the script's latest `vu.http` call returned, and the requests it made. The bundle's stamp
 * (`__volleyAt("flow.ts:12", vu.http.get(...))`, see @volley/script/call-sites) runs as soon as
 * the call returns, before any other script code: an answer that is this one belongs to these
 * requests. One thread runs one script turn at a time, so one record per thread is enough.
 */
let lastAnswer: unknown = null;
let lastRequest: ScriptRequest | null = null;
let lastBatch: readonly ScriptRequest[] | null = null;

/** A call made one request and returned `answer` for it. */
export function startedCall(answer: unknown, request: ScriptRequest): void {
  lastAnswer = answer;
  lastRequest = request;
  lastBatch = null;
}

/** `vu.http.batch` made these requests and returned `answer` for all of them. */
export function startedBatch(answer: unknown, requests: readonly ScriptRequest[]): void {
  lastAnswer = answer;
  lastRequest = null;
  lastBatch = requests;
}

/** The request the latest call made (a batch collects its requests with it). */
export function latestRequest(): ScriptRequest | null {
  return lastRequest;
}

/**
 * Gives `place` to the requests `answer` belongs to. Once only: a helper's call is stamped where
 * the helper makes it (as a stack's first frame in the script would say), and a call named like
 * one of vu.http's (`map.get(key)`) that returns something else stamps nothing. One such call
 * that hands back the very answer of an unstamped call just made (an alias's, then
 * `cache.get(key)` returning it) names that request by its own line: the count stays exact.
 */
const stampCallSite: CallSiteStamp = (place, answer) => {
  if (answer !== lastAnswer || answer === null) return answer;
  lastAnswer = null;
  if (lastRequest !== null) lastRequest.place = place;
  else if (lastBatch !== null) for (const request of lastBatch) request.place = place;
  return answer;
};

/** Makes the stamp the bundles this thread imports call (before it imports them). */
export function installCallSiteStamp(): void {
  (globalThis as Record<symbol, unknown>)[Symbol.for(CALL_SITE_KEY)] = stampCallSite;
}
