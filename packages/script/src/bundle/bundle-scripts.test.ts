import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { bundleScripts, ScriptBundleError } from "./bundle-scripts.js";
import { collectScriptSources } from "./collect-sources.js";

/** A scenario folder with a script that imports a file above it and an npm package beside it. */
function project(): string {
  const root = mkdtempSync(join(tmpdir(), "volley-bundle-test-"));
  const dir = join(root, "tests");
  mkdirSync(join(dir, "node_modules/left-pad"), { recursive: true });
  mkdirSync(join(root, "shared"));
  writeFileSync(
    join(dir, "flow.ts"),
    [
      'import pad from "left-pad";',
      'import { greet } from "../shared/greet";',
      "export default async function (vu: { number: number }): Promise<string> {",
      "  return greet(pad(String(vu.number), 3));",
      "}",
      "",
    ].join("\n"),
  );
  writeFileSync(join(root, "shared/greet.ts"), 'export const greet = (who: string) => "hi " + who;\n');
  // A CommonJS package that requires a Node built-in, as many on npm do.
  writeFileSync(
    join(dir, "node_modules/left-pad/package.json"),
    JSON.stringify({ name: "left-pad", main: "index.js" }),
  );
  writeFileSync(
    join(dir, "node_modules/left-pad/index.js"),
    'const { strict } = require("node:assert"); strict.ok(true); module.exports = (s, n) => s.padStart(n, "0");\n',
  );
  return dir;
}

describe("scripts: collected where they are, bundled by the master", () => {
  it("names the lifecycle hooks a script exports without running it", async () => {
    const source =
      "globalThis.ran = true;\nexport function setup() {}\nexport const teardown = () => {};\nexport default () => {};\n";
    const { "a.ts": bundled } = await bundleScripts(["a.ts"], { "a.ts": source });
    expect(bundled.hooks).toEqual({ setup: true, teardown: true });
    expect((globalThis as { ran?: boolean }).ran).toBeUndefined();
  });

  it("collects a script with a file above it and an npm package beside it, and bundles one module", async () => {
    const dir = project();
    const files = await collectScriptSources(dir, ["flow.ts"]);
    expect(Object.keys(files).sort()).toEqual([
      "../shared/greet.ts",
      "flow.ts",
      "node_modules/left-pad/index.js",
      "node_modules/left-pad/package.json",
    ]);
    const { "flow.ts": bundled } = await bundleScripts(["flow.ts"], files);
    const bundle = bundled.code;
    expect(bundle).toContain("sourceMappingURL=data:application/json;base64,");
    expect(bundled.hooks).toEqual({ setup: false, teardown: false });
    // The bundle runs on its own: nothing left to resolve but Node's built-ins.
    const out = mkdtempSync(join(tmpdir(), "volley-bundle-out-"));
    writeFileSync(join(out, "b.mjs"), bundle);
    const module = (await import(pathToFileURL(join(out, "b.mjs")).href)) as {
      default: (vu: { number: number }) => Promise<string>;
    };
    expect(await module.default({ number: 7 })).toBe("hi 007");
  });

  it("says where a script does not compile, and refuses paths that leave the folder", async () => {
    const broken = bundleScripts(["a.ts"], { "a.ts": "export default () => {\n  let = 1;\n}\n" });
    await expect(broken).rejects.toBeInstanceOf(ScriptBundleError);
    const problems = await broken.then(
      () => [],
      (error: ScriptBundleError) => error.problems,
    );
    expect(problems[0]?.message).toMatch(/^a\.ts:2:\d+: /);
    await expect(bundleScripts(["a.ts"], { "a.ts": "export const x = 1;" })).rejects.toThrow(
      /no default export/,
    );
    await expect(bundleScripts(["a.ts"], {})).rejects.toThrow(/a\.ts was not sent/);
    await expect(
      bundleScripts(["a.ts"], { "a.ts": "export default () => {}", "/etc/passwd": "x" }),
    ).rejects.toThrow(/must stay relative/);
    // Imports reach only the files sent: never the bundling machine's own disk.
    for (const spec of ["/etc/passwd", "../../../../../../../etc/passwd", "file:///etc/passwd"]) {
      const source = `import pw from ${JSON.stringify(spec)} with { type: "text" };\nexport default () => pw;\n`;
      const refused = await bundleScripts(["a.ts"], { "a.ts": source }).then(
        () => null,
        (error: ScriptBundleError) => error.problems[0]?.message ?? "",
      );
      expect(refused, spec).toMatch(/^a\.ts:1:\d+: .*(not among the files sent|Could not resolve)/);
      expect(refused, spec).not.toContain("root:");
    }
    // A k6 script's imports are answered with Volley's way of doing the same.
    await expect(
      bundleScripts(["a.ts"], { "a.ts": 'import http from "k6/http";\nexport default () => http;\n' }),
    ).rejects.toThrow(/a\.ts:1:\d+: imports "k6\/http", a k6 module: .* vu\.http\.get.*volley convert k6/);
    // A package the master has installed (esbuild itself) is not one the run sent.
    await expect(
      bundleScripts(["a.ts"], { "a.ts": 'import * as e from "esbuild";\nexport default () => e;\n' }),
    ).rejects.toThrow(/esbuild/);
    await expect(collectScriptSources(mkdtempSync(join(tmpdir(), "v-")), ["none.ts"])).rejects.toThrow(
      /cannot read none\.ts/,
    );
  });
});
