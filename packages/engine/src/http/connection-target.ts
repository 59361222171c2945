import { isIP } from "node:net";
import { type ConnectionOptions, connect as connectTls, type TLSSocket } from "node:tls";
import type { ServerConnectOptions } from "../network/connection-settings.js";
import type { LookupFunction } from "../network/host-resolver.js";
import type { LocalSource } from "../network/source-addresses.js";

/** Where and how the sockets of one origin connect (Volley's HTTP/1.1 and HTTP/2 clients). */
export interface ConnectionTarget {
  host: string;
  port: number;
  https: boolean;
  /** The `host` header (HTTP/2: `:authority`): host, and port unless it is the scheme's default. */
  hostHeader: string;
  /** SNI name (none for an IP address). */
  servername: string | undefined;
  /** Name resolution (`http.hosts`, the thread's DNS cache); absent: the system's. */
  lookup: LookupFunction | undefined;
  /** TLS options of the server (trust, client certificate, SNI override). */
  tls: ConnectionOptions;
  /** Each new socket's source address and port (`http.localAddresses`), or the system's choice. */
  localAddress: (() => LocalSource) | undefined;
  connectTimeoutMs: number;
}

/** The target of `origin` ("https://host:port") with the server's connect options. */
export function connectionTarget(
  origin: string,
  options: { connectTimeoutMs: number; server?: ServerConnectOptions },
): ConnectionTarget {
  const url = new URL(origin);
  const https = url.protocol === "https:";
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  return {
    host,
    port: Number(url.port) || (https ? 443 : 80),
    https,
    hostHeader: url.host,
    servername: isIP(host) ? undefined : host,
    lookup: options.server?.lookup,
    localAddress: options.server?.localAddress,
    tls: options.server?.tls ?? {},
    connectTimeoutMs: options.connectTimeoutMs,
  };
}

/** A TLS socket to the target offering `alpn` (["http/1.1"] or ["h2"]), from the next source address. */
export function connectTlsSocket(target: ConnectionTarget, alpn: string[]): TLSSocket {
  const source = target.localAddress?.();
  return connectTls({
    servername: target.servername,
    ...target.tls,
    host: target.host,
    port: target.port,
    lookup: target.lookup,
    ALPNProtocols: alpn,
    // tls.connect hands them to the TCP socket; Node's types leave them out.
    ...(source && ({ localAddress: source.address, localPort: source.port } as object)),
  });
}

/** The source address and port of a new plain-TCP socket, as net.connect takes them. */
export function tcpSource(target: ConnectionTarget): { localAddress?: string; localPort?: number } {
  const source = target.localAddress?.();
  return source ? { localAddress: source.address, localPort: source.port } : {};
}
