import type { StatusRange } from "@volley/protocol";
import type { HttpResponse, RequestOptions, ResponseTimings } from "@volley/script";
import { DecodedBodyTooLargeError, decodeBody } from "../vu/http-session.js";
import { bundleCallSite } from "./call-site.js";
import { startedCall } from "./call-stamps.js";
import {
  NO_OPTIONS,
  type PreparedRequest,
  plainName,
  prepareScriptRequest,
  type ScriptHttpSettings,
  type ScriptRequester,
} from "./script-prepare.js";
import { RequestFailedError, ScriptRequest } from "./script-request.js";
import { statusExpectation } from "./status-expectation.js";

/** Sends one scripted request and gives the script its answer; every call is one recorded request. */
export function scriptRequest(
  settings: ScriptHttpSettings,
  vu: ScriptRequester,
  method: string,
  url: string,
  options: RequestOptions = NO_OPTIONS,
): Promise<HttpResponse> {
  // Checked before anything is prepared: a call it refuses does no work.
  const keepBody = !discards(options);
  const name = plainName(options);
  const prepared =
    name !== null
      ? settings.plain.prepare(settings, vu, method, url, name)
      : prepareScriptRequest(settings, vu, method, url, options);
  const expected = options.expect?.status === undefined ? null : statusExpectation(options.expect.status);
  const call = new HttpCall(settings, vu, prepared, expected, options.expect?.body, keepBody);
  if (vu.locatesCalls !== null) call.callSite = bundleCallSite(vu.locatesCalls);
  const answer = call.promise();
  startedCall(answer, call);
  try {
    vu.send(call);
  } catch (error) {
    call.failed(error as Error);
  }
  return answer;
}

/** Whether the call's answer body is counted and dropped (`discardBody`), once its options are checked. */
function discards(options: RequestOptions): boolean {
  const { discardBody } = options;
  if (discardBody === undefined || discardBody === false) return false;
  if (discardBody !== true) throw new TypeError("vu.http: discardBody must be true or false");
  if (options.expect?.body !== undefined)
    throw new TypeError("vu.http: expect.body reads the answer's body: it cannot be set with discardBody");
  return true;
}

/**
 * One `vu.http.*` call: the request, and the promise the script holds. It settles the promise
 * itself, so a call costs this object and its promise, not closures around them.
 */
class HttpCall extends ScriptRequest {
  /** The call whose promise is being made (the executor runs at once, inside `new Promise`). */
  private static adopting: HttpCall | null = null;
  private resolveAnswer: (response: HttpResponse) => void = ignore;
  private rejectAnswer: (error: Error) => void = ignore;
  private answer: Promise<HttpResponse> | null = null;

  constructor(
    private readonly settings: ScriptHttpSettings,
    private readonly vu: ScriptRequester,
    private readonly prepared: PreparedRequest,
    private readonly expected: readonly StatusRange[] | null,
    private readonly expectBody: string | undefined,
    keepBody: boolean,
  ) {
    super(
      prepared.origin,
      prepared.dispatch,
      prepared.recorder,
      prepared.timeoutMs,
      settings.maxBodyBytes,
      prepared.estimatedBytesOut,
      vu.takeScheduledStart(),
      keepBody,
    );
    this.traceId = prepared.traceId;
  }

  promise(): Promise<HttpResponse> {
    HttpCall.adopting = this;
    this.answer = new Promise<HttpResponse>(HttpCall.adopt);
    HttpCall.adopting = null;
    return this.answer;
  }

  private static adopt(resolve: (response: HttpResponse) => void, reject: (error: Error) => void): void {
    const call = HttpCall.adopting as HttpCall;
    call.resolveAnswer = resolve;
    call.rejectAnswer = reject;
  }

  protected answered(latencyUs: number): void {
    const { vu, settings, prepared, expected, setCookies, status, bytesIn, bytesOut, traceId } = this;
    if (vu.cookies !== null && setCookies !== null) {
      for (const line of setCookies) vu.cookies.store(line, prepared.host, prepared.path);
    }
    const response = new ScriptResponse(
      this,
      status,
      latencyUs,
      settings.compression ? this.encoding : null,
      settings.maxBodyBytes,
      settings.proto,
    );
    const failure = response.problem(this.expectBody);
    const { recorder } = prepared;
    const statusOk = expected
      ? expected.some(([low, high]) => status >= low && status <= high)
      : status < 400;
    if (!statusOk)
      recorder.record(latencyUs, status, bytesIn, bytesOut, "status", `unexpected status ${status}`, traceId);
    else if (failure !== null)
      recorder.record(latencyUs, status, bytesIn, bytesOut, "expect", failure, traceId);
    else recorder.record(latencyUs, status, bytesIn, bytesOut, undefined, undefined, traceId);
    this.resolveAnswer(response);
    // Last: the end of the iteration's last request may end the slice, which sends its final
    // statistics at once; this request's record must be in them.
    vu.untrack(this);
  }

  /**
   * Rejects the script's promise (public: a send that throws at once ends the call here too). A
   * script that does not await the request (k6's http is synchronous: the first thing a k6 user
   * writes) must not turn its failure into an unhandled rejection that ends the thread; one that
   * awaits still gets it. The handler is attached when it fails, not to every answer: it costs a
   * promise.
   */
  override failed(error: Error): void {
    this.vu.untrack(this);
    this.rejectAnswer(error);
    this.answer?.catch(ignore);
  }
}

function ignore(): void {}

/**
 * The answer as the script sees it. Headers and text are made when the script reads them: most
 * scripts read the status only, and a million responses should not each build a header map.
 */
class ScriptResponse implements HttpResponse {
  readonly proto: HttpResponse["proto"];
  private timed: ResponseTimings | null = null;
  private text: string | null = null;
  private headerMap: Record<string, string> | null = null;
  private readonly tooLarge: boolean;
  /** The call set `discardBody`: there is no body to read. */
  private readonly discarded: boolean;

  constructor(
    /** The request it answers, which holds what the answer carries. */
    private readonly request: ScriptRequest,
    readonly status: number,
    private readonly latencyUs: number,
    private readonly encoding: string | null,
    private readonly maxBodyBytes: number,
    proto: HttpResponse["proto"],
  ) {
    this.tooLarge = request.answerTooLarge;
    this.discarded = request.answerDiscarded;
    this.proto = proto;
  }

  get timings(): ResponseTimings {
    this.timed ??= this.request.answerTimings(this.latencyUs);
    return this.timed;
  }

  get headers(): Record<string, string> {
    this.headerMap ??= readHeaders(this.request.answerHeaders());
    return this.headerMap;
  }

  get body(): string {
    if (this.discarded)
      throw new Error("the answer's body was not kept: the request was made with discardBody");
    if (this.text === null) {
      const bytes = this.request.answerBody();
      this.text = bytes === null ? "" : decodeBody(bytes, this.encoding, this.maxBodyBytes);
    }
    return this.text;
  }

  json<T = unknown>(): T {
    return JSON.parse(this.body) as T;
  }

  /** What makes it fail besides its status: too large, not decodable, or lacking `expectBody`. */
  problem(expectBody: string | undefined): string | null {
    if (this.tooLarge) return `response body is larger than http.maxBodyBytes (${this.maxBodyBytes} bytes)`;
    // A discarded body is not decoded either: nothing reads it (and expectBody is not set with it).
    if (this.discarded || (this.encoding === null && expectBody === undefined)) return null;
    let text: string;
    try {
      text = this.body;
    } catch (error) {
      this.text = "";
      if (error instanceof DecodedBodyTooLargeError) return error.message;
      return `cannot decode the body: ${(error as Error).message}`;
    }
    return expectBody !== undefined && !text.includes(expectBody)
      ? `body does not contain "${expectBody}"`
      : null;
  }
}

/** Lower-case names; repeats joined with ", " (set-cookie with "\n", as its values hold commas). */
function readHeaders(raw: Buffer[] | string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i].toString().toLowerCase();
    const value = raw[i + 1].toString();
    const before = headers[name];
    headers[name] = before === undefined ? value : `${before}${name === "set-cookie" ? "\n" : ", "}${value}`;
  }
  return headers;
}

export { locate, type ScriptHttpSettings, type ScriptRequester } from "./script-prepare.js";
export { RequestFailedError };
