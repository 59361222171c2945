import { describe, expect, it } from "vitest";
import { CookieJar } from "../http/cookie-jar.js";
import {
  NO_OPTIONS,
  PlainRequests,
  plainName,
  type ScriptHttpSettings,
  type ScriptRequester,
  UNNAMED,
} from "./script-prepare.js";
import { ScriptRecorders } from "./script-recorders.js";

// A request made with a URL and at most a name is prepared once and shared; anything that may
// differ from call to call (headers, a body, a cookie) is prepared afresh each time.
function settings(compression = false): ScriptHttpSettings {
  return {
    target: {
      origin: "http://127.0.0.1:1",
      prefix: "",
      host: "127.0.0.1:1",
      https: false,
      authorization: null,
    },
    recorders: new ScriptRecorders(true, null),
    timeoutMs: 1000,
    maxBodyBytes: 1024,
    compression,
    tracing: null,
    plain: new PlainRequests(),
    originOf: () => ({}),
  } as unknown as ScriptHttpSettings;
}

const vu = (cookies: CookieJar | null = null) =>
  ({ cookies, assertRunning() {}, takeScheduledStart: () => -1 }) as unknown as ScriptRequester;

describe("plain script requests", () => {
  it("knows options that carry a name and nothing else", () => {
    expect(plainName(NO_OPTIONS)).toBe(UNNAMED);
    expect(plainName({})).toBe(UNNAMED);
    expect(plainName({ name: "login" })).toBe("login");
    expect(plainName({ name: "login", headers: undefined })).toBe("login");
    expect(plainName({ name: "login", headers: { a: "b" } })).toBeNull();
    expect(plainName({ body: "x" })).toBeNull();
    expect(plainName({ expect: { status: 201 } })).toBeNull();
  });

  it("prepares a URL once per name, each name under its own recorder", () => {
    const s = settings();
    const one = s.plain.prepare(s, vu(), "GET", "/hello", "hello");
    expect(s.plain.prepare(s, vu(), "GET", "/hello", "hello")).toBe(one);
    const unnamed = s.plain.prepare(s, vu(), "GET", "/hello", UNNAMED);
    expect(unnamed).not.toBe(one);
    expect(one.recorder.name).toBe("hello");
    expect(unnamed.recorder.name).toBe("GET /hello");
    expect(s.plain.prepare(s, vu(), "POST", "/hello", "hello").dispatch.method).toBe("POST");
    // Asked in turns (the last one handed out stands in only for the same call): each its own.
    for (let i = 0; i < 3; i++) {
      expect(s.plain.prepare(s, vu(), "GET", "/hello", "hello")).toBe(one);
      expect(s.plain.prepare(s, vu(), "GET", "/hello", UNNAMED)).toBe(unnamed);
      expect(s.plain.prepare(s, vu(), "GET", "/other", "hello")).not.toBe(one);
    }
    expect(s.plain.prepare(s, vu(), "GET", "/other", "hello").path).toBe("/other");
  });

  it("prepares afresh what carries headers: a VU's cookies, compression", () => {
    const s = settings();
    const jar = new CookieJar();
    jar.store("sid=1", "127.0.0.1:1", "/");
    const withCookie = s.plain.prepare(s, vu(jar), "GET", "/hello", "hello");
    expect(withCookie.dispatch.headers).toContain("sid=1");
    expect(s.plain.prepare(s, vu(jar), "GET", "/hello", "hello")).not.toBe(withCookie);
    // Not even right after the same call was handed out to a VU without cookies.
    const plain = s.plain.prepare(s, vu(), "GET", "/hello", "hello");
    expect(s.plain.prepare(s, vu(jar), "GET", "/hello", "hello").dispatch.headers).toContain("sid=1");
    expect(s.plain.prepare(s, vu(), "GET", "/hello", "hello")).toBe(plain);
    const compressed = settings(true);
    const first = compressed.plain.prepare(compressed, vu(), "GET", "/hello", "hello");
    expect(first.dispatch.headers).toContain("accept-encoding");
    expect(compressed.plain.prepare(compressed, vu(), "GET", "/hello", "hello")).not.toBe(first);
  });
});
