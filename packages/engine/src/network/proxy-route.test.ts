import { describe, expect, it } from "vitest";
import { proxyFor } from "./proxy-route.js";

describe("proxyFor", () => {
  it("http.proxy for every connection, its credentials as Proxy-Authorization; false for none", () => {
    const route = proxyFor("http://user:p%40ss@proxy.test:3128", "api.test", 443, true, {});
    expect(route).toEqual({
      url: "http://proxy.test:3128/",
      host: "proxy.test",
      port: 3128,
      authorization: `Basic ${Buffer.from("user:p@ss").toString("base64")}`,
      href: "http://user:p%40ss@proxy.test:3128/",
    });
    expect(proxyFor(false, "api.test", 443, true, { HTTPS_PROXY: "http://p:1" })).toBeNull();
  });

  it("without one: HTTPS_PROXY for secure, HTTP_PROXY for plain (either case), a bare host:port taken as http", () => {
    const env = { https_proxy: "secure.test:8443", HTTP_PROXY: "http://plain.test:8080" };
    expect(proxyFor(undefined, "a.test", 443, true, env)?.url).toBe("http://secure.test:8443/");
    expect(proxyFor(undefined, "a.test", 80, false, env)?.url).toBe("http://plain.test:8080/");
    expect(proxyFor(undefined, "a.test", 80, false, {})).toBeNull();
  });

  it("NO_PROXY: *, names with their subdomains (a leading dot or not), a port, IPv6", () => {
    const route = (noProxy: string, host: string, port = 80) =>
      proxyFor(undefined, host, port, false, { HTTP_PROXY: "http://p:1", NO_PROXY: noProxy }) !== null;
    expect(route("*", "a.test")).toBe(false);
    expect(route("example.com", "api.example.com")).toBe(false);
    expect(route(".example.com", "example.com")).toBe(false);
    expect(route("example.com", "notexample.com")).toBe(true);
    expect(route("a.test:8080", "a.test", 80)).toBe(true);
    expect(route("a.test:8080", "a.test", 8080)).toBe(false);
    expect(route("localhost, 127.0.0.1", "127.0.0.1")).toBe(false);
    expect(route("::1", "::1")).toBe(false);
    expect(route("[::1]:80", "::1", 80)).toBe(false);
  });
});
