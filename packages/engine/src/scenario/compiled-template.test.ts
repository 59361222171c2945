import { parseScenario } from "@volley/protocol";
import { describe, expect, it } from "vitest";
import { compileRequests, statusAccepted } from "./compiled-request.js";
import { CompiledTemplate } from "./compiled-template.js";

const ctx = { vu: 7, iter: 3, worker: "w1", vars: { token: 'a"b\\c' }, rows: [] };

describe("CompiledTemplate", () => {
  it("renders built-ins and variables", () => {
    expect(new CompiledTemplate("/u/{{vu}}/{{iter}}/{{worker}}/{{token}}").render(ctx)).toBe(
      '/u/7/3/w1/a"b\\c',
    );
    expect(new CompiledTemplate("{{missing}}x").render({ ...ctx, vars: {} })).toBe("x");
    expect(Number(new CompiledTemplate("{{now}}").render(ctx))).toBeGreaterThan(1.7e12);
    expect(new CompiledTemplate("{{uuid}}").render(ctx)).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("escapes values inside JSON strings so the body stays valid JSON", () => {
    const body = new CompiledTemplate(JSON.stringify({ auth: "Bearer {{token}}", vu: "{{vu}}" }), true);
    expect(JSON.parse(body.render(ctx))).toEqual({ auth: 'Bearer a"b\\c', vu: "7" });
  });

  it("base64 joins its values and quoted texts and encodes them (Basic authentication, say)", () => {
    const b64 = (text: string) => Buffer.from(text).toString("base64");
    expect(new CompiledTemplate('Basic {{base64 token ":" vu}}').render(ctx)).toBe(
      `Basic ${b64('a"b\\c:7')}`,
    );
    const fixed = new CompiledTemplate('{{base64 "user:pass"}}');
    expect(fixed.isStatic).toBe(true);
    expect(fixed.render(ctx)).toBe(b64("user:pass"));
    // In a form body the encoded value is URL-encoded like any other.
    expect(new CompiledTemplate('{{base64 "a?>"}}', "url").render(ctx)).toBe(encodeURIComponent(b64("a?>")));
  });

  it("randomInt stays within its bounds, both included", () => {
    const t = new CompiledTemplate("{{randomInt 1 3}}");
    const seen = new Set(Array.from({ length: 300 }, () => t.render(ctx)));
    expect([...seen].sort()).toEqual(["1", "2", "3"]);
  });

  it("randomString draws each character uniformly from the 62 letters and digits, at every position", () => {
    // 12 characters span three draws of five (the last one cut short): every position is counted.
    const t = new CompiledTemplate("{{randomString 12}}");
    const samples = 62 * 400;
    const counts = Array.from({ length: 12 }, () => new Map<string, number>());
    for (let n = 0; n < samples; n++) {
      const text = t.render(ctx);
      expect(text).toMatch(/^[a-zA-Z0-9]{12}$/);
      for (let i = 0; i < 12; i++) counts[i].set(text[i], (counts[i].get(text[i]) ?? 0) + 1);
    }
    // 400 expected of each character at each position (σ ≈ 20): a position drawn from too few
    // values, or a digit of the draw biased, falls far outside 250-550.
    for (const position of counts) {
      expect(position.size).toBe(62);
      for (const count of position.values()) {
        expect(count).toBeGreaterThan(250);
        expect(count).toBeLessThan(550);
      }
    }
  });
  it("knows a fixed template", () => {
    expect(new CompiledTemplate("/hello").isStatic).toBe(true);
    expect(new CompiledTemplate("/{{vu}}").isStatic).toBe(false);
  });
});

describe("compileRequests", () => {
  const scenario = parseScenario({
    name: "c",
    target: "http://127.0.0.1:9/api/",
    load: { executor: "per-vu-iterations", vus: 1, iterations: 1 },
    requests: [
      { path: "/a", query: { q: "x y", v: "{{vu}}" }, body: { a: 1 } },
      {
        name: "b",
        path: "/b?x=1",
        query: { y: 2 },
        headers: { Authorization: "t" },
        expect: { status: "2xx" },
      },
    ],
  });
  const [a, b] = compileRequests(scenario);

  it("joins the target's base path, the path and the query", () => {
    expect(a.path.render(ctx)).toBe("/api/a?q=x%20y&v=7");
    expect(b.path.render(ctx)).toBe("/api/b?x=1&y=2");
  });

  it("serializes fixed bodies once and adds a JSON content type", () => {
    expect(a.staticBody?.toString()).toBe('{"a":1}');
    expect(a.staticHeaders).toEqual(["content-type", "application/json"]);
    expect(b.staticHeaders).toEqual(["authorization", "t"]);
    expect(a.name).toBe("GET /a");
  });

  it("accepts statuses by expectation, or below 400 by default", () => {
    expect(statusAccepted(a, 302)).toBe(true);
    expect(statusAccepted(a, 404)).toBe(false);
    expect(statusAccepted(b, 204)).toBe(true);
    expect(statusAccepted(b, 302)).toBe(false);
  });
});
