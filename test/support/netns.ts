import { execFileSync } from "node:child_process";

/**
 * Test hosts in network namespaces: each gets an interface on a private bridge (inside its own
 * "switch" namespace, connected to nothing else) and an address of our choosing. The test
 * process gets a leg on the bridge too, so it can reach every host.
 */
export class TestNetwork {
  readonly hosts = new Map<string, { ns: string; address: string; peer: string }>();
  private readonly prefix: string;
  readonly switchNs: string;
  private readonly rootLeg: string;

  constructor(
    readonly subnet = "10.231.7",
    readonly rootAddress = `${subnet}.254`,
  ) {
    this.prefix = `vt${process.pid % 10000}`;
    this.switchNs = `${this.prefix}-sw`;
    this.rootLeg = `${this.prefix}r`;
  }

  /** Whether this machine lets us create namespaces (root with CAP_NET_ADMIN). */
  static available(): boolean {
    const probe = `vtprobe${process.pid % 10000}`;
    try {
      execFileSync("ip", ["netns", "add", probe], { stdio: "ignore" });
      execFileSync("ip", ["netns", "del", probe], { stdio: "ignore" });
      return true;
    } catch {
      return false;
    }
  }

  create(): void {
    ip("netns", "add", this.switchNs);
    this.inNs(this.switchNs, "ip", "link", "add", "br0", "type", "bridge");
    this.inNs(this.switchNs, "ip", "link", "set", "br0", "up");
    // The test's own leg on the bridge.
    ip("link", "add", this.rootLeg, "type", "veth", "peer", "name", `${this.rootLeg}p`);
    ip("link", "set", `${this.rootLeg}p`, "netns", this.switchNs);
    this.inNs(this.switchNs, "ip", "link", "set", `${this.rootLeg}p`, "master", "br0", "up");
    ip("addr", "add", `${this.rootAddress}/24`, "dev", this.rootLeg);
    ip("link", "set", this.rootLeg, "up");
  }

  /** A host named `name` at `subnet.octet`. */
  addHost(name: string, octet: number): string {
    const ns = `${this.prefix}-${name}`;
    const leg = `${this.prefix}${name.slice(0, 3)}${octet}`;
    const address = `${this.subnet}.${octet}`;
    ip("netns", "add", ns);
    this.inNs(ns, "ip", "link", "set", "lo", "up");
    ip("link", "add", leg, "type", "veth", "peer", "name", `${leg}p`);
    ip("link", "set", leg, "netns", ns);
    ip("link", "set", `${leg}p`, "netns", this.switchNs);
    this.inNs(this.switchNs, "ip", "link", "set", `${leg}p`, "master", "br0", "up");
    this.inNs(ns, "ip", "addr", "add", `${address}/24`, "dev", leg);
    this.inNs(ns, "ip", "link", "set", leg, "up");
    this.hosts.set(name, { ns, address, peer: `${leg}p` });
    return address;
  }

  /** The command line that runs `command` on a host. */
  on(name: string, command: string[]): string[] {
    return ["ip", "netns", "exec", this.host(name).ns, ...command];
  }

  /** Cuts a host's cable at the switch. */
  cut(name: string): void {
    this.inNs(this.switchNs, "ip", "link", "set", this.host(name).peer, "down");
  }

  /** Kills whatever still runs on the hosts, then removes them and the switch. */
  destroy(): void {
    for (const { ns } of this.hosts.values()) {
      try {
        const pids = execFileSync("ip", ["netns", "pids", ns], { encoding: "utf8" })
          .split("\n")
          .filter(Boolean);
        for (const pid of pids) process.kill(Number(pid), "SIGKILL");
      } catch {}
      tryIp("netns", "del", ns);
    }
    tryIp("link", "del", this.rootLeg);
    tryIp("netns", "del", this.switchNs);
    this.hosts.clear();
  }

  private host(name: string) {
    const host = this.hosts.get(name);
    if (!host) throw new Error(`no host ${name}`);
    return host;
  }

  private inNs(ns: string, ...command: string[]): void {
    execFileSync("ip", ["netns", "exec", ns, ...command], { stdio: "pipe" });
  }
}

function ip(...args: string[]): void {
  execFileSync("ip", args, { stdio: "pipe" });
}

function tryIp(...args: string[]): void {
  try {
    ip(...args);
  } catch {}
}
