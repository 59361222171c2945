import { describe, expect, it } from "vitest";
import { issuesOf } from "../test-support/scenario-issues.js";
import { httpSettingsSchema } from "./http-settings.js";
import { passphraseEnvName, resolvePassphrase, tlsFiles, tlsFor } from "./network-settings.js";

describe("network settings", () => {
  const http = httpSettingsSchema.parse({
    tls: { ca: ["ca1.pem", "ca2.pem"] },
    origins: {
      "https://api.test:8443": { tls: { cert: "c.pem", key: "k.pem" } },
      "grpcs://rpc.test": { tls: { pfx: "p.p12", passphrase: "{{env.P12_PASS}}" } },
    },
    hosts: { "API.test": "127.0.0.2", "*.lb.test": ["127.0.0.3", "::1"] },
  });

  it("lists every certificate file with the field that names it", () => {
    expect(tlsFiles(http).map((f) => [f.file, f.path.join(".")])).toEqual([
      ["ca1.pem", "http.tls.ca.0"],
      ["ca2.pem", "http.tls.ca.1"],
      ["c.pem", "http.origins.https://api.test:8443.tls.cert"],
      ["k.pem", "http.origins.https://api.test:8443.tls.key"],
      ["p.p12", "http.origins.grpcs://rpc.test.tls.pfx"],
    ]);
  });

  it("an origin's own TLS settings replace http.tls, whatever the scheme that reaches the server", () => {
    expect(tlsFor(http, "api.test", 8443)?.cert).toBe("c.pem");
    expect(tlsFor(http, "API.TEST", 8443)?.cert).toBe("c.pem");
    expect(tlsFor(http, "api.test", 443)?.ca).toEqual(["ca1.pem", "ca2.pem"]);
    // grpcs://rpc.test has no port: 443, as for wss://rpc.test.
    expect(tlsFor(http, "rpc.test", 443)?.pfx).toBe("p.p12");
  });

  it("hosts: names lower-cased, one address or a list", () => {
    expect(http.hosts).toEqual({ "api.test": ["127.0.0.2"], "*.lb.test": ["127.0.0.3", "::1"] });
    expect(http.dns).toEqual({ ttl: 300_000, select: "round-robin" });
  });

  it("a passphrase may be read from the run's env", () => {
    expect(passphraseEnvName("{{env.P12_PASS}}")).toBe("P12_PASS");
    expect(passphraseEnvName("plain")).toBeNull();
    expect(resolvePassphrase("{{ env.P12_PASS }}", { P12_PASS: "s3cret" })).toBe("s3cret");
    expect(resolvePassphrase("plain", {})).toBe("plain");
  });

  it("refuses what it cannot use, naming the field", () => {
    const issues = (http: unknown) =>
      issuesOf({
        name: "n",
        target: "https://api.test",
        load: { executor: "per-vu-iterations", vus: 1, iterations: 1 },
        requests: [{ path: "/" }],
        http,
      }).map((i) => `${i.path.replace(/^http\./, "")}: ${i.message}`);
    expect(issues({ tls: { key: "k.pem" } })).toEqual([
      "tls.cert: cert and key go together (a client certificate needs its key)",
    ]);
    expect(issues({ tls: { pfx: "p", cert: "c", key: "k" } })).toEqual([
      "tls.pfx: give pfx or cert and key, not both",
    ]);
    expect(issues({ tls: { minVersion: "TLSv1" } })?.[0]).toMatch(/^tls.minVersion: minVersion must be/);
    expect(issues({ origins: { "http://plain.test": { tls: {} } } })?.[0]).toMatch(/origin key is https/);
    expect(issues({ hosts: { "a.test": "300.1.1.1" } })).toEqual([
      "hosts.a.test: must be an IPv4 or IPv6 address",
    ]);
    expect(issues({ dns: { ttl: "0s" } })?.[0]).toMatch(/^dns.ttl/);
  });
});
