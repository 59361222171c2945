import { describe, expect, it } from "vitest";
import { toYaml } from "../imported.js";
import { importPostman } from "./postman-import.js";

const SCHEMA = "https://schema.getpostman.com/json/collection/v2.1.0/collection.json";
const collection = (body: Record<string, unknown>) =>
  importPostman({ name: "c.json", text: JSON.stringify({ info: { name: "API", schema: SCHEMA }, ...body }) });

describe("importPostman", () => {
  it("nests folders as groups, inherits auth, and reads unset variables from the environment", () => {
    const imported = collection({
      auth: {
        type: "basic",
        basic: [
          { key: "username", value: "{{user}}" },
          { key: "password", value: "pw" },
        ],
      },
      item: [
        {
          name: "Orders",
          item: [
            {
              name: "Admin",
              auth: {
                type: "apikey",
                apikey: [
                  { key: "key", value: "X-Key" },
                  { key: "value", value: "k1" },
                ],
              },
              item: [{ name: "purge", request: { method: "DELETE", url: "{{host}}/orders?all=1" } }],
            },
            {
              name: "upload",
              request: {
                method: "POST",
                url: "{{host}}/files",
                body: {
                  mode: "formdata",
                  formdata: [
                    { key: "f", type: "file", src: "/tmp/a.csv" },
                    { key: "n", value: "{{$randomInt}}" },
                  ],
                },
              },
              event: [{ listen: "prerequest", script: { exec: ["pm.variables.set('a', 1)"] } }],
            },
            {
              name: "graph",
              request: {
                method: "POST",
                url: "{{host}}/graphql",
                body: { mode: "graphql", graphql: { query: "{ a }", variables: '{"x":1}' } },
              },
            },
          ],
        },
      ],
    });
    expect(imported.scenario).toMatchObject({ target: "http://127.0.0.1:8080", env: ["user"] });
    expect(imported.scenario.requests).toEqual([
      {
        group: "Orders",
        requests: [
          {
            group: "Admin",
            requests: [
              { name: "purge", method: "DELETE", path: "/orders?all=1", headers: { "x-key": "k1" } },
            ],
          },
          {
            name: "upload",
            method: "POST",
            path: "/files",
            headers: { authorization: 'Basic {{base64 env.user ":" "pw"}}' },
            multipart: { f: { file: "/tmp/a.csv" }, n: "{{randomInt 0 1000}}" },
          },
          {
            name: "graph",
            method: "POST",
            path: "/graphql",
            headers: { authorization: 'Basic {{base64 env.user ":" "pw"}}' },
            json: { query: "{ a }", variables: { x: 1 } },
          },
        ],
      },
    ]);
    expect(imported.notes).toEqual([
      "Orders / upload: its prerequest script is not converted (captures and checks go in the scenario)",
      "the requests' host is a variable with no value: the target is http://127.0.0.1:8080, set yours",
      "variables without a value in the collection come from the environment: user",
    ]);
    expect(() => toYaml(imported, "c.json")).not.toThrow();
  });

  it("writes collection variables in place, and other hosts as absolute URLs", () => {
    const imported = collection({
      variable: [
        { key: "base", value: "https://api.test/v1" },
        { key: "id", value: 7 },
      ],
      item: [
        { name: "one", request: { method: "GET", url: "{{base}}/things/{{id}}" } },
        { name: "other", request: "https://else.test/ping" },
      ],
    });
    expect(imported.scenario.target).toBe("https://api.test");
    expect(imported.scenario.requests).toEqual([
      { name: "one", method: "GET", path: "/v1/things/7" },
      { name: "other", method: "GET", url: "https://else.test/ping" },
    ]);
  });

  it("refuses what is not a v2.1 collection", () => {
    expect(() => importPostman({ name: "c.json", text: "{}" })).toThrow(
      "c.json: not a Postman collection: no item list",
    );
    expect(() =>
      importPostman({
        name: "c.json",
        text: JSON.stringify({
          info: { schema: "https://schema.getpostman.com/json/collection/v1.0.0/" },
          item: [],
        }),
      }),
    ).toThrow(/is not a collection v2\.1/);
    expect(() => collection({ item: [{ name: "empty folder", item: [] }] })).toThrow(
      "c.json: holds no request",
    );
  });
});
