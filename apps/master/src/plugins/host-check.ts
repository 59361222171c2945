import { isLoopback } from "../options.js";

/**
 * Which `Host` headers a listener answers. A loopback-only listener answers only its loopback
 * names, so a page that rebinds its own DNS name to 127.0.0.1 cannot reach the API; beyond
 * loopback, names vary (compose services, Kubernetes), so any is taken unless `allowedHosts`
 * lists them.
 */
export function hostChecker(listenHost: string, allowedHosts: readonly string[]): (host: string) => boolean {
  const allowed = new Set(allowedHosts.map((h) => h.toLowerCase()));
  const loopbackOnly = isLoopback(listenHost);
  if (!loopbackOnly && allowed.size === 0) return () => true;
  return (header) => {
    const name = hostName(header);
    if (name === null) return false;
    return allowed.has(name) || (loopbackOnly && (isLoopback(name) || name.endsWith(".localhost")));
  };
}

/** `name` of `name:port` or `[v6]:port`, lower-cased; null for something that is not a host. */
export function hostName(header: string): string | null {
  const value = header.trim().toLowerCase();
  const v6 = /^\[([0-9a-f:.]+)\](?::\d{1,5})?$/.exec(value);
  if (v6) return v6[1];
  const named = /^([a-z0-9.-]+)(?::\d{1,5})?$/.exec(value);
  return named ? named[1] : null;
}
