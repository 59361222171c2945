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
