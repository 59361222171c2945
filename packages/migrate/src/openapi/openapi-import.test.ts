import { describe, expect, it } from "vitest";
import { toYaml } from "../imported.js";
import { importOpenapi } from "./openapi-import.js";
import { SchemaExamples } from "./schema-example.js";

const spec = (text: string) => importOpenapi({ name: "api.yaml", text });

describe("importOpenapi", () => {
  it("writes one request per operation with credentials from the environment", () => {
    const imported = spec(`openapi: 3.0.3
info: { title: Store, version: "1" }
servers: [{ url: "https://{host}/api", variables: { host: { default: store.test } } }]
components:
  securitySchemes:
    basic: { type: http, scheme: basic }
    key: { type: apiKey, in: query, name: key }
  parameters:
    Page: { name: page, in: query, schema: { type: integer, default: 3 } , example: 3 }
paths:
  /items:
    get:
      security: [{ basic: [] }]
      parameters: [{ $ref: "#/components/parameters/Page" }, { name: X-Tenant, in: header, required: true, schema: { type: string, enum: [acme, other] } }]
      responses: { "200": { description: ok }, "206": { description: part } }
    post:
      security: [{ key: [] }]
      requestBody:
        content:
          application/x-www-form-urlencoded: { example: { sku: A1, qty: 2 } }
      responses: { default: { description: any } }
  /notes:
    put:
      requestBody: { content: { text/plain: { example: "hello" } } }
      responses: { "204": { description: ok } }
    trace: { responses: { "200": { description: ok } } }
`);
    expect(imported.scenario).toMatchObject({
      name: "Store",
      target: "https://store.test",
      env: ["API_USER", "API_PASSWORD", "API_KEY"],
    });
    expect(imported.scenario.requests).toEqual([
      {
        name: "GET /api/items",
        method: "GET",
        path: "/api/items",
        query: { page: 3 },
        headers: { authorization: 'Basic {{base64 env.API_USER ":" env.API_PASSWORD}}', "x-tenant": "acme" },
        expect: { status: [200, 206] },
      },
      {
        name: "POST /api/items",
        method: "POST",
        path: "/api/items",
        query: { key: "{{env.API_KEY}}" },
        form: { sku: "A1", qty: "2" },
        expect: { status: "2xx" },
      },
      {
        name: "PUT /api/notes",
        method: "PUT",
        path: "/api/notes",
        headers: { "content-type": "text/plain" },
        body: "hello",
        expect: { status: [204] },
      },
    ]);
    expect(imported.notes).toEqual([
      "TRACE /notes left out: Volley does not send TRACE",
      "credentials come from the environment: API_USER, API_PASSWORD, API_KEY",
    ]);
    expect(() => toYaml(imported, "api.yaml")).not.toThrow();
  });

  it("says what is wrong with a description it cannot read", () => {
    expect(() => spec("swagger: '2.0'\npaths: { /a: { get: {} } }")).toThrow(
      /Swagger 2\.0: convert it to OpenAPI 3/,
    );
    expect(() => spec("openapi: 3.1.0\ninfo: { title: x }\n")).toThrow(
      "api.yaml: has no paths: nothing to import",
    );
    expect(() => spec("openapi: 3.1.0\npaths:\n  /a: [\n")).toThrow(/^api\.yaml:\d+: not YAML or JSON/);
    expect(() => spec("openapi: 2.5\npaths: { /a: { get: {} } }")).toThrow(/"2.5" is not 3.0 or 3.1/);
  });
});

describe("SchemaExamples", () => {
  it("makes a value from types, formats, bounds, compositions and references, and stops at a cycle", () => {
    const document = {
      components: {
        schemas: {
          Node: {
            type: "object",
            properties: {
              id: { type: "string", format: "uuid" },
              next: { $ref: "#/components/schemas/Node" },
            },
          },
        },
      },
    };
    const examples = new SchemaExamples(document);
    expect(examples.make({ $ref: "#/components/schemas/Node" })).toEqual({
      id: "3fa85f64-5717-4562-b3fc-2c963f66afa6",
    });
    expect(examples.make({ type: "integer", minimum: 10, maximum: 20 })).toBe(10);
    expect(examples.make({ type: "integer", maximum: 0 })).toBe(0);
    expect(examples.make({ type: "string", minLength: 8 })).toBe("stringxx");
    expect(
      examples.make({
        allOf: [{ properties: { a: { const: 1 } } }, { properties: { b: { type: "boolean" } } }],
      }),
    ).toEqual({ a: 1, b: true });
    expect(
      examples.make({ oneOf: [{ type: "array", items: { type: "number" } }, { type: "string" }] }),
    ).toEqual([1]);
    expect(examples.make({ $ref: "#/nowhere" })).toBeNull();
  });
});
