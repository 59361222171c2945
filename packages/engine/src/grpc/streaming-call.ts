import type {
  Client,
  ClientDuplexStream,
  ClientReadableStream,
  ClientWritableStream,
  ServiceError,
  StatusObject,
} from "@grpc/grpc-js";
import { RequestFailedError } from "../http/request-failed-error.js";
import { MessageQueue } from "./message-queue.js";
import type { GrpcMethod } from "./proto-package.js";
import { CallMeter, type GrpcCallOptions, type GrpcOutcome, requestBytes } from "./recorded-call.js";

/**
 * A streaming call, measured: one request under its name from the call's start to its status,
 * each message both ways counted with its bytes. Its messages are read with `for await`; a
 * status that is not OK ends that loop by throwing a RequestFailedError (counted already).
 */
export class StreamingCall {
  readonly messages: MessageQueue<object>;
  /** The call's end as recorded (resolves whatever the status). */
  readonly done: Promise<GrpcOutcome>;
  private readonly call:
    | ClientReadableStream<object>
    | ClientWritableStream<Buffer>
    | ClientDuplexStream<Buffer, object>;
  private readonly meter: CallMeter;
  private ended = false;

  constructor(client: Client, method: GrpcMethod, message: object | null, options: GrpcCallOptions) {
    const meter = new CallMeter(method, options, true);
    this.meter = meter;
    let finish: (outcome: GrpcOutcome) => void = () => {};
    this.done = new Promise((resolve) => {
      finish = resolve;
    });
    let answer: object | null = null;
    const onStatus = (status: StatusObject) => {
      stopListening();
      const outcome = meter.end(status, answer);
      this.ended = true;
      this.messages.end(
        outcome.failure ? new RequestFailedError(outcome.failure[0], outcome.failure[1]) : null,
      );
      finish(outcome);
    };
    const serialize = (b: Buffer) => b;
    if (method.requestStream) {
      // A client stream's one answer comes to its callback; a bidi stream's answers as data.
      this.call = method.responseStream
        ? client.makeBidiStreamRequest(
            method.path,
            serialize,
            meter.deserialize,
            meter.requestMetadata,
            meter.callOptions,
          )
        : client.makeClientStreamRequest(
            method.path,
            serialize,
            meter.deserialize,
            meter.requestMetadata,
            meter.callOptions,
            (_error: ServiceError | null, response?: object) => {
              if (response !== undefined) {
                answer = response;
                this.messages.push(response);
              }
            },
          );
    } else {
      const bytes = requestBytes(method, message ?? {});
      options.recorder.recordMessage(true, bytes.length);
      this.call = client.makeServerStreamRequest(
        method.path,
        serialize,
        meter.deserialize,
        bytes,
        meter.requestMetadata,
        meter.callOptions,
      );
    }
    const call = this.call;
    // A client stream's one answer needs no flow control; the others' reading side pauses.
    const reading = "pause" in call ? call : { pause() {}, resume() {} };
    this.messages = new MessageQueue({ pause: () => reading.pause(), resume: () => reading.resume() });
    call.on("metadata", meter.onMetadata);
    call.on("data", (data: object) => this.messages.push(data));
    call.on("status", onStatus);
    // Errors end in "status" too; the listener keeps an error from being thrown.
    call.on("error", () => {});
    const stopListening = meter.cancelOn(call);
  }

  /** Sends a message on a client or bidi stream. */
  send(message: object): void {
    if (!this.meter.method.requestStream)
      throw new TypeError(`${this.meter.method.name} takes one message, given at the call`);
    if (this.ended) throw new RequestFailedError("closed", "send on a call that has ended");
    const bytes = requestBytes(this.meter.method, message);
    this.meter.options.recorder.recordMessage(true, bytes.length);
    (this.call as ClientWritableStream<Buffer>).write(bytes);
  }

  /** No more messages from this side. */
  end(): void {
    if (this.meter.method.requestStream && !this.ended) (this.call as ClientWritableStream<Buffer>).end();
  }

  get open(): boolean {
    return !this.ended;
  }

  /** Cancels the call now (recorded once, as `aborted`, with `reason`). */
  cancel(reason?: string): void {
    if (this.ended) return;
    this.meter.cancelNow(this.call, reason);
  }
}
