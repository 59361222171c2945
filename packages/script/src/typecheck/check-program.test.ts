import { describe, expect, it } from "vitest";
import { checkScripts } from "./check-program.js";

// The checker against @volley/script's types and Node's, on sources held in memory.
describe("checkScripts", () => {
  const flow = (body: string) => ({
    "flow.ts": `import type { Vu } from "@volley/script";\nimport { sign } from "./lib/sign";\nexport default async function (vu: Vu) {\n${body}\n}\n`,
    "lib/sign.ts": `import { createHmac } from "node:crypto";\nexport const sign = (t: string) => createHmac("sha256", "k").update(t).digest("hex");\n`,
  });

  it("passes a script that uses the API, a relative import and a node built-in as typed", () => {
    const files = flow(
      '  const r = await vu.http.get("/a", { headers: { "x-sig": sign("a") }, timeout: 2000 });\n  vu.check("ok", r.status === 200 && r.timings.blocked >= 0);',
    );
    expect(checkScripts(["flow.ts"], files)).toEqual([]);
  });

  it("names each problem with the file, line and column", () => {
    const files = flow(
      '  const r = await vu.http.get("/a", { timeout: "2s" });\n  vu.check("ok", r.statuss === 200);',
    );
    const problems = checkScripts(["flow.ts"], files);
    expect(problems.map((p) => p.script)).toEqual(["flow.ts", "flow.ts"]);
    expect(problems[0].message).toMatch(/^flow\.ts:4:\d+: Type 'string' is not assignable to type 'number'/);
    expect(problems[1].message).toMatch(
      /^flow\.ts:5:\d+: Property 'statuss' does not exist on type 'HttpResponse'/,
    );
  });

  it("checks calls into imported files; an import nothing resolves is typed any", () => {
    const files = {
      ...flow('  await vu.http.get("/" + sign(1));'),
      "flow2.ts": 'import x from "nowhere";\nx.anything();\n',
    };
    const problems = checkScripts(["flow.ts", "flow2.ts"], files);
    expect(problems).toEqual([
      { script: "flow.ts", message: expect.stringMatching(/^flow\.ts:4:\d+: Argument of type 'number'/) },
    ]);
  });

  it("leaves JavaScript and scripts not sent to the bundler", () => {
    expect(checkScripts(["flow.js"], { "flow.js": "export default (vu) => vu.http.nope()" })).toEqual([]);
    expect(checkScripts(["missing.ts"], {})).toEqual([]);
  });
});
