import { createRequire } from "node:module";

type GrpcJs = typeof import("@grpc/grpc-js");
type ProtoLoader = typeof import("@grpc/proto-loader");
type Protobuf = typeof import("protobufjs");

// The gRPC libraries are required at a run's first gRPC request or proto, not at start: threads
// of runs without gRPC never load them. They are CommonJS, so a require is synchronous.
const require = createRequire(import.meta.url);
let libraries: { grpc: GrpcJs; protoLoader: ProtoLoader; protobuf: Protobuf } | null = null;

export function grpcLibraries(): { grpc: GrpcJs; protoLoader: ProtoLoader; protobuf: Protobuf } {
  libraries ??= {
    grpc: require("@grpc/grpc-js") as GrpcJs,
    protoLoader: require("@grpc/proto-loader") as ProtoLoader,
    protobuf: require("protobufjs") as Protobuf,
  };
  return libraries;
}
