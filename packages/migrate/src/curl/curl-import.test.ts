import { describe, expect, it } from "vitest";
import { ImportError, toYaml } from "../imported.js";
import { importCurl } from "./curl-import.js";

const curl = (text: string) => importCurl({ name: "curl", text });
const request = (text: string) => (curl(text).scenario.requests as Array<Record<string, unknown>>)[0];

describe("importCurl", () => {
  it("reads a command copied over several lines, flags attached or apart", () => {
    const imported = curl(`curl 'https://api.example.com/v1/items?page=2' \\
  -XPATCH \\
  --header='X-One: 1' -H 'Accept: application/json' \\
  --data-binary '{"a":[1,2]}' -H 'content-type: application/json' -sSL --compressed -k -m 2.5`);
    expect(imported.scenario).toMatchObject({
      target: "https://api.example.com",
      http: { insecureTls: true, followRedirects: 10, compression: true },
    });
    expect(request("curl -XPATCH http://h/x")).toMatchObject({ method: "PATCH", path: "/x" });
    expect((imported.scenario.requests as unknown[])[0]).toEqual({
      name: "PATCH /v1/items",
      method: "PATCH",
      path: "/v1/items?page=2",
      headers: { "X-One": "1", Accept: "application/json" },
      json: { a: [1, 2] },
      timeout: "2500ms",
    });
    expect(() => toYaml(imported, "curl")).not.toThrow();
  });

  it("sends -d as a form, joined, POST by default; with -G in the query", () => {
    expect(request("curl http://h/f -d a=1 -d 'b=x y'")).toMatchObject({
      method: "POST",
      body: "a=1&b=x y",
    });
    expect(request("curl http://h/f -d a=1 -d b=2")).toMatchObject({
      method: "POST",
      form: { a: "1", b: "2" },
    });
    expect(request("curl -G http://h/s -d q=shoes --data-urlencode 'w=a b'")).toMatchObject({
      method: "GET",
      path: "/s?q=shoes&w=a%20b",
    });
    expect(request(`curl http://h/j --json '{"x":1}'`)).toMatchObject({
      method: "POST",
      json: { x: 1 },
      headers: { accept: "application/json" },
    });
  });

  it("turns -u, -b, -A, -e and -F into headers and a multipart body", () => {
    expect(
      request(
        "curl http://h/u -u ann:pw -b 'sid=1; a=2' -A bot -e http://r/ -F name=x -F 'f=@a.png;type=image/png'",
      ),
    ).toMatchObject({
      method: "POST",
      headers: {
        authorization: "Basic YW5uOnB3",
        cookie: "sid=1; a=2",
        "user-agent": "bot",
        referer: "http://r/",
      },
      multipart: { name: "x", f: { file: "a.png", contentType: "image/png" } },
    });
    expect(request("curl -I http://h/")).toMatchObject({ method: "HEAD", path: "/" });
  });

  it("lists what it does not carry over", () => {
    expect(curl("curl http://h/ --retry 3 --no-alpn -d @body.json -b cookies.txt").notes).toEqual([
      "curl's --retry 3 is not carried over",
      "curl's --no-alpn is not carried over",
      "-d @body.json reads a file: its content is not in the scenario, add it as body",
      "-b cookies.txt names a cookie file: its cookies are not carried over",
    ]);
  });

  it("refuses what is not one curl command to an http URL", () => {
    expect(() => curl("curl -H 'X: 1'")).toThrow(/no URL/);
    expect(() => curl("curl ftp://h/file")).toThrow(/not an http:\/\/ or https:\/\/ URL/);
    expect(() => curl("curl http://h/ | jq .")).toThrow(ImportError);
    expect(() => curl("curl http://h/ -H")).toThrow(/-H needs a value/);
    expect(() => curl("curl http://h/ -m soon")).toThrow(/-m "soon" is not a number of seconds/);
  });
});
