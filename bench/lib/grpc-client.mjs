// Unary gRPC calls from one process, for `pnpm bench grpc`: --mode volley: a scenario's `grpc:`
// request run by one Volley engine thread (every call recorded: latency histogram, status,
// bytes); --mode raw: the same calls in a tight loop of grpc-js, one client (and connection) per
// loop as Volley has one channel per VU. Prints JSON.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { SliceEngine } from "@volley/engine";
import { Partition, parseScenario } from "@volley/protocol";
import { ROOT } from "./tools.mjs";

const args = process.argv.slice(2);
const get = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const target = get("target");
const vus = Number(get("vus", "50"));
const durationS = Number(get("duration", "10"));
const mode = get("mode", "volley");
const PROTOS = join(ROOT, "examples/protos");
const METHOD = "volley.example.Greeter/SayHello";

async function raw() {
  const definition = protoLoader.loadSync("greeter.proto", { includeDirs: [PROTOS], keepCase: true });
  const { Greeter } = grpc.loadPackageDefinition(definition).volley.example;
  const deadline = Date.now() + durationS * 1000;
  let calls = 0;
  let failures = 0;
  const loop = async () => {
    const client = new Greeter(target.replace("grpc://", ""), grpc.credentials.createInsecure(), {
      "grpc.use_local_subchannel_pool": 1,
    });
    while (Date.now() < deadline) {
      await new Promise((resolve) =>
        client.SayHello({ name: "bench" }, (error) => {
          if (error) failures++;
          else calls++;
          resolve();
        }),
      );
    }
    client.close();
  };
  const started = Date.now();
  await Promise.all(Array.from({ length: vus }, loop));
  return { calls, failures, seconds: (Date.now() - started) / 1000 };
}

async function volley() {
  const file = (name) => readFileSync(join(PROTOS, name)).toString("base64");
  let calls = 0;
  let failures = 0;
  const engine = new SliceEngine({
    scenario: parseScenario({
      name: "bench-grpc",
      target,
      load: { executor: "constant-vus", vus, duration: `${durationS}s`, gracefulStop: "0s" },
      requests: [
        { name: "hello", grpc: { proto: "greeter.proto", method: METHOD, message: { name: "bench" } } },
      ],
    }),
    attachments: { "greeter.proto": file("greeter.proto"), "common/stamp.proto": file("common/stamp.proto") },
    partition: new Partition(),
    startAtEpochMs: Date.now() + 200,
    workerName: "bench",
    onPeriod: (period) => {
      for (const r of period.requests) {
        if (r.name !== "hello") continue;
        calls += r.requests - r.failures;
        failures += r.failures;
      }
    },
  });
  const started = Date.now() + 200;
  await engine.run();
  return { calls, failures, seconds: (Date.now() - started) / 1000 };
}

const result = mode === "raw" ? await raw() : await volley();
process.stdout.write(JSON.stringify({ ...result, perS: result.calls / result.seconds }));
// grpc-js keeps timers for closed channels a little while: the figures are out, so leave.
process.exit(0);
