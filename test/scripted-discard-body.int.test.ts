import type { RunDetail } from "@volley/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestFleet, type TestFleet } from "./support/in-process.js";
import { sendJson, waitForRunEnd } from "./support/processes.js";

// A script's `discardBody`: the answer's body counted where it lies and not kept, against a
// loopback server that counts what it received.
let fleet: TestFleet;

beforeAll(async () => {
  fleet = await startTestFleet({ workers: 1, threads: 2 });
});
afterAll(() => fleet.close());

async function run(scenario: Record<string, unknown>, scripts: Record<string, string>): Promise<RunDetail> {
  const created = await sendJson("POST", `${fleet.master.url}/api/runs`, { scenario, scripts });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return waitForRunEnd<RunDetail>(fleet.master.url, created.body.id as string, 60_000);
}

describe("scripted requests whose body is not kept", () => {
  it("discardBody: the body is counted, not kept (no maxBodyBytes failure, no decoding); reading it throws; bad use is a script error", async () => {
    fleet.target.reset();
    const report = await run(
      {
        name: "scripted-discard",
        target: fleet.target.url,
        load: { executor: "per-vu-iterations", vus: 2, iterations: 3 },
        // The plain answer of /compressed is ~4 KB: over this limit when kept.
        http: { maxBodyBytes: 1024, compression: true },
        script: "discard.ts",
      },
      {
        "discard.ts": `export default async (vu) => {
          const dropped = await vu.http.get("/compressed?as=none", { name: "dropped", discardBody: true });
          let message = "";
          try { dropped.body; } catch (error) { message = (error as Error).message; }
          vu.check("reading a discarded body throws", /discardBody/.test(message) && dropped.status === 200);
          await vu.http.get("/compressed?as=none", { name: "kept" });
          // Decoded, the packed answer is over the limit too: a discarded one is not decoded.
          await vu.http.get("/compressed?as=gzip", { name: "packed", discardBody: true });
          await vu.http.batch([{ url: "/hello", name: "batched", discardBody: true }]);
          if (vu.iteration === 0) await vu.http.get("/hello", { name: "bad", discardBody: "yes" as unknown as boolean });
          if (vu.iteration === 1) await vu.http.get("/hello", { name: "both", discardBody: true, expect: { body: "hello" } });
        }`,
      },
    );
    expect(report.status).toBe("finished");
    const by = (name: string) => report.summary.requests.find((r) => r.name === name);
    expect(by("dropped")).toMatchObject({ requests: 6, failures: 0 });
    expect(by("packed")).toMatchObject({ requests: 6, failures: 0 });
    expect(by("batched")).toMatchObject({ requests: 6, failures: 0 });
    // Kept, the same answer passes the limit: the failure a discarded body does not have.
    expect(by("kept")).toMatchObject({ requests: 6, failures: 6 });
    // Every byte of the answer is counted either way.
    expect(by("dropped")?.bytesIn).toBe(by("kept")?.bytesIn);
    expect(report.summary.checks).toEqual([{ name: "reading a discarded body throws", passes: 6, fails: 0 }]);
    // The two wrong calls threw before sending: script errors naming the field, no request.
    expect(fleet.target.counts.get("/hello")).toBe(6);
    expect(fleet.target.total()).toBe(report.summary.total.requests);
    const scriptErrors = report.summary.errors.filter((e) => e.kind === "script").map((e) => e.message);
    expect(scriptErrors).toHaveLength(2);
    expect(scriptErrors.some((m) => m.includes("discardBody must be true or false"))).toBe(true);
    expect(scriptErrors.some((m) => m.includes("expect.body reads the answer's body"))).toBe(true);
  });
});
