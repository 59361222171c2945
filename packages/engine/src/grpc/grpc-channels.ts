import type { Client } from "@grpc/grpc-js";
import type { ConnectionSettings, ServerConnectOptions } from "../network/connection-settings.js";
import { grpcLibraries } from "./grpc-library.js";

/**
 * `grpc://host:port` (plaintext) or `grpcs://host:port` (TLS): the address as grpc-js takes it
 * (`host:port`, `[v6]:port`; the scheme's port when none is written) and its host (without
 * brackets) and port apart.
 */
export function parseGrpcTarget(target: string): {
  address: string;
  host: string;
  port: number;
  tls: boolean;
} {
  const match = /^(grpcs?):\/\/([^/?#]+)\/?$/.exec(target);
  if (!match)
    throw new TypeError(`"${target}" is not a gRPC target: use grpc://host:port or grpcs://host:port`);
  const tls = match[1] === "grpcs";
  const written = match[2];
  const hasPort = /:\d+$/.test(written) && !/^\[[^\]]*\]$/.test(written);
  const address = hasPort ? written : `${written}:${tls ? 443 : 80}`;
  const at = address.lastIndexOf(":");
  const host = address.slice(0, at);
  return {
    address,
    host: host.startsWith("[") ? host.slice(1, -1) : host,
    port: Number(address.slice(at + 1)),
    tls,
  };
}

/**
 * Where grpc-js connects and the channel options that say how: through `http.proxy` (or the
 * environment's) by CONNECT, the proxy resolving the name; to an `http.hosts` address with the
 * name kept as the authority (and TLS name) the server sees; else the name, resolved by grpc-js.
 * grpc-js's own reading of the proxy variables is off: the decision is made once, here.
 */
function channelTarget(
  address: string,
  host: string,
  port: number,
  tls: boolean,
  server: ServerConnectOptions,
  network: ConnectionSettings,
): [string, Record<string, string | number>] {
  const options: Record<string, string | number> = { "grpc.enable_http_proxy": 0 };
  if (server.tls.servername !== undefined) options["grpc.ssl_target_name_override"] = server.tls.servername;
  if (server.proxy) {
    options["grpc.http_connect_target"] = `dns:${address}`;
    if (server.proxy.authorization) {
      options["grpc.http_connect_creds"] = Buffer.from(
        server.proxy.authorization.slice(6),
        "base64",
      ).toString();
    }
    return [`dns:${server.proxy.host}:${server.proxy.port}`, options];
  }
  const mapped = network.resolver.mapped(host);
  if (mapped === null) return [address, options];
  options["grpc.default_authority"] = address;
  if (tls) options["grpc.ssl_target_name_override"] ??= host;
  return [mapped.includes(":") ? `ipv6:[${mapped}]:${port}` : `ipv4:${mapped}:${port}`, options];
}

/**
 * A thread's gRPC channels: one per VU and target, kept from one call (and iteration) to the
 * next like a keep-alive connection, all closed when the slice ends. Each has a subchannel pool of
 * its own, so a VU's calls go over its own HTTP/2 connection as they would from a client of its own.
 */
export class GrpcChannels {
  private readonly clients = new Map<string, Client>();

  constructor(private readonly network: ConnectionSettings) {}

  /** VU `vu`'s channel to `target`, opened (lazily, at its first call) when it has none. */
  forVu(vu: number, target: string): Client {
    const key = `${vu} ${target}`;
    let client = this.clients.get(key);
    if (client === undefined) {
      const { grpc } = grpcLibraries();
      const { address, host, port, tls } = parseGrpcTarget(target);
      const server = this.network.forServer(host, port, tls);
      // `http.tls` as one secure context (client certificate, CA, min version).
      const credentials = tls
        ? server.tls.secureContext
          ? grpc.credentials.createFromSecureContext(server.tls.secureContext, {
              rejectUnauthorized: server.tls.rejectUnauthorized,
            })
          : grpc.credentials.createSsl(null, null, null, {
              rejectUnauthorized: server.tls.rejectUnauthorized,
            })
        : grpc.credentials.createInsecure();
      const [channel, options] = channelTarget(address, host, port, tls, server, this.network);
      client = new grpc.Client(channel, credentials, {
        ...options,
        "grpc.use_local_subchannel_pool": 1,
        // A load test measures the server: no transparent retries hiding failures.
        "grpc.enable_retries": 0,
        "grpc.max_receive_message_length": 64 * 1024 * 1024,
      });
      this.clients.set(key, client);
    }
    return client;
  }

  /** Closes VU `vu`'s channel to `target` (its next call opens another). */
  close(vu: number, target: string): void {
    const key = `${vu} ${target}`;
    this.clients.get(key)?.close();
    this.clients.delete(key);
  }

  /** The slice is over: every channel is closed. */
  closeAll(): void {
    for (const client of this.clients.values()) client.close();
    this.clients.clear();
  }

  get open(): number {
    return this.clients.size;
  }
}
