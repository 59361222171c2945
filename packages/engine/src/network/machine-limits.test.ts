import { describe, expect, it } from "vitest";
import { checkMachineLimits, type MachineFacts, readLinuxFacts } from "./machine-limits.js";

const scenario = (vus: number, http: Record<string, unknown> = {}) => ({
  name: "limits",
  target: "http://127.0.0.1:9",
  load: { executor: "constant-vus", vus, duration: "1s" },
  http,
  requests: [{ path: "/" }],
});
const ALL = [{ weights: [1], index: 0 }];
const facts = (
  openFiles: number | null,
  ephemeralPorts: number | null,
  own: string[] = [],
): MachineFacts => ({
  openFiles,
  ephemeralPorts,
  canBind: async (address) => own.includes(address),
});

describe("checkMachineLimits", () => {
  it("passes a share the machine can hold", async () => {
    await expect(checkMachineLimits(scenario(19_000), ALL, facts(20_000, 28_232))).resolves.toBeUndefined();
  });

  it("refuses a share with more connections than open files, saying what to raise", async () => {
    await expect(checkMachineLimits(scenario(19_600), ALL, facts(20_000, 28_232))).rejects.toThrow(
      /19600 VUs, up to 19600 connections, but the process may open only 20000 files: raise the limit \(ulimit -n 20112/,
    );
  });

  it("refuses more connections to one target than the source addresses have ports", async () => {
    await expect(checkMachineLimits(scenario(30_000), ALL, facts(100_000, 28_232))).rejects.toThrow(
      /30000 connections to one target, more than one source address's 28232 ephemeral ports .*http\.localAddresses enough source addresses \(2\)/,
    );
    const spread = scenario(30_000, { localAddresses: ["127.0.0.2-127.0.0.3"] });
    await expect(
      checkMachineLimits(spread, ALL, facts(100_000, 28_232, ["127.0.0.2", "127.0.0.3"])),
    ).resolves.toBeUndefined();
  });

  it("refuses source addresses the machine does not have, naming them", async () => {
    const run = scenario(10, { localAddresses: ["127.0.0.2", "192.0.2.1-192.0.2.3"] });
    await expect(checkMachineLimits(run, ALL, facts(null, null, ["127.0.0.2"]))).rejects.toThrow(
      /http\.localAddresses: 192\.0\.2\.1, 192\.0\.2\.2, 192\.0\.2\.3 are not addresses of /,
    );
  });

  it("counts only this worker's share of the VUs", async () => {
    const half = [{ weights: [1, 1], index: 1 }];
    await expect(checkMachineLimits(scenario(38_000), half, facts(20_000, 28_232))).resolves.toBeUndefined();
  });

  it("reads this machine's limits from /proc and binds loopback addresses", async () => {
    const here = await readLinuxFacts();
    expect(here.openFiles).toBeGreaterThan(0);
    expect(here.ephemeralPorts).toBeGreaterThan(1000);
    expect(await here.canBind("127.0.0.3")).toBe(true);
    expect(await here.canBind("192.0.2.1")).toBe(false);
  });
});
