import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { Resolver } from "node:dns/promises";
import { isIP } from "node:net";
import type { DnsSettings } from "@volley/protocol";

/** `net.connect`'s `lookup` option: with `all` (Node's family auto-selection) it wants a list. */
export type LookupFunction = (
  hostname: string,
  options: { all?: boolean; family?: number | string },
  callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
) => void;

interface Cached {
  addresses: LookupAddress[];
  expiresAt: number;
  /** A resolution under way (the first, or a refresh of an expired entry). */
  pending: Promise<LookupAddress[]> | null;
  next: number;
}

/**
 * Names to addresses for one engine thread: `http.hosts` first (exact names, then the longest
 * `*.domain` that covers the name), else the system resolver, its answer kept for `dns.ttl`.
 * An expired answer is still used while the refresh runs, so a connect waits for DNS only the
 * first time a thread meets a name. Each connect takes one address by `dns.select`.
 */
export class HostResolver {
  private readonly cache = new Map<string, Cached>();
  private readonly exact = new Map<string, Cached>();
  private readonly wildcards: Array<[suffix: string, entry: Cached]> = [];
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    this.resolve(hostname).then(
      (address) => {
        if (options.all) callback(null, [address]);
        else callback(null, address.address, address.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, options.all ? [] : ""),
    );
  };

  constructor(
    hosts: Readonly<Record<string, readonly string[]>>,
    private readonly dns: DnsSettings,
    private readonly resolveSystem: (name: string) => Promise<LookupAddress[]> = systemLookup,
  ) {
    for (const [pattern, to] of Object.entries(hosts)) {
      const entry: Cached = {
        addresses: to.map((address) => ({ address, family: isIP(address) })),
        expiresAt: Number.POSITIVE_INFINITY,
        pending: null,
        next: 0,
      };
      if (pattern.startsWith("*.")) this.wildcards.push([pattern.slice(1), entry]);
      else this.exact.set(pattern, entry);
    }
    // The most specific wildcard first.
    this.wildcards.sort((a, b) => b[0].length - a[0].length);
  }

  /** Whether `http.hosts` maps this name (gRPC, which resolves on its own, asks). */
  mapped(hostname: string): string | null {
    const entry = this.override(hostname.toLowerCase());
    return entry ? this.pick(entry).address : null;
  }

  /** One address for a new connection to `hostname`. */
  async resolve(hostname: string): Promise<LookupAddress> {
    const name = hostname.toLowerCase();
    if (isIP(name)) return { address: name, family: isIP(name) };
    const mapped = this.override(name);
    if (mapped) return this.pick(mapped);
    let entry = this.cache.get(name);
    if (entry === undefined) {
      entry = { addresses: [], expiresAt: 0, pending: null, next: 0 };
      this.cache.set(name, entry);
    }
    if (performance.now() >= entry.expiresAt && entry.pending === null) this.refresh(name, entry);
    if (entry.addresses.length === 0) await entry.pending;
    return this.pick(entry);
  }

  private override(name: string): Cached | undefined {
    return this.exact.get(name) ?? this.wildcards.find(([suffix]) => name.endsWith(suffix))?.[1];
  }

  private refresh(name: string, entry: Cached): void {
    const pending = this.resolveSystem(name).then(
      (addresses) => {
        if (addresses.length === 0) throw notFound(name);
        entry.addresses = addresses;
        entry.expiresAt = performance.now() + this.dns.ttl;
        return addresses;
      },
      (error: NodeJS.ErrnoException) => {
        // A failed refresh keeps the last answer; a name never resolved fails its connects
        // (and is tried again by the next one, not cached as missing).
        if (entry.addresses.length > 0) {
          entry.expiresAt = performance.now() + Math.min(this.dns.ttl, 1000);
          return entry.addresses;
        }
        throw error;
      },
    );
    entry.pending = pending;
    pending.then(
      () => {
        entry.pending = null;
      },
      () => {
        entry.pending = null;
      },
    );
  }

  private pick(entry: Cached): LookupAddress {
    const { addresses } = entry;
    if (addresses.length === 0) throw notFound("");
    if (addresses.length === 1 || this.dns.select === "first") return addresses[0];
    if (this.dns.select === "random") return addresses[Math.floor(Math.random() * addresses.length)];
    const address = addresses[entry.next % addresses.length];
    entry.next = (entry.next + 1) % addresses.length;
    return address;
  }
}

/**
 * Asks these name servers (A records, then AAAA when there are none) instead of the system's
 * resolver: what `http.dns.servers` names.
 */
export function serversLookup(servers: readonly string[]): (name: string) => Promise<LookupAddress[]> {
  const resolver = new Resolver({ timeout: 2000, tries: 2 });
  resolver.setServers([...servers]);
  return async (name) => {
    const v4 = await resolver.resolve4(name).catch((error: NodeJS.ErrnoException) => error);
    if (Array.isArray(v4) && v4.length > 0) return v4.map((address) => ({ address, family: 4 }));
    const v6 = await resolver.resolve6(name).catch((error: NodeJS.ErrnoException) => error);
    if (Array.isArray(v6) && v6.length > 0) return v6.map((address) => ({ address, family: 6 }));
    // Whichever says more: a server that failed, or a name it does not know.
    const failed = [v4, v6].find(
      (e) => e instanceof Error && (e as NodeJS.ErrnoException).code !== "ENODATA",
    );
    throw failed ?? notFound(name);
  };
}

function systemLookup(name: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    dnsLookup(name, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses)));
  });
}

function notFound(name: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: "ENOTFOUND", hostname: name });
}
