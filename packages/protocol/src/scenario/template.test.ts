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
