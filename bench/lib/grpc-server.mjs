// A grpc-js server on loopback (run pinned to its own core) serving examples/protos/greeter.proto:
// SayHello answers at once. Prints its port, then serves until stdin closes.
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { ROOT } from "./tools.mjs";

const definition = protoLoader.loadSync("greeter.proto", {
  includeDirs: [join(ROOT, "examples/protos")],
  keepCase: true,
});
const { Greeter } = grpc.loadPackageDefinition(definition).volley.example;
const server = new grpc.Server();
server.addService(Greeter.service, {
  SayHello: (call, callback) => callback(null, { message: `hello ${call.request.name}` }),
});
server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, port) => {
  if (error) throw error;
  process.stdout.write(`${port}\n`);
});
process.stdin.resume();
process.stdin.on("end", () => process.exit(0));
