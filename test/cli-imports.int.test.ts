// What each command loads. `volley worker` runs beside the load it makes and `volley aggregator`
// beside many others: neither may carry the master (Fastify, Prisma, the script type checker's
// TypeScript), which was 70 MB of a worker's RSS when a shared helper pulled it in.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI } from "./support/processes.js";

const dir = mkdtempSync(join(tmpdir(), "volley-imports-"));
// A module resolve hook that writes down every URL the process imports.
writeFileSync(
  join(dir, "hooks.mjs"),
  `import { appendFileSync } from "node:fs";
let out;
export function initialize(data) { out = data.out; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(out, resolved.url + "\\n");
  return resolved;
}
`,
);
writeFileSync(
  join(dir, "register.mjs"),
  `import { register } from "node:module";
register("./hooks.mjs", import.meta.url, { data: { out: process.env.VOLLEY_IMPORTS_OUT } });
`,
);

/**
 * The URLs `volley <command> --help` imports (the command's module and all it imports), or
 * those of `volley <command> ...args` where `said` is what it prints.
 */
function importsOf(command: string, args = ["--help"], said = `Usage: volley ${command}`): string[] {
  const out = join(dir, `${command}.txt`);
  writeFileSync(out, "");
  const result = spawnSync(process.execPath, ["--import", join(dir, "register.mjs"), CLI, command, ...args], {
    env: { ...process.env, VOLLEY_IMPORTS_OUT: out },
    encoding: "utf8",
  });
  expect(result.stdout + result.stderr).toContain(said);
  return readFileSync(out, "utf8").split("\n").filter(Boolean);
}

const MASTER_PARTS = ["/apps/master/", "/node_modules/fastify/", "/node_modules/typescript/", "/@prisma/"];
const masterParts = (urls: string[]) => urls.filter((url) => MASTER_PARTS.some((part) => url.includes(part)));

describe("what a command loads", () => {
  it("volley worker and volley aggregator load no part of the master; volley master does", () => {
    const worker = importsOf("worker");
    expect(worker.some((url) => url.includes("/apps/worker/dist/"))).toBe(true);
    expect(masterParts(worker)).toEqual([]);
    const aggregator = importsOf("aggregator");
    expect(aggregator.some((url) => url.includes("/apps/aggregator/dist/"))).toBe(true);
    expect(masterParts(aggregator)).toEqual([]);
    // `volley master --help` is instant: the master is loaded only past it. The check sees it
    // where it belongs: a master command that gets as far as its flags' checks.
    expect(masterParts(importsOf("master"))).toEqual([]);
    const master = importsOf(
      "master",
      ["--worker-host", "127.0.0.1"],
      "--worker-host and --worker-port go together",
    );
    expect(masterParts(master).length).toBeGreaterThan(0);
  });
});
