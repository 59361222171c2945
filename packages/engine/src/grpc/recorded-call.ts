import { performance } from "node:perf_hooks";
import type { Client, Metadata, ServiceError, StatusObject } from "@grpc/grpc-js";
import { type ErrorKind, GRPC_STATUS_BASE, GRPC_STATUS_NAMES, grpcStatusKey } from "@volley/protocol";
import type { RequestRecorder } from "@volley/stats";
import { grpcLibraries } from "./grpc-library.js";
import type { GrpcMethod } from "./proto-package.js";

/** What a call ended with: its status, the server's messages' metadata, and the answer (unary). */
export interface GrpcReply {
  /** The status code (0 is OK). */
  code: number;
  /** `OK`, `NOT_FOUND`, ... */
  status: string;
  details: string;
  message: object | null;
  /** Header metadata, then trailers, by key (binary values base64). */
  metadata: Record<string, string>;
}

export interface GrpcCallOptions {
  /** The call's name: its latency, status and bytes (and a stream's messages). */
  recorder: RequestRecorder;
  timeoutMs: number;
  metadata?: Readonly<Record<string, string>>;
  /** Codes that are success. @defaultValue [0] (OK) */
  expected?: readonly number[];
  /** performance.now() the latency counts from (an arrival-rate schedule). @defaultValue now */
  startedAt?: number;
  /** Cancels the call (recorded as `aborted`). */
  signal?: AbortSignal;
  /** Judges an answer with an expected status before it is recorded (captures that find nothing). */
  judge?: (reply: GrpcReply) => [ErrorKind, string] | null;
}

/** An ended call as recorded: its reply and, when it failed, how. */
export interface GrpcOutcome {
  reply: GrpcReply;
  failure: [ErrorKind, string] | null;
}

const CANCELLED = 1;
const DEADLINE_EXCEEDED = 4;

function toMetadata(values: Readonly<Record<string, string>> | undefined): Metadata {
  const metadata = new (grpcLibraries().grpc.Metadata)();
  for (const [key, value] of Object.entries(values ?? {})) metadata.add(key, value);
  return metadata;
}

function fromMetadata(target: Record<string, string>, metadata: Metadata | undefined): void {
  if (!metadata) return;
  for (const [key, value] of Object.entries(metadata.getMap())) {
    target[key] = typeof value === "string" ? value : Buffer.from(value).toString("base64");
  }
}

/** How a status reads as a failure (null: it is one the call expects). */
function failureOf(
  code: number,
  details: string,
  expected: readonly number[],
  cancelled: string | null,
  timeoutMs: number,
): [ErrorKind, string] | null {
  if (cancelled !== null) return ["aborted", cancelled];
  if (expected.includes(code)) return null;
  if (code === DEADLINE_EXCEEDED)
    return ["timeout", `no answer within ${timeoutMs} ms (${grpcStatusKey(code)})`];
  return ["status", `${grpcStatusKey(code)}${details ? `: ${details}` : ""}`];
}

/**
 * One call being measured: bytes counted as answers are deserialised (the request's by the
 * caller, which serialises it first), the status and latency recorded once, when the call ends
 * (or is cancelled: never later).
 */
export class CallMeter {
  bytesIn = 0;
  bytesOut = 0;
  /** Why the call was cancelled from this side; null while it was not. */
  cancelled: string | null = null;
  readonly metadata: Record<string, string> = {};
  private readonly started: number;
  private recorded = false;

  constructor(
    readonly method: GrpcMethod,
    readonly options: GrpcCallOptions,
    /** A streaming call counts each message (with its bytes) as it goes. */
    private readonly streaming: boolean,
  ) {
    this.started =
      options.startedAt !== undefined && options.startedAt >= 0 ? options.startedAt : performance.now();
  }

  readonly deserialize = (bytes: Buffer): object => {
    if (this.streaming) this.options.recorder.recordMessage(false, bytes.length);
    else this.bytesIn += bytes.length;
    return this.method.responseDeserialize(bytes);
  };

  get callOptions(): { deadline: number } {
    return { deadline: Date.now() + this.options.timeoutMs };
  }

  get requestMetadata(): Metadata {
    return toMetadata(this.options.metadata);
  }

  onMetadata = (metadata: Metadata): void => fromMetadata(this.metadata, metadata);

  /** Records the call's end with its status (once); returns the outcome. */
  end(status: Pick<StatusObject, "code" | "details" | "metadata">, message: object | null): GrpcOutcome {
    fromMetadata(this.metadata, status.metadata);
    if (this.recorded && this.cancelled !== null) status = { ...status, code: CANCELLED };
    const code = status.code in GRPC_STATUS_NAMES ? status.code : 2;
    const reply = {
      code,
      status: GRPC_STATUS_NAMES[code],
      details: status.details,
      message,
      metadata: this.metadata,
    };
    const failure =
      failureOf(code, status.details, this.options.expected ?? [0], this.cancelled, this.options.timeoutMs) ??
      (this.recorded ? null : (this.options.judge?.(reply) ?? null));
    if (!this.recorded) {
      this.recorded = true;
      const latencyUs = (performance.now() - this.started) * 1000;
      this.options.recorder.record(
        latencyUs,
        GRPC_STATUS_BASE + code,
        this.bytesIn,
        this.bytesOut,
        failure?.[0],
        failure?.[1],
      );
    }
    return { reply, failure };
  }

  /** Cancels `call`, recorded now (not when grpc-js reports it: the slice's last batch has it). */
  cancelNow(call: { cancel(): void }, reason = "the call was cancelled at the end of gracefulStop"): void {
    if (this.recorded) return;
    this.cancelled = reason;
    this.end({ code: CANCELLED, details: "cancelled", metadata: undefined as unknown as Metadata }, null);
    call.cancel();
  }

  /** Cancels `call` when the signal fires; returns what stops listening. */
  cancelOn(call: { cancel(): void }): () => void {
    const { signal } = this.options;
    if (!signal) return () => {};
    const cancel = () => this.cancelNow(call);
    if (signal.aborted) queueMicrotask(cancel);
    else signal.addEventListener("abort", cancel, { once: true });
    return () => signal.removeEventListener("abort", cancel);
  }
}

/** A unary call, measured: resolves with its outcome whatever the status (it never rejects). */
export function unaryCall(
  client: Client,
  method: GrpcMethod,
  message: object,
  options: GrpcCallOptions,
): Promise<GrpcOutcome> {
  const meter = new CallMeter(method, options, false);
  // Serialised first: a message that does not fit the request type is the caller's error, not a call.
  const bytes = requestBytes(method, message);
  meter.bytesOut = bytes.length;
  return new Promise((resolve) => {
    let stopListening = () => {};
    const call = client.makeUnaryRequest(
      method.path,
      (b: Buffer) => b,
      meter.deserialize,
      bytes,
      meter.requestMetadata,
      meter.callOptions,
      (error: ServiceError | null, response?: object) => {
        stopListening();
        resolve(
          meter.end(
            error ?? { code: 0, details: "", metadata: undefined as unknown as Metadata },
            response ?? null,
          ),
        );
      },
    );
    call.on("metadata", meter.onMetadata);
    stopListening = meter.cancelOn(call);
  });
}

/** A request message as bytes; a TypeError naming the method when it does not fit its type. */
export function requestBytes(method: GrpcMethod, message: object): Buffer {
  try {
    return method.requestSerialize(message);
  } catch (error) {
    throw new TypeError(
      `the message does not fit ${method.name}'s request type: ${(error as Error).message}`,
    );
  }
}
