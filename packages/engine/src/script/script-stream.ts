import { performance } from "node:perf_hooks";
import { STREAM_METHODS, type StreamTiming, streamStatsName } from "@volley/protocol";
import type { HttpStream, StreamOptions } from "@volley/script";
import type { RequestRecorder } from "@volley/stats";
import type { Dispatcher } from "undici";
import { type StreamEvent, StreamReader } from "../http/stream-reader.js";
import type { VuOrigin } from "../vu/vu-context.js";
import { startedCall } from "./call-stamps.js";
import { prepareScriptRequest, type ScriptHttpSettings, type ScriptRequester } from "./script-prepare.js";
import { RequestFailedError, ScriptRequest } from "./script-request.js";

/** The stream's `until` event arrived, or the script stopped reading: the request ends answered. */
const STREAM_DONE = new Error("the stream ended before the response did");

/** Events read and not yet taken by the script, in order, and the one waiting for the next. */
class EventQueue {
  private readonly events: StreamEvent[] = [];
  private waiter: { resolve: (r: IteratorResult<StreamEvent>) => void; reject: (e: Error) => void } | null =
    null;
  private ended: Error | null | undefined = undefined;

  push(event: StreamEvent): void {
    if (this.waiter) {
      const { resolve } = this.waiter;
      this.waiter = null;
      resolve({ value: event, done: false });
    } else this.events.push(event);
  }

  /** No more events: `error` fails the script's read (a request that failed). */
  end(error: Error | null): void {
    if (this.ended !== undefined) return;
    this.ended = error;
    const waiter = this.waiter;
    this.waiter = null;
    if (waiter) error ? waiter.reject(error) : waiter.resolve({ value: undefined, done: true });
  }

  next(): Promise<IteratorResult<StreamEvent>> {
    const event = this.events.shift();
    if (event) return Promise.resolve({ value: event, done: false });
    if (this.ended !== undefined) {
      return this.ended ? Promise.reject(this.ended) : Promise.resolve({ value: undefined, done: true });
    }
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }
}

/**
 * `vu.http.stream(method, url, options)`: resolves with the answer's head as soon as it arrives,
 * then hands the script each event as it comes (`for await (const ev of stream.events())`). The
 * request is recorded when the stream ends (its end, `until`, or the script leaving the loop),
 * with its first byte, first event and gaps as a declarative stream's are.
 */
export function scriptStream(
  settings: ScriptHttpSettings,
  vu: ScriptRequester,
  method: string,
  url: string,
  options: StreamOptions = {},
): Promise<HttpStream> {
  const prepared = prepareScriptRequest(settings, vu, method, url, options);
  const { recorder, path, host } = prepared;
  const name = recorder.name;
  const timing = (t: StreamTiming) => settings.recorders.request(streamStatsName(name, t), STREAM_METHODS[t]);
  const queue = new EventQueue();
  const reader = new StreamReader(
    { kind: options.stream?.kind ?? "sse", until: options.stream?.until ?? null },
    { firstEvent: timing("firstEventMs"), gap: timing("gapMs") },
    (event) => queue.push(event),
  );
  let stopped = false;
  let made: StreamingRequest | null = null;
  const answer = new Promise<HttpStream>((resolveHead, rejectHead) => {
    let request: StreamingRequest;
    const onAnswer = (status: number, bytesIn: number, bytesOut: number, latencyUs: number) => {
      if (status >= 400)
        recorder.record(latencyUs, status, bytesIn, bytesOut, "status", `unexpected status ${status}`);
      else recorder.record(latencyUs, status, bytesIn, bytesOut);
      queue.end(null);
      vu.untrack(request);
    };
    const onFailure = (error: Error) => {
      queue.end(error);
      rejectHead(error);
      vu.untrack(request);
    };
    request = new StreamingRequest(
      prepared.origin,
      prepared.dispatch,
      recorder,
      prepared.timeoutMs,
      settings.maxBodyBytes,
      prepared.estimatedBytesOut,
      vu.takeScheduledStart(),
      onAnswer,
      onFailure,
    );
    request.reader = reader;
    request.isStopped = () => stopped;
    request.onHead = (status, rawHeaders, latencyUs) => {
      timing("firstByteMs").record(latencyUs, 0, 0, 0);
      reader.begin(performance.now() - latencyUs / 1000);
      if (vu.cookies !== null) {
        for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
          if (rawHeaders[i].toString().toLowerCase() === "set-cookie")
            vu.cookies.store(rawHeaders[i + 1].toString(), host, path);
        }
      }
      resolveHead({
        status,
        events: () => ({
          [Symbol.asyncIterator]: () => ({
            next: () => queue.next(),
            return: () => {
              // The script left the loop: the stream ends here, answered.
              stopped = true;
              request.stop();
              queue.end(null);
              return Promise.resolve({ value: undefined, done: true });
            },
          }),
        }),
      });
    };
    made = request;
    vu.send(request);
  });
  if (made !== null) startedCall(answer, made);
  return answer;
}

/** A script request whose body is read as a stream of events rather than kept. */
class StreamingRequest extends ScriptRequest {
  constructor(
    origin: VuOrigin,
    options: Dispatcher.DispatchOptions,
    recorder: RequestRecorder,
    timeout: number,
    maxBody: number,
    bytesOut: number,
    startedAt: number,
    private readonly onAnswer: (status: number, bytesIn: number, bytesOut: number, latencyUs: number) => void,
    private readonly onFailure: (error: Error) => void,
  ) {
    super(origin, options, recorder, timeout, maxBody, bytesOut, startedAt, false);
  }

  protected answered(latencyUs: number): void {
    this.onAnswer(this.status, this.bytesIn, this.bytesOut, latencyUs);
  }

  protected failed(error: Error): void {
    this.onFailure(error);
  }

  reader: StreamReader | null = null;
  isStopped: () => boolean = () => false;
  onHead: ((status: number, rawHeaders: Buffer[] | string[], latencyUs: number) => void) | null = null;

  override onHeaders(
    status: number,
    rawHeaders: Buffer[] | string[],
    resume: () => void,
    statusText: string,
  ): boolean {
    const result = super.onHeaders(status, rawHeaders, resume, statusText);
    this.onHead?.(status, rawHeaders, this.latencyUs());
    return result;
  }

  protected override get readsEachChunk(): boolean {
    return this.reader !== null && !this.reader.done;
  }

  override onData(chunk: Buffer): boolean {
    const reader = this.reader;
    if (reader !== null && !reader.done) {
      reader.read(chunk, performance.now());
      if (reader.done) this.stop();
    }
    return super.onData(chunk);
  }

  /** Ends the request now, as answered (the `until` event, or the script stopped reading). */
  stop(): void {
    this.abortRequest?.(STREAM_DONE);
  }

  override onError(error: Error): void {
    if (error === STREAM_DONE || this.reader?.done || this.isStopped()) this.onComplete();
    else super.onError(error);
  }
}

export { RequestFailedError };
