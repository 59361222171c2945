import { type ConnectionOptions, createSecureContext, type SecureContextOptions } from "node:tls";
import { type HttpSettings, resolvePassphrase, type TlsSettings, tlsFor } from "@volley/protocol";
import { HostResolver, type LookupFunction, serversLookup } from "./host-resolver.js";
import { type ProxyRoute, proxyFor } from "./proxy-route.js";
import { type LocalSource, SourceAddresses } from "./source-addresses.js";

/** What a socket to one server is opened with, besides host and port. */
export interface ServerConnectOptions {
  /** Names through `http.hosts` and the thread's DNS cache. */
  lookup: LookupFunction;
  /** For TLS: trust, client certificate, minimum version and SNI name. */
  tls: ConnectionOptions;
  /** The source address and port of the next connection (`http.localAddresses`); absent: the system's. */
  localAddress: (() => LocalSource) | undefined;
  /** The forward proxy connections to this server go through (`http.proxy`, or the environment's). */
  proxy: ProxyRoute | null;
}

/**
 * How one engine thread connects: one resolver (hosts and DNS cache) and the TLS options of each
 * server, built once per server from the run's certificate files. Every client takes its socket
 * options here (Volley's HTTP/1.1, undici's HTTP/2, WebSocket), gRPC its credentials.
 */
export class ConnectionSettings {
  readonly resolver: HostResolver;
  /** Next connection's source address and port (`http.localAddresses`). */
  readonly localAddress: (() => LocalSource) | undefined;
  private readonly byServer = new Map<string, ServerConnectOptions>();

  constructor(
    private readonly http: Pick<
      HttpSettings,
      "tls" | "origins" | "hosts" | "dns" | "insecureTls" | "localAddresses" | "proxy"
    >,
    /** The run's attachments (certificate files among them), decoded. */
    private readonly files: Readonly<Record<string, Buffer>>,
    private readonly env: Readonly<Record<string, string>>,
    /** This thread's part of the run (`Partition.span`): its share of each source address's ports. */
    span: { from: number; to: number } = { from: 0, to: 1 },
  ) {
    this.resolver = new HostResolver(
      http.hosts ?? {},
      http.dns,
      http.dns.servers ? serversLookup(http.dns.servers) : undefined,
    );
    const sources = http.localAddresses ? new SourceAddresses(http.localAddresses, span) : null;
    this.localAddress = sources ? () => sources.next() : undefined;
  }

  /** Socket options for `host:port` (a TLS server's certificate settings by `http.origins`). */
  forServer(host: string, port: number, secure: boolean): ServerConnectOptions {
    const key = `${secure ? "s" : ""}${host}:${port}`;
    let made = this.byServer.get(key);
    if (made === undefined) {
      made = {
        lookup: this.resolver.lookup,
        tls: this.tlsOptions(tlsFor(this.http, host, port)),
        localAddress: this.localAddress,
        proxy: proxyFor(this.http.proxy, host, port, secure),
      };
      this.byServer.set(key, made);
    }
    return made;
  }

  /**
   * Node's TLS options for these settings: the certificate files made into one secure context
   * per server, once (each connect would otherwise parse the key and certificates again).
   */
  tlsOptions(tls: TlsSettings | undefined): ConnectionOptions {
    const options: ConnectionOptions = { rejectUnauthorized: !this.http.insecureTls };
    if (!tls) return options;
    const file = (name: string) => this.files[name] as Buffer;
    const context: SecureContextOptions = {};
    if (tls.cert !== undefined) context.cert = file(tls.cert);
    if (tls.key !== undefined) context.key = file(tls.key);
    if (tls.pfx !== undefined) context.pfx = file(tls.pfx);
    if (tls.ca !== undefined) context.ca = (Array.isArray(tls.ca) ? tls.ca : [tls.ca]).map(file);
    const passphrase = resolvePassphrase(tls.passphrase, this.env);
    if (passphrase !== undefined) context.passphrase = passphrase;
    if (tls.minVersion !== undefined) context.minVersion = tls.minVersion;
    if (Object.keys(context).length > 0) options.secureContext = createSecureContext(context);
    if (tls.servername !== undefined) options.servername = tls.servername;
    return options;
  }
}
