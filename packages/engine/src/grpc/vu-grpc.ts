import { GRPC_METHOD, isGrpcTarget } from "@volley/protocol";
import type {
  GrpcCallOptions,
  GrpcClient,
  GrpcConnectOptions,
  GrpcResponse,
  GrpcStream,
} from "@volley/script";
import { RequestFailedError } from "../http/request-failed-error.js";
import type { ScriptHttpSettings } from "../script/script-prepare.js";
import { parseGrpcTarget } from "./grpc-channels.js";
import { unaryCall } from "./recorded-call.js";
import { StreamingCall } from "./streaming-call.js";

type Message = Record<string, unknown>;

/**
 * One scripted VU's gRPC: clients on the VU's channels (kept across iterations), every call
 * recorded under its name. Calls still open when the iteration ends are cancelled; an abort
 * cancels the unary ones too.
 */
export class VuGrpc {
  /** The running iteration's abort, made when a call first needs it (most iterations make none). */
  private iteration: AbortController | null = null;
  private readonly streams = new Set<StreamingCall>();

  constructor(
    private readonly http: ScriptHttpSettings,
    private readonly vu: number,
  ) {}

  connect(options: GrpcConnectOptions): GrpcClient {
    const { http, vu } = this;
    if (typeof options?.proto !== "string") throw new TypeError("vu.grpc.connect: give { proto, target }");
    const target = options.target ?? http.grpcTarget;
    if (target === null || target === undefined) {
      throw new TypeError(
        "vu.grpc.connect: give a target (grpc://host:port or grpcs://host:port): the scenario's is not one",
      );
    }
    if (!isGrpcTarget(target))
      throw new TypeError(`vu.grpc.connect: "${target}" must use grpc:// or grpcs://`);
    parseGrpcTarget(target);
    const proto = http.protos.get(options.proto);
    const calls = this;
    const setup = (method: string, callOptions: GrpcCallOptions = {}) => ({
      method: proto.method(String(method)),
      client: http.grpc.forVu(vu, target),
      options: {
        recorder: http.recorders.request(String(callOptions.name ?? method), GRPC_METHOD),
        timeoutMs: callOptions.timeout ?? http.timeoutMs,
        metadata: callOptions.metadata,
        signal: calls.iterationSignal(),
      },
    });
    const stream = (call: StreamingCall) => {
      calls.streams.add(call);
      void call.done.then(() => calls.streams.delete(call));
      return call;
    };
    return {
      async invoke(method, message, callOptions) {
        const { client, method: found, options: recorded } = setup(method, callOptions);
        const { reply, failure } = await unaryCall(client, found, message ?? {}, recorded);
        // No answer at all (the deadline, an abort) rejects as an HTTP request without one does.
        if (failure && (failure[0] === "timeout" || failure[0] === "aborted")) {
          throw new RequestFailedError(failure[0], failure[1]);
        }
        return reply as GrpcResponse;
      },
      serverStream(method, message, callOptions) {
        const { client, method: found, options: recorded } = setup(method, callOptions);
        if (!found.responseStream || found.requestStream)
          throw new TypeError(`${method} is not a server-streaming method`);
        return stream(new StreamingCall(client, found, message ?? {}, recorded))
          .messages as AsyncIterable<Message>;
      },
      clientStream(method, callOptions) {
        const { client, method: found, options: recorded } = setup(method, callOptions);
        if (!found.requestStream || found.responseStream)
          throw new TypeError(`${method} is not a client-streaming method`);
        return writable(stream(new StreamingCall(client, found, null, recorded)));
      },
      bidiStream(method, callOptions) {
        const { client, method: found, options: recorded } = setup(method, callOptions);
        if (!found.requestStream || !found.responseStream)
          throw new TypeError(`${method} is not a bidirectional-streaming method`);
        return writable(stream(new StreamingCall(client, found, null, recorded)));
      },
      close() {
        for (const call of calls.streams) call.cancel("the script closed the client with the call open");
        http.grpc.close(vu, target);
      },
    };
  }

  /** The iteration ended: streams it left open are cancelled (recorded as aborted); `now`: an abort, unary calls too. */
  iterationEnded(now: boolean): void {
    // Most iterations open none: no iterator is made, and an empty Set is not cleared (V8 would
    // make it a new table).
    if (this.streams.size > 0) {
      for (const call of this.streams) {
        call.cancel(
          now
            ? "the call was cancelled at the end of gracefulStop"
            : "the iteration ended with the call open",
        );
      }
      this.streams.clear();
    }
    if (now) this.iteration?.abort();
    this.iteration = null;
  }

  private iterationSignal(): AbortSignal {
    this.iteration ??= new AbortController();
    return this.iteration.signal;
  }
}

function writable(call: StreamingCall): GrpcStream {
  return {
    send: (message) => call.send(message),
    end: () => call.end(),
    [Symbol.asyncIterator]: () => (call.messages as AsyncIterable<Message>)[Symbol.asyncIterator](),
  };
}
