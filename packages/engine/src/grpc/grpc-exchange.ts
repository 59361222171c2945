import type { ErrorKind } from "@volley/protocol";
import { type CompiledGrpc, grpcMessage, grpcMetadata } from "../scenario/compiled-grpc.js";
import type { TemplateContext } from "../scenario/compiled-template.js";
import { readCapture } from "../vu/capture-values.js";
import type { VuContext } from "../vu/vu-context.js";
import { type GrpcReply, unaryCall } from "./recorded-call.js";

/** What a `grpc:` request needs of the VU it runs for. */
export interface GrpcExchangeOwner {
  readonly number: number;
  readonly ctx: VuContext;
  readonly template: TemplateContext;
  /** The call is over: it succeeded (failure null), failed, or was aborted. */
  grpcDone(failure: [ErrorKind, string] | null): void;
}

/**
 * A declarative `grpc:` request: one unary call on the VU's channel to the target (kept from
 * call to call like a keep-alive connection), its captures read from the answer. A VU holds one.
 */
export class GrpcExchange {
  active = false;
  private run = 0;
  private abortController: AbortController | null = null;

  constructor(private readonly owner: GrpcExchangeOwner) {}

  start(index: number, scheduledAt: number): void {
    const run = ++this.run;
    this.active = true;
    this.abortController = new AbortController();
    const { ctx, template } = this.owner;
    const request = ctx.requests[index];
    const grpc = request.grpc as CompiledGrpc;
    let message: object;
    try {
      message = grpcMessage(grpc, template);
    } catch (error) {
      // A rendered message that is not JSON sends nothing: the step fails, no call is counted.
      queueMicrotask(() =>
        this.done(run, ["other", `the rendered message is not JSON: ${(error as Error).message}`]),
      );
      return;
    }
    let outcome: ReturnType<typeof unaryCall>;
    try {
      outcome = unaryCall(ctx.grpc.forVu(this.owner.number, grpc.target), grpc.method, message, {
        recorder: ctx.recorders[index],
        timeoutMs: grpc.timeoutMs,
        metadata: grpcMetadata(grpc, template),
        expected: grpc.expected,
        startedAt: scheduledAt,
        signal: this.abortController.signal,
        judge:
          request.captures.length === 0
            ? undefined
            : (reply) => captureFrom(reply, request.captures, template.vars),
      });
    } catch (error) {
      queueMicrotask(() => this.done(run, ["other", (error as Error).message]));
      return;
    }
    void outcome.then(({ failure }) => this.done(run, failure));
  }

  private done(run: number, failure: [ErrorKind, string] | null): void {
    if (run !== this.run || !this.active) return; // aborted: the VU ended it already
    this.active = false;
    this.owner.grpcDone(failure);
  }

  /** Ends the call now (the end of gracefulStop): cancelled and recorded at once, the VU told at once. */
  abort(): void {
    if (!this.active) return;
    this.active = false;
    this.run++;
    this.abortController?.abort();
  }
}

/** Captures from an answer: `json.*` and `regex:` read the message as JSON, `header.*` its metadata. */
function captureFrom(
  reply: GrpcReply,
  captures: VuContext["requests"][number]["captures"],
  vars: Record<string, string>,
): [ErrorKind, string] | null {
  if (captures.length === 0) return null;
  const text = JSON.stringify(reply.message ?? {});
  const metadata = Object.entries(reply.metadata).flat();
  const parsed = { value: reply.message as unknown, done: true };
  for (const capture of captures) {
    const value = readCapture(capture, text, metadata, parsed);
    if (value === undefined) return ["expect", `capture "${capture.variable}" found nothing`];
    vars[capture.variable] = value;
  }
  return null;
}
