import { describe, expect, it } from "vitest";
import { toYaml } from "../imported.js";
import { importHar } from "./har-import.js";

interface Entry {
  at: number;
  method?: string;
  url: string;
  type?: string;
  headers?: Record<string, string>;
  body?: { mimeType: string; text: string };
  status?: number;
  response?: { mimeType: string; text: string };
  responseHeaders?: Record<string, string>;
}

const pairs = (h: Record<string, string> = {}) => Object.entries(h).map(([name, value]) => ({ name, value }));

function har(entries: Entry[]) {
  return JSON.stringify({
    log: {
      pages: [{ title: "Shop" }],
      entries: entries.map((e) => ({
        startedDateTime: new Date(1_800_000_000_000 + e.at).toISOString(),
        time: 50,
        _resourceType: e.type,
        request: { method: e.method ?? "GET", url: e.url, headers: pairs(e.headers), postData: e.body },
        response: {
          status: e.status ?? 200,
          headers: pairs(e.responseHeaders),
          content: e.response ?? { mimeType: "text/html", text: "<p>" },
        },
      })),
    },
  });
}

const load = (entries: Entry[], options = {}) => importHar({ name: "x.har", text: har(entries) }, options);

describe("importHar", () => {
  const recording: Entry[] = [
    {
      at: 0,
      url: "https://shop.test/",
      type: "document",
      headers: { "user-agent": "Chrome", "sec-ch-ua": "x" },
    },
    { at: 60, url: "https://shop.test/app.js", type: "script" },
    { at: 70, url: "https://shop.test/logo.png" },
    { at: 80, url: "https://cdn.other.test/font.woff2" },
    { at: 90, url: "https://analytics.test/collect?id=1", method: "POST" },
    {
      at: 1000,
      method: "POST",
      url: "https://shop.test/api/login",
      headers: { "content-type": "application/json", cookie: "recorded=1", "x-client": "web" },
      body: { mimeType: "application/json", text: '{"user":"ann"}' },
      response: { mimeType: "application/json", text: '{"session":{"accessToken":"eyJhbGciOi.abc-123"}}' },
    },
    {
      at: 1100,
      method: "OPTIONS",
      url: "https://shop.test/api/orders",
      headers: { "access-control-request-method": "GET" },
    },
    {
      at: 3000,
      url: "https://shop.test/api/orders?token=eyJhbGciOi.abc-123",
      headers: { authorization: "Bearer eyJhbGciOi.abc-123" },
      status: 304,
    },
  ];

  it("keeps the site's own requests in order with their pauses, and captures the token a later request sends", () => {
    const imported = load(recording);
    expect(imported.scenario.target).toBe("https://shop.test");
    expect(imported.scenario.name).toBe("Shop");
    expect(imported.scenario.requests).toEqual([
      { name: "GET /", method: "GET", path: "/", expect: { status: 200 } },
      { sleep: "950ms" },
      {
        name: "POST /api/login",
        method: "POST",
        path: "/api/login",
        headers: { "x-client": "web" },
        json: { user: "ann" },
        capture: { accessToken: "json.session.accessToken" },
        expect: { status: 200 },
      },
      { sleep: "1950ms" },
      {
        name: "GET /api/orders",
        method: "GET",
        path: "/api/orders?token={{accessToken}}",
        headers: { authorization: "Bearer {{accessToken}}" },
      },
    ]);
    expect(imported.notes).toEqual([
      "3 static assets (images, scripts, styles, fonts) left out: --keep-assets keeps them",
      "1 request to other origins (analytics.test) left out: --keep-origins keeps them",
      "1 CORS preflight request left out",
      '"accessToken" is captured (json.session.accessToken) and sent where the recording sent its value',
    ]);
    expect(() => toYaml(imported, "x.har")).not.toThrow();
  });

  it("keeps assets and other origins when asked, other origins as absolute URLs", () => {
    const requests = load(recording, { keepAssets: true, keepOrigins: true }).scenario.requests as Array<
      Record<string, unknown>
    >;
    const named = requests.filter((r) => "name" in r);
    expect(named.map((r) => r.path ?? r.url)).toEqual([
      "/",
      "/app.js",
      "/logo.png",
      "https://cdn.other.test/font.woff2",
      "https://analytics.test/collect?id=1",
      "/api/login",
      "/api/orders?token={{accessToken}}",
    ]);
  });

  it("does not capture a value the client sent before the server answered it", () => {
    const imported = load([
      {
        at: 0,
        method: "POST",
        url: "https://a.test/echo?id=client-chosen-id",
        response: { mimeType: "application/json", text: '{"id":"client-chosen-id"}' },
      },
      { at: 10, url: "https://a.test/items/client-chosen-id" },
    ]);
    expect(JSON.stringify(imported.scenario)).not.toContain("capture");
  });

  it("refuses what is not a HAR, naming the file", () => {
    expect(() => importHar({ name: "a.har", text: "{}" })).toThrow("a.har: not a HAR: no log.entries list");
    expect(() => importHar({ name: "a.har", text: "<html>" })).toThrow(
      /^a\.har:1: not a HAR \(not valid JSON/,
    );
    expect(() => importHar({ name: "a.har", text: '{"log":{"entries":[]}}' })).toThrow(
      "holds no http(s) request",
    );
    expect(() =>
      importHar({ name: "a.har", text: '{"log":{"entries":[{"request":{"url":"nope","method":"GET"}}]}}' }),
    ).toThrow('a.har: log.entries[0].request.url "nope" is not a URL');
  });
});
