import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunningMaster } from "@volley/master";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestFleet, type TestFleet } from "./support/in-process.js";
import { isolatedSetup, sendJson, spawnCli } from "./support/processes.js";
import { FLOW, SIGN } from "./support/script-sources.js";
import type { TargetServer } from "./support/target-server.js";

// A script's files on their way in: the master refuses what does not compile or is not there
// (400, file:line:column), and `volley run` sends the script with what it imports.
let fleet: TestFleet;
let target: TargetServer;
let master: RunningMaster;

beforeAll(async () => {
  fleet = await startTestFleet();
  ({ target, master } = fleet);
});
afterAll(() => fleet.close());

describe("script files", () => {
  it("refuses a script that does not compile, is missing, or has no default export (400, file:line:column)", async () => {
    const scenario = {
      name: "bad-script",
      target: target.url,
      load: { executor: "per-vu-iterations", vus: 1, iterations: 1 },
      script: "bad.ts",
    };
    const syntax = await sendJson("POST", `${master.url}/api/runs`, {
      scenario,
      scripts: { "bad.ts": "export default async function (vu) {\n  const x = ;\n}\n" },
    });
    expect(syntax.status).toBe(400);
    expect(syntax.body.details?.[0]).toMatchObject({ path: "script" });
    expect(syntax.body.details?.[0].message).toMatch(/^bad\.ts:2:13: /);
    const missing = await sendJson("POST", `${master.url}/api/runs`, { scenario, scripts: {} });
    expect(missing.body.details?.[0]).toEqual({
      path: "script",
      message: "bad.ts was not sent with the scenario",
    });
    const noDefault = await sendJson("POST", `${master.url}/api/runs`, {
      scenario,
      scripts: { "bad.ts": "export const x = 1;" },
    });
    expect(noDefault.body.details?.[0].message).toContain("has no default export");
    const both = await sendJson("POST", `${master.url}/api/runs`, {
      scenario: { ...scenario, requests: [{ path: "/" }] },
      scripts: { "bad.ts": "export default () => {}" },
    });
    expect(both.body.details?.[0]).toMatchObject({ path: "script" });
    expect(both.body.details?.[0].message).toContain("requests and script are both set");
    const absolute = await sendJson("POST", `${master.url}/api/runs`, {
      scenario,
      scripts: { "bad.ts": "export default () => {}", "/etc/x.ts": "" },
    });
    expect(absolute.status).toBe(400);
    expect(absolute.body.details?.[0].message).toContain("must stay relative");
  });

  it("volley run sends the script and what it imports, and exits 2 with file:line on a syntax error", async () => {
    const dir = mkdtempSync(join(tmpdir(), "volley-script-"));
    mkdirSync(join(dir, "lib"));
    writeFileSync(join(dir, "flow.ts"), FLOW);
    writeFileSync(join(dir, "lib/sign.ts"), SIGN);
    const write = (name: string, script: string) => {
      writeFileSync(
        join(dir, name),
        JSON.stringify({
          name: "cli-scripted",
          target: target.url,
          load: { executor: "per-vu-iterations", vus: 2, iterations: 3 },
          script,
        }),
      );
      return join(dir, name);
    };
    const setup = isolatedSetup();
    const env = { DATABASE_URL: setup.databaseUrl, VOLLEY_QUEUE_PREFIX: setup.queuePrefix };
    target.reset();
    const ok = spawnCli(["run", write("ok.json", "./flow.ts"), "--master", master.url], env, dir);
    expect(await ok.exited, ok.output.join("")).toBe(0);
    expect(ok.output.join("")).toContain("hello says hello");
    expect(target.counts.get("/hello")).toBe(6);
    writeFileSync(join(dir, "broken.ts"), "export default async () => {\n  await ;\n}\n");
    const broken = spawnCli(["run", write("broken.json", "broken.ts"), "--master", master.url], env, dir);
    expect(await broken.exited).toBe(2);
    expect(broken.output.join("")).toMatch(/script: broken\.ts:2:\d+: /);
  });
});
