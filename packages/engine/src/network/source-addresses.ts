import { readFileSync } from "node:fs";
import { expandLocalAddresses } from "@volley/protocol";

/** A new connection's source: address and port. */
export interface LocalSource {
  address: string;
  port: number;
}

/** Linux's default when /proc cannot be read. */
const DEFAULT_RANGE: [number, number] = [32768, 60999];

/** `net.ipv4.ip_local_port_range`, read once per thread. */
function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8")
      .trim()
      .split(/\s+/)
      .map(Number);
    return Number.isInteger(low) && Number.isInteger(high) && high > low ? [low, high] : DEFAULT_RANGE;
  } catch {
    return DEFAULT_RANGE;
  }
}

/**
 * `http.localAddresses` for one engine thread: each new connection takes the next address in turn
 * and a port of its own on it. The port is chosen here, not by the kernel: binding an address
 * with port 0 makes the kernel search its bound ports for a free one, ~3 ms a connect once
 * thousands are open (measured: 8,000 connects from 127.0.0.2 took 27 s, 3.3 s with ports
 * given), long enough to stall an engine thread. Each thread takes the part of the ephemeral
 * range its slice of the run owns (`Partition.span`, disjoint across the fleet's threads),
 * starting at a random place in it and cycling.
 */
export class SourceAddresses {
  private readonly addresses: string[];
  private readonly low: number;
  private readonly size: number;
  private readonly cursors: number[];
  private turn: number;

  constructor(
    entries: readonly string[],
    span: { from: number; to: number },
    range: [number, number] = ephemeralRange(),
  ) {
    this.addresses = expandLocalAddresses(entries);
    const ports = range[1] - range[0] + 1;
    this.low = range[0] + Math.floor(span.from * ports);
    this.size = Math.max(1, range[0] + Math.floor(span.to * ports) - this.low);
    this.cursors = this.addresses.map(() => Math.floor(Math.random() * this.size));
    this.turn = Math.floor(Math.random() * this.addresses.length);
  }

  next(): LocalSource {
    this.turn = (this.turn + 1) % this.addresses.length;
    const port = this.low + this.cursors[this.turn];
    this.cursors[this.turn] = (this.cursors[this.turn] + 1) % this.size;
    return { address: this.addresses[this.turn], port };
  }
}
