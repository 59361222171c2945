import type { VuHttp } from "../index.js";

/**
 * The contract between the bundler and the engine for knowing where a script made a request
 * without a stack capture per request (a capture costs microseconds; a script's `vu.http.get`
 * costs about as much in all). When a run's script is bundled, each call in the user's own files
 * that may be a `vu.http` call is wrapped as `__volleyAt("flow.ts:12", vu.http.get(...))`; the
 * engine installs the function under this key before it imports the bundle, and it gives the
 * place to the request whose answer the call returned.
 */
export const CALL_SITE_KEY = "volley.callSite";

/** The function a bundle calls: gives `place` to the request `answer` belongs to; returns `answer`. */
export type CallSiteStamp = (place: string, answer: unknown) => unknown;

/**
 * The `vu.http` methods a call may be named (also called unqualified: `const { get } = vu.http`).
 * A call named otherwise (an alias, `const fetch = vu.http.get`) is found by a stack capture.
 */
export const HTTP_CALL_NAMES = [
  "get",
  "post",
  "put",
  "patch",
  "delete",
  "request",
  "batch",
  "stream",
] as const satisfies readonly (keyof VuHttp)[];

// Every method of VuHttp is listed: a method added to the API without its name here fails to compile.
type Unlisted = Exclude<keyof VuHttp, (typeof HTTP_CALL_NAMES)[number]>;
const everyMethodListed: Unlisted extends never ? true : never = true;
void everyMethodListed;
