import { describe, expect, it } from "vitest";
import { parseGrpcTarget } from "./grpc-channels.js";

describe("a gRPC target", () => {
  it.each([
    ["grpc://api.test:50051", { address: "api.test:50051", host: "api.test", port: 50051, tls: false }],
    ["grpcs://api.test", { address: "api.test:443", host: "api.test", port: 443, tls: true }],
    ["grpc://api.test/", { address: "api.test:80", host: "api.test", port: 80, tls: false }],
    ["grpcs://[::1]:9443", { address: "[::1]:9443", host: "::1", port: 9443, tls: true }],
    ["grpc://[::1]", { address: "[::1]:80", host: "::1", port: 80, tls: false }],
  ])("%s", (target, expected) => {
    expect(parseGrpcTarget(target)).toEqual(expected);
  });

  it.each(["http://api.test", "grpc://api.test/path", "grpc://"])("refuses %s", (target) => {
    expect(() => parseGrpcTarget(target)).toThrow(/is not a gRPC target/);
  });
});
