import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { FastifyInstance } from "fastify";

/**
 * The name a master's runs are owned by: stable across restarts of the same master (host and
 * port), so a restarted master resumes its runs at once; random for an ephemeral port.
 */
export function instanceId(configured: string | undefined, port: number): string {
  if (configured) return configured;
  return `${hostname()}:${port === 0 ? `ephemeral-${randomBytes(4).toString("hex")}` : port}`;
}

export function boundPort(app: FastifyInstance): number {
  const address = app.server.address();
  return typeof address === "object" && address ? address.port : 0;
}

export function isWildcard(host: string): boolean {
  return host === "0.0.0.0" || host === "::";
}

export function urlHost(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}
