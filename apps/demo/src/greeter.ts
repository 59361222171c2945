import { type AddressInfo, createServer, type Socket } from "node:net";
import { fileURLToPath } from "node:url";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";

/** Where the protos it serves are (the examples'): greeter.proto imports common/stamp.proto. */
export const GREETER_PROTOS = fileURLToPath(new URL("../../../examples/protos/", import.meta.url));

/**
 * The demo's gRPC server: examples/protos/greeter.proto's Greeter, counting what it receives and
 * answers (tests read the counts).
 */
export interface GreeterServer {
  /** grpc://HOST:PORT (grpcs:// with TLS) */
  target: string;
  port: number;
  counts: {
    /** Calls begun, by method name (SayHello, CountTo, Sum, Chat, Ping). */
    calls: Record<string, number>;
    /** Statuses answered, by code name (`OK`, `NOT_FOUND`). */
    statuses: Record<string, number>;
    /** Messages received on streams (Sum, Chat) and sent on them (CountTo, Chat). */
    streamIn: number;
    streamOut: number;
    /** HTTP/2 connections accepted. */
    connections: number;
    /** SayHello calls by the `x-worker` metadata they carried (a scenario sends `{{worker}}`). */
    byWorker: Record<string, number>;
  };
  /** Connections open now. */
  readonly open: number;
  reset(): void;
  close(): Promise<void>;
}

const STATUS_NAMES = Object.fromEntries(Object.entries(grpc.status).map(([name, code]) => [code, name]));

/**
 * Starts the Greeter on `host:port` (port 0: any free one). SayHello answers "hello NAME" after
 * `delay_ms` (or the status `fail_with`); CountTo streams ticks; Sum adds a client stream; Chat
 * echoes both ways; Ping answers at once. `tls`: serve TLS with this key and certificate.
 */
export async function startGreeter(
  /** `tls.ca`: clients must present a certificate this CA signed (mutual TLS). */
  options: { host?: string; port?: number; tls?: { key: Buffer; cert: Buffer; ca?: Buffer } } = {},
): Promise<GreeterServer> {
  const { tls } = options;
  const definition = protoLoader.loadSync("greeter.proto", {
    includeDirs: [GREETER_PROTOS],
    keepCase: true,
    longs: String,
    defaults: true,
  });
  const proto = grpc.loadPackageDefinition(definition) as unknown as {
    volley: { example: { Greeter: grpc.ServiceClientConstructor } };
  };
  const counts: GreeterServer["counts"] = {
    calls: {},
    statuses: {},
    streamIn: 0,
    streamOut: 0,
    connections: 0,
    byWorker: {},
  };
  const call = (method: string) => {
    counts.calls[method] = (counts.calls[method] ?? 0) + 1;
  };
  const answered = (code: number) => {
    const name = STATUS_NAMES[code] ?? String(code);
    counts.statuses[name] = (counts.statuses[name] ?? 0) + 1;
  };
  let seq = 0;
  const server = new grpc.Server();
  server.addService(proto.volley.example.Greeter.service, {
    SayHello(
      unary: grpc.ServerUnaryCall<{ name: string; delay_ms: number; fail_with: number }, unknown>,
      callback: grpc.sendUnaryData<unknown>,
    ) {
      call("SayHello");
      const [worker] = unary.metadata.get("x-worker");
      if (worker !== undefined) counts.byWorker[String(worker)] = (counts.byWorker[String(worker)] ?? 0) + 1;
      const { name, delay_ms, fail_with } = unary.request;
      const metadata = new grpc.Metadata();
      metadata.set("x-served-by", "test");
      unary.sendMetadata(metadata);
      setTimeout(() => {
        if (unary.cancelled) return;
        if (fail_with > 0) {
          answered(fail_with);
          callback({ code: fail_with, details: `failing as asked (${name})` });
          return;
        }
        answered(0);
        callback(null, { message: `hello ${name}`, stamp: { seq: String(++seq), server: "test" } });
      }, delay_ms);
    },
    CountTo(stream: grpc.ServerWritableStream<{ count: number; gap_ms: number }, unknown>) {
      call("CountTo");
      const { count, gap_ms } = stream.request;
      let n = 0;
      const tick = () => {
        if (stream.cancelled) return;
        if (n === count) {
          answered(0);
          stream.end();
          return;
        }
        counts.streamOut++;
        stream.write({ n: ++n });
        setTimeout(tick, gap_ms);
      };
      setTimeout(tick, gap_ms);
    },
    Sum(
      stream: grpc.ServerReadableStream<{ value: string }, unknown>,
      callback: grpc.sendUnaryData<unknown>,
    ) {
      call("Sum");
      let sum = 0n;
      let count = 0;
      stream.on("data", (message: { value: string }) => {
        counts.streamIn++;
        sum += BigInt(message.value);
        count++;
      });
      stream.on("end", () => {
        answered(0);
        callback(null, { sum: String(sum), count });
      });
    },
    Chat(stream: grpc.ServerDuplexStream<{ name: string }, unknown>) {
      call("Chat");
      stream.on("data", (message: { name: string }) => {
        counts.streamIn++;
        counts.streamOut++;
        stream.write({ message: `echo: ${message.name}` });
      });
      stream.on("end", () => {
        answered(0);
        stream.end();
      });
    },
    Ping(_unary: unknown, callback: grpc.sendUnaryData<unknown>) {
      call("Ping");
      answered(0);
      callback(null, {});
    },
  });
  // Its own TCP listener, each connection handed to grpc-js (its public connection injector):
  // so the connections it accepted, and those open now, are counted where they arrive.
  const injector = server.createConnectionInjector(
    tls
      ? grpc.ServerCredentials.createSsl(
          tls.ca ?? null,
          [{ private_key: tls.key, cert_chain: tls.cert }],
          tls.ca !== undefined,
        )
      : grpc.ServerCredentials.createInsecure(),
  );
  let open = 0;
  const sockets = new Set<Socket>();
  const listener = createServer((socket) => {
    counts.connections++;
    open++;
    sockets.add(socket);
    socket.once("close", () => {
      open--;
      sockets.delete(socket);
    });
    injector.injectConnection(socket);
  });
  const port = await new Promise<number>((resolve, reject) => {
    listener.once("error", reject);
    listener.listen(options.port ?? 0, options.host ?? "127.0.0.1", () =>
      resolve((listener.address() as AddressInfo).port),
    );
  });
  return {
    target: `${tls ? "grpcs" : "grpc"}://${options.host ?? "127.0.0.1"}:${port}`,
    port,
    counts,
    get open() {
      return open;
    },
    reset() {
      counts.calls = {};
      counts.statuses = {};
      counts.byWorker = {};
      counts.streamIn = counts.streamOut = counts.connections = 0;
    },
    close: async () => {
      listener.close();
      await new Promise<void>((resolve) => {
        server.tryShutdown(() => resolve());
        setTimeout(() => {
          server.forceShutdown();
          for (const socket of sockets) socket.destroy();
        }, 2000).unref();
      });
      injector.destroy();
    },
  };
}
