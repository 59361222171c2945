import { describe, expect, it } from "vitest";
import { runScriptHook } from "./script-lifecycle.js";

// A script's setup()/teardown() run in a sandboxed process: only the run's env values, no reads
// outside its bundle, no writes, no processes; the master's own secrets are out of reach.
describe("runScriptHook", () => {
  it("returns the hook's JSON and sees the run's env values, none of the master's", async () => {
    process.env.VOLLEY_HOOK_TEST_SECRET = "master-only";
    const bundle = `export function setup() {
      return { keys: Object.keys(process.env).sort(), given: process.env.GIVEN, secret: process.env.VOLLEY_HOOK_TEST_SECRET ?? null };
    }`;
    const json = await runScriptHook(bundle, "setup", { GIVEN: "yes" });
    expect(JSON.parse(json ?? "null")).toEqual({ keys: ["GIVEN"], given: "yes", secret: null });
  });

  it("refuses to read the master's files, write files or start processes", async () => {
    const attempt = (
      what: string,
    ) => `import * as fs from "node:fs"; import * as cp from "node:child_process";
      export function setup() { ${what}; return "done"; }`;
    for (const what of [
      'fs.readFileSync("/etc/passwd", "utf8")',
      `fs.readFileSync(${JSON.stringify(process.cwd() + "/package.json")}, "utf8")`,
      'fs.writeFileSync("/tmp/volley-hook-wrote", "x")',
      'cp.execSync("id")',
    ]) {
      await expect(runScriptHook(attempt(what), "setup", {}), what).rejects.toThrow(
        /setup\(\) failed: .*(ERR_ACCESS_DENIED|Access to this API has been restricted)/,
      );
    }
  });

  it("passes teardown its argument, and stops a hook that never returns", async () => {
    const bundle = "export function teardown(data) { return data.n + 1; }";
    expect(await runScriptHook(bundle, "teardown", {}, JSON.stringify({ n: 41 }))).toBe("42");
    await expect(
      runScriptHook("export function setup() { for (;;) {} }", "setup", {}, undefined, 1500),
    ).rejects.toThrow("setup() did not finish within 1.5 s");
  });
});
