import { GREETER_PROTOS, type GreeterServer, startGreeter } from "@volley/demo";

// The gRPC server tests count against is the demo's Greeter (examples/protos/greeter.proto).

/** Where the protos it serves are: greeter.proto imports common/stamp.proto. */
export const TEST_PROTOS = GREETER_PROTOS;
export type GrpcTestServer = GreeterServer;

/**
 * A Greeter on a free loopback port (`host`, default 127.0.0.1); `tls`: grpcs:// with this key
 * and certificate, and with `ca` only clients with a certificate it signed.
 */
export function startGrpcServer(
  tls?: { key: Buffer; cert: Buffer; ca?: Buffer },
  host?: string,
): Promise<GrpcTestServer> {
  return startGreeter({ tls, host });
}
