import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { CALL_SITE_KEY } from "../call-sites/index.js";
import { bundleScripts } from "./bundle-scripts.js";

// A bundle's vu.http calls carry the place they were made ("flow.ts:4"): a test stamp records the
// places in the order the calls return, against a fake vu whose methods answer at once.
const stampKey = Symbol.for(CALL_SITE_KEY);
const globals = globalThis as Record<symbol, unknown>;
afterEach(() => {
  delete globals[stampKey];
  process.setSourceMapsEnabled(false);
});

type Run = (vu: unknown) => Promise<unknown>;

async function load(files: Record<string, string>): Promise<{ run: Run; places: string[]; code: string }> {
  const { "flow.ts": bundled } = await bundleScripts(["flow.ts"], files);
  const places: string[] = [];
  globals[stampKey] = (place: string, answer: unknown) => {
    places.push(place);
    return answer;
  };
  process.setSourceMapsEnabled(true);
  const out = mkdtempSync(join(tmpdir(), "volley-stamp-"));
  writeFileSync(join(out, "b.mjs"), bundled.code);
  const module = (await import(pathToFileURL(join(out, "b.mjs")).href)) as { default: Run };
  return { run: module.default, places, code: bundled.code };
}

function fakeVu(sent: string[]) {
  const answer = (url: string) => {
    sent.push(url);
    return Promise.resolve({ status: 200, body: url });
  };
  const http = {
    get: (url: string) => answer(url),
    post: (url: string) => answer(url),
    put: (url: string) => answer(url),
    request: (_method: string, url: string) => answer(url),
    batch: (list: { url: string }[]) => Promise.all(list.map((r) => answer(r.url))),
  };
  return { http };
}

describe("a bundle's calls carry where the script made them", () => {
  it("stamps every form of a vu.http call in the user's files, not a package's", async () => {
    const flow = [
      'import pad from "left-pad";',
      'import { helper } from "./lib/helper";',
      'import legacy from "./lib/legacy.cjs";',
      "export default async function (vu: any) {",
      '  const n: number = 1; vu.http.get("/a"); await vu.http.post("/b").then((r: any) => r.status);',
      '  vu.http.batch([{ url: "/c" }]);',
      '  const { put } = vu.http; put("/d"); vu.http["request"]("GET", "/e");',
      "  await helper(vu); await legacy(vu);",
      '  vu.http.post(pad("/f"), { body: (await vu.http.get("/g")).body });',
      "  return n;",
      "}",
    ].join("\n");
    const { run, places, code } = await load({
      "flow.ts": flow,
      "lib/helper.ts": 'export function helper(vu: any) {\n  return vu.http.get("/h");\n}\n',
      // CommonJS, with a top-level return no module may have: still stamped.
      "lib/legacy.cjs": 'module.exports = (vu) => vu.http.get("/l");\nif (module.exports) return;\n',
      "node_modules/left-pad/package.json": JSON.stringify({ name: "left-pad", main: "index.js" }),
      "node_modules/left-pad/index.js":
        "module.exports = (s) => { const m = new Map(); m.get(s); return s; };\n",
    });
    const sent: string[] = [];
    await run(fakeVu(sent));
    expect(sent).toEqual(["/a", "/b", "/c", "/d", "/e", "/h", "/l", "/g", "/f"]);
    expect(places).toEqual([
      "flow.ts:5",
      "flow.ts:5",
      "flow.ts:6",
      "flow.ts:7",
      "flow.ts:7",
      "lib/helper.ts:2",
      "lib/legacy.cjs:1",
      "flow.ts:9",
      "flow.ts:9",
    ]);
    // The package's own `m.get` is left as it was (it ran: a stamp would have been recorded too).
    expect(code).not.toContain(`__volleyAt("node_modules`);
  });

  it("keeps an optional chain's short-circuit and the calls' own order of evaluation", async () => {
    const flow = [
      "export default async function (vu: any) {",
      '  vu.missing?.get("/x").then(() => 1);',
      '  const viaChain = vu.http?.get("/a");',
      // Two calls that start at one place (the outer's callee is the inner call).
      "  const store: any = { get: () => store }; store.get()",
      "    .get();",
      '  return [await viaChain, vu.http.get(await vu.http.get("/b").then(() => "/c"))];',
      "}",
    ].join("\n");
    const { run, places } = await load({ "flow.ts": flow });
    const sent: string[] = [];
    await run(fakeVu(sent));
    expect(sent).toEqual(["/a", "/b", "/c"]);
    // Every call named like vu.http's is stamped (the engine ignores a stamp on what it did not
    // make); the chain that may short-circuit midway is not.
    expect(places).toEqual(["flow.ts:3", "flow.ts:4", "flow.ts:5", "flow.ts:6", "flow.ts:6"]);
  });

  it("leaves errors pointing at the user's line and column on a stamped line", async () => {
    const flow = [
      "export default async function (vu: any) {",
      "  const typed: number = 1; void typed;",
      // One statement is one line of the bundle: the failing call follows two stamped ones on
      // its line, and mappings not moved past the inserted text would name another column.
      '  await Promise.all([vu.http.get("/a"), vu.http.get("/b"), vu.missing(1, 2, 3, 4, 5, 6, 7, 8, 9)]);',
      "}",
    ].join("\n");
    const { run } = await load({ "flow.ts": flow });
    const error = await run(fakeVu([])).then(
      () => null,
      (e: Error) => e,
    );
    const column = flow.split("\n")[2].indexOf("missing") + 1;
    expect(error?.message).toMatch(/missing is not a function/);
    expect(error?.stack).toContain(`flow.ts:3:${column}`);
  });

  it("keeps what the file says beyond its calls: an import's attributes", async () => {
    const flow = [
      'import users from "./users.json" with { type: "text" };',
      'import helperText from "./helper.ts" with { type: "text" };',
      "export default async function (vu: any) {",
      '  await vu.http.get("/" + JSON.parse(users)[0] + "/" + helperText.length);',
      "}",
    ].join("\n");
    const helper = 'export const get = (vu: any) => vu.http.get("/h");\n';
    const { run, places } = await load({ "flow.ts": flow, "users.json": '["ann"]', "helper.ts": helper });
    const sent: string[] = [];
    await run(fakeVu(sent));
    // A file read as text is the text as written, not stamped.
    expect(sent).toEqual([`/ann/${helper.length}`]);
    expect(places).toEqual(["flow.ts:4"]);
  });

  it("runs unchanged where no engine installed a stamp", async () => {
    const { "flow.ts": bundled } = await bundleScripts(["flow.ts"], {
      "flow.ts": 'export default async (vu: any) => (await vu.http.get("/a")).status;\n',
    });
    const out = mkdtempSync(join(tmpdir(), "volley-stamp-"));
    writeFileSync(join(out, "b.mjs"), bundled.code);
    const module = (await import(pathToFileURL(join(out, "b.mjs")).href)) as { default: Run };
    expect(await module.default(fakeVu([]))).toBe(200);
  });
});
