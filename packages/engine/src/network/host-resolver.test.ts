import type { LookupAddress } from "node:dns";
import { describe, expect, it } from "vitest";
import { HostResolver } from "./host-resolver.js";

const v4 = (address: string): LookupAddress => ({ address, family: 4 });

/** A system resolver that answers from a table, counting its calls; each answer waits for `release`. */
function fakeDns(table: Record<string, string[]>) {
  const calls: string[] = [];
  let gate: Promise<void> = Promise.resolve();
  let open: () => void = () => {};
  return {
    calls,
    table,
    hold() {
      gate = new Promise((resolve) => {
        open = resolve;
      });
    },
    release: () => open(),
    lookup: async (name: string) => {
      calls.push(name);
      await gate;
      const answer = table[name];
      if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: "ENOTFOUND" });
      return answer.map(v4);
    },
  };
}

describe("HostResolver", () => {
  it("hosts: an exact name before the longest wildcard that covers it; names compared without case", async () => {
    const resolver = new HostResolver(
      { "api.example.com": ["10.0.0.1"], "*.example.com": ["10.0.0.2"], "*.eu.example.com": ["10.0.0.3"] },
      { ttl: 1000, select: "round-robin" },
      fakeDns({}).lookup,
    );
    expect((await resolver.resolve("API.example.com")).address).toBe("10.0.0.1");
    expect((await resolver.resolve("www.example.com")).address).toBe("10.0.0.2");
    expect((await resolver.resolve("a.eu.example.com")).address).toBe("10.0.0.3");
    // `*.example.com` covers subdomains, not the bare domain.
    await expect(resolver.resolve("example.com")).rejects.toMatchObject({ code: "ENOTFOUND" });
    expect(resolver.mapped("www.example.com")).toBe("10.0.0.2");
    expect(resolver.mapped("other.org")).toBeNull();
  });

  it("round-robin, first and random over a name's addresses", async () => {
    const hosts = { "rr.test": ["10.0.0.1", "10.0.0.2", "10.0.0.3"] };
    const take = async (select: "round-robin" | "first" | "random", n: number) => {
      const resolver = new HostResolver(hosts, { ttl: 1000, select });
      const out: string[] = [];
      for (let i = 0; i < n; i++) out.push((await resolver.resolve("rr.test")).address);
      return out;
    };
    expect(await take("round-robin", 6)).toEqual([
      "10.0.0.1",
      "10.0.0.2",
      "10.0.0.3",
      "10.0.0.1",
      "10.0.0.2",
      "10.0.0.3",
    ]);
    expect(new Set(await take("first", 5))).toEqual(new Set(["10.0.0.1"]));
    expect(new Set(await take("random", 200))).toEqual(new Set(hosts["rr.test"]));
  });

  it("resolves a name once for concurrent connects, keeps it for the TTL, then refreshes while the old answer serves", async () => {
    const dns = fakeDns({ "svc.test": ["10.1.0.1"] });
    const resolver = new HostResolver({}, { ttl: 50, select: "first" }, dns.lookup);
    const first = await Promise.all([resolver.resolve("svc.test"), resolver.resolve("svc.test")]);
    expect(first.map((a) => a.address)).toEqual(["10.1.0.1", "10.1.0.1"]);
    expect(dns.calls).toEqual(["svc.test"]);
    await resolver.resolve("svc.test");
    expect(dns.calls).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 60));
    dns.table["svc.test"] = ["10.1.0.2"];
    dns.hold();
    // Expired: the refresh starts, and this connect takes the old address without waiting for it.
    expect((await resolver.resolve("svc.test")).address).toBe("10.1.0.1");
    expect(dns.calls).toHaveLength(2);
    dns.release();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect((await resolver.resolve("svc.test")).address).toBe("10.1.0.2");
  });

  it("a name that never resolved fails each connect and is asked again; a failed refresh keeps the last answer", async () => {
    const dns = fakeDns({});
    const resolver = new HostResolver({}, { ttl: 20, select: "first" }, dns.lookup);
    await expect(resolver.resolve("gone.test")).rejects.toMatchObject({ code: "ENOTFOUND" });
    await expect(resolver.resolve("gone.test")).rejects.toMatchObject({ code: "ENOTFOUND" });
    expect(dns.calls).toEqual(["gone.test", "gone.test"]);
    dns.table["flaky.test"] = ["10.2.0.1"];
    await resolver.resolve("flaky.test");
    delete dns.table["flaky.test"];
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect((await resolver.resolve("flaky.test")).address).toBe("10.2.0.1");
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect((await resolver.resolve("flaky.test")).address).toBe("10.2.0.1");
  });

  it("answers net.connect's lookup in both shapes (with `all` for family auto-selection)", async () => {
    const resolver = new HostResolver({ "x.test": ["::1"] }, { ttl: 1000, select: "first" });
    const all = await new Promise((resolve) =>
      resolver.lookup("x.test", { all: true }, (_e, a) => resolve(a)),
    );
    expect(all).toEqual([{ address: "::1", family: 6 }]);
    const one = await new Promise((resolve) =>
      resolver.lookup("x.test", {}, (_e, address, family) => resolve([address, family])),
    );
    expect(one).toEqual(["::1", 6]);
  });
});
