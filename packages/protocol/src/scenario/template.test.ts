import { describe, expect, it } from "vitest";
import { parseCapture } from "./capture.js";
import { parseTemplate, TemplateSyntaxError } from "./template.js";
import { parseThreshold } from "./thresholds.js";

describe("parseTemplate", () => {
  it("splits text, built-ins, randomInt and variables", () => {
    expect(parseTemplate("/u/{{vu}}/{{ iter }}?r={{randomInt 1 10}}&t={{token}}")).toEqual([
      { kind: "text", text: "/u/" },
      { kind: "builtin", name: "vu" },
      { kind: "text", text: "/" },
      { kind: "builtin", name: "iter" },
      { kind: "text", text: "?r=" },
      { kind: "randomInt", min: 1, max: 10 },
      { kind: "text", text: "&t=" },
      { kind: "variable", name: "token" },
    ]);
    expect(parseTemplate("plain")).toEqual([{ kind: "text", text: "plain" }]);
    expect(parseTemplate("")).toEqual([]);
  });

  it.each(["{{vu", "{{a-b}}", "{{randomInt 1}}", "{{randomInt 9 2}}"])("rejects %s", (source) => {
    expect(() => parseTemplate(source)).toThrow(TemplateSyntaxError);
  });
});

describe("{{base64 ...}}", () => {
  it("reads values and quoted texts, and they are checked as any template's", () => {
    const [part] = parseTemplate('{{base64 data.users.user ":" env.PASS}}');
    expect(part).toEqual({
      kind: "base64",
      source: "{{data.users.user}}:{{env.PASS}}",
      parts: [
        { kind: "data", feeder: "users", field: "user" },
        { kind: "text", text: ":" },
        { kind: "env", name: "PASS" },
      ],
    });
    expect(() => parseTemplate("{{base64}}")).toThrow("{{base64 ...}} needs what to encode");
    expect(() => parseTemplate("{{base64 data.x}}")).toThrow("must be {{data.FEEDER.FIELD}}");
  });
});

describe("parseCapture", () => {
  it("reads JSON paths, headers and regexes", () => {
    expect(parseCapture("json.a.b[0].c")).toEqual({ kind: "json", path: ["a", "b", 0, "c"] });
    expect(parseCapture("json[2]")).toEqual({ kind: "json", path: [2] });
    expect(parseCapture("header.X-Id")).toEqual({ kind: "header", name: "x-id" });
    expect(parseCapture("regex:id=(\\d+)")).toEqual({ kind: "regex", pattern: "id=(\\d+)" });
  });

  it.each(["body.x", "json.a..b", "json.a[x]", "header.", "regex:("])("rejects %s", (expression) => {
    expect(() => parseCapture(expression)).toThrow();
  });
});

describe("parseThreshold", () => {
  it("converts units", () => {
    expect(parseThreshold("p95", "<200ms")).toMatchObject({ metric: "p95", operator: "<", value: 200 });
    expect(parseThreshold("p99[login]", "<= 1.5s")).toMatchObject({ request: "login", value: 1500 });
    expect(parseThreshold("errorRate", "<1%").value).toBeCloseTo(0.01);
    expect(parseThreshold("errorRate", "<0.05").value).toBe(0.05);
    expect(parseThreshold("rps", ">=100")).toMatchObject({ operator: ">=", value: 100 });
  });

  it("rejects wrong units and unknown metrics", () => {
    expect(() => parseThreshold("p95", "<1%")).toThrow(/latency/);
    expect(() => parseThreshold("rps", ">1ms")).toThrow(/plain number/);
    expect(() => parseThreshold("latency", "<1ms")).toThrow(/unknown metric/);
    expect(() => parseThreshold("p95", "about 200")).toThrow(/not a comparison/);
  });
});

describe("parseTemplate on hostile input", () => {
  // The regular expression the scanner replaced: the reference for what a template means.
  const reference = (source: string) => {
    const tokens: string[] = [];
    let last = 0;
    for (const match of source.matchAll(/\{\{\s*([^{}]*?)\s*\}\}/g)) {
      tokens.push(source.slice(last, match.index), `<${match[1]}>`);
      last = (match.index ?? 0) + match[0].length;
    }
    return {
      tokens: [...tokens, source.slice(last)].filter(Boolean),
      unclosed: source.slice(last).includes("{{"),
    };
  };
  const scanned = (source: string) => {
    try {
      const parts = parseTemplate(source).map((part) =>
        part.kind === "text" ? part.text : `<${part.kind === "variable" ? part.name : "?"}>`,
      );
      return { tokens: parts, unclosed: false };
    } catch (error) {
      if (/unclosed/.test((error as Error).message)) return { tokens: [], unclosed: true };
      throw error;
    }
  };

  it("splits every small mix of braces, spaces and names as the old expression did", () => {
    const alphabet = ["{", "}", " ", "a", "b"];
    let checked = 0;
    for (let length = 1; length <= 7; length++) {
      for (let n = 0; n < alphabet.length ** length; n++) {
        let source = "";
        for (let k = 0, m = n; k < length; k++, m = Math.floor(m / alphabet.length))
          source += alphabet[m % alphabet.length];
        let want = reference(source);
        if (want.tokens.some((t) => t.startsWith("<") && !/^<[A-Za-z_]\w*>$/.test(t))) {
          // "{{}}" or "{{a b}}" names no variable: refused.
          expect(() => parseTemplate(source), JSON.stringify(source)).toThrow(/not a variable name/);
          continue;
        }
        if (want.unclosed) want = { tokens: [], unclosed: true };
        expect(scanned(source), JSON.stringify(source)).toEqual(want);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(50_000);
  });

  it("parses '{{' and thousands of spaces at once (the old expression took 24 s for 3,500)", () => {
    const source = `{{${" ".repeat(200_000)}x`;
    expect(() => parseTemplate(source)).toThrow(/unclosed "\{\{" in "\{\{ {98}\.\.\. \(200003 characters\)"/);
    expect(parseTemplate(`{{${" ".repeat(200_000)}vu${" ".repeat(200_000)}}}`)).toEqual([
      { kind: "builtin", name: "vu" },
    ]);
    expect(() => parseTemplate("{".repeat(100_000))).toThrow(/unclosed/);
    expect(parseTemplate(`${"{{ a{".repeat(20_000)}{{b}}`).at(-1)).toEqual({ kind: "variable", name: "b" });
  });

  it("bounds a template's length and its tokens", () => {
    expect(() => parseTemplate("x".repeat(1024 * 1024 + 1))).toThrow(/longer than 1048576 characters/);
    expect(() => parseTemplate("{{vu}}".repeat(10_001))).toThrow(/more than 10000/);
    expect(parseTemplate("{{vu}}".repeat(10_000))).toHaveLength(10_000);
  });
});
