import { readFile } from "node:fs/promises";
import { createServer } from "node:net";
import { hostname } from "node:os";
import {
  expandLocalAddresses,
  Partition,
  type PartitionStep,
  parseScenario,
  runPeakVus,
} from "@volley/protocol";
import { originConnections } from "../runner/slice-setup.js";

/** Files a worker process holds besides its connections: Redis, the master's socket, threads, logs. */
const FILES_BESIDES_CONNECTIONS = 512;

/** What the machine allows, as Linux reports it (null where it does not). */
export interface MachineFacts {
  /** The process's soft limit of open files. */
  openFiles: number | null;
  /** Ephemeral ports one source address has for one target ip:port. */
  ephemeralPorts: number | null;
  /** Whether this machine can bind the address (it is one of its own). */
  canBind(address: string): Promise<boolean>;
}

/**
 * Checks at the worker's edge, before any thread starts, that this machine can hold what its
 * share of the run needs: open files for a connection per VU, ephemeral ports to one target (per
 * source address), and `http.localAddresses` that exist here. A run that cannot fit is refused
 * with what to change, never run into a stream of EMFILE or EADDRNOTAVAIL failures.
 */
export async function checkMachineLimits(
  scenarioInput: unknown,
  partition: PartitionStep[],
  given?: MachineFacts,
): Promise<void> {
  const facts = given ?? (await readLinuxFacts());
  const scenario = parseScenario(scenarioInput);
  // The peak as planned: pools are sized for raised load too, but open sockets only as needed.
  const vus = new Partition(partition).count(runPeakVus(scenario));
  const { sockets } = originConnections(scenario, vus);
  const sources = scenario.http.localAddresses ? expandLocalAddresses(scenario.http.localAddresses) : [];
  const missing: string[] = [];
  await Promise.all(
    sources.map(async (address) => {
      if (!(await facts.canBind(address))) missing.push(address);
    }),
  );
  if (missing.length > 0) {
    const shown = missing.sort().slice(0, 5).join(", ");
    throw new Error(
      `http.localAddresses: ${shown}${missing.length > 5 ? ` and ${missing.length - 5} more` : ""} ${missing.length === 1 ? "is not an address" : "are not addresses"} of ${hostname()} (add them to an interface, or name only its own)`,
    );
  }
  const needed = sockets + FILES_BESIDES_CONNECTIONS;
  if (facts.openFiles !== null && facts.openFiles < needed) {
    throw new Error(
      `this worker's share is ${vus} VUs, up to ${sockets} connections, but the process may open only ${facts.openFiles} files: raise the limit (ulimit -n ${needed}, LimitNOFILE= for systemd, nofile in a container's ulimits) or spread the run over more workers`,
    );
  }
  const ports = facts.ephemeralPorts;
  if (ports !== null && sockets > ports * Math.max(1, sources.length)) {
    throw new Error(
      `this worker's share needs up to ${sockets} connections to one target, more than ${sources.length > 1 ? `${sources.length} source addresses × ` : "one source address's "}${ports} ephemeral ports (net.ipv4.ip_local_port_range): give http.localAddresses enough source addresses (${Math.ceil(sockets / ports)}), widen the port range, or add workers`,
    );
  }
}

/** This machine's facts: the open-files limit and ephemeral port range from /proc (null where it cannot be read). */
export async function readLinuxFacts(): Promise<MachineFacts> {
  const [limits, range] = await Promise.all([
    readFile("/proc/self/limits", "utf8").catch(() => ""),
    readFile("/proc/sys/net/ipv4/ip_local_port_range", "utf8").catch(() => ""),
  ]);
  const files = /^Max open files\s+(\d+|unlimited)/m.exec(limits)?.[1];
  const [low, high] = range.trim().split(/\s+/).map(Number);
  return {
    openFiles: files === undefined || files === "unlimited" ? null : Number(files),
    ephemeralPorts: Number.isFinite(low) && Number.isFinite(high) && high >= low ? high - low + 1 : null,
    canBind,
  };
}

function canBind(address: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen({ host: address, port: 0, exclusive: true }, () => server.close(() => resolve(true)));
  });
}
