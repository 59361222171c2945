import { type RunningDemo, startDemo } from "@volley/demo";
import { intFlag, parseFlags } from "../args.js";
import { UsageError } from "../cli-error.js";
import { waitForSignal } from "../wait-for-signal.js";

export const DEMO_HELP = `Usage: volley demo [--port N] [--grpc-port N] [--host H] [--signing-key K]

A demo shop to point a first test at: every file in examples/ runs against it with no failure.
HTTP/1.1, h2c and WebSocket on http://127.0.0.1:18080 (--port), gRPC (examples/protos/greeter.proto)
on 127.0.0.1:50051 (--grpc-port; 0 for none). GET / lists the endpoints. Ctrl-C stops it.`;

/** Starts the demo shop; a port in use is a usage error naming the flag. */
export async function launchDemo(options: {
  host?: string;
  port: number;
  grpcPort: number;
  signingKey?: string;
}): Promise<RunningDemo> {
  try {
    return await startDemo({
      host: options.host,
      port: options.port,
      grpcPort: options.grpcPort === 0 ? null : options.grpcPort,
      signingKey: options.signingKey,
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const busy = code === "EADDRINUSE" || /No address added|EADDRINUSE/.test((error as Error).message);
    if (!busy) throw error;
    throw new UsageError(
      `the demo's ports are taken (--port ${options.port}, --grpc-port ${options.grpcPort}): is a demo already running?`,
    );
  }
}

export async function demoCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, {
    port: { type: "string" },
    "grpc-port": { type: "string" },
    host: { type: "string" },
    "signing-key": { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    console.log(DEMO_HELP);
    return 0;
  }
  const demo = await launchDemo({
    host: values.host,
    port: intFlag("port", values.port, 0, 65535) ?? 18080,
    grpcPort: intFlag("grpc-port", values["grpc-port"], 0, 65535) ?? 50051,
    signingKey: values["signing-key"],
  });
  console.log(`Demo shop on ${demo.url}${demo.grpcTarget ? ` (gRPC on ${demo.grpcTarget})` : ""}`);
  await waitForSignal();
  await demo.close();
  return 0;
}
