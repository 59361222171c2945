import { ConfigError } from "@volley/protocol";
import { describe, expect, it } from "vitest";
import { proposedUserName, roleFromClaims } from "./oidc-claims.js";
import { parseRoleMap, resolveOidc } from "./oidc-config.js";

const BASE = { issuer: "https://id.example.com", clientId: "volley", clientSecret: "s3cret" };

describe("OIDC settings", () => {
  it("takes all three of issuer, client id and secret, or none", () => {
    expect(resolveOidc(undefined, {})).toBeUndefined();
    expect(() => resolveOidc({ ...BASE, clientSecret: undefined as unknown as string }, {})).toThrow(
      /--oidc-issuer, --oidc-client-id and --oidc-client-secret go together/,
    );
    expect(
      resolveOidc(undefined, {
        VOLLEY_OIDC_ISSUER: BASE.issuer,
        VOLLEY_OIDC_CLIENT_ID: "volley",
        VOLLEY_OIDC_CLIENT_SECRET: "x",
        VOLLEY_OIDC_ROLES: "perf=tester, ops=admin",
      }),
    ).toMatchObject({ roleClaim: "roles", roles: { perf: "tester", ops: "admin" } });
  });

  it("refuses a plain-http issuer off loopback, and names the flag", () => {
    expect(() => resolveOidc({ ...BASE, issuer: "http://id.example.com" }, {})).toThrow(ConfigError);
    expect(() => resolveOidc({ ...BASE, issuer: "http://id.example.com" }, {})).toThrow(/--oidc-issuer/);
    expect(resolveOidc({ ...BASE, issuer: "http://127.0.0.1:9000" }, {})?.issuer).toBe(
      "http://127.0.0.1:9000",
    );
    expect(() => resolveOidc({ ...BASE, redirectUrl: "https://volley.example/elsewhere" }, {})).toThrow(
      /--oidc-redirect-url: the path must be \/api\/session\/oidc\/callback/,
    );
    expect(() => resolveOidc({ ...BASE, roleClaim: "roles; drop" }, {})).toThrow(/--oidc-role-claim/);
  });

  it("reads VALUE=ROLE pairs, naming a bad one", () => {
    expect(parseRoleMap(["a=b=admin", "qa=tester"])).toEqual({ "a=b": "admin", qa: "tester" });
    expect(() => parseRoleMap(["qa=root"])).toThrow(
      /--oidc-role: "qa=root" is not VALUE=viewer\|tester\|admin/,
    );
    expect(() => parseRoleMap(["=admin"])).toThrow(/--oidc-role/);
  });
});

describe("OIDC claims", () => {
  const roles = { viewer: "viewer", tester: "tester", admin: "admin" } as const;

  it("gives the highest mapped role of a string, an array or a space-separated list", () => {
    expect(roleFromClaims({ roles: "tester" }, "roles", roles)).toBe("tester");
    expect(roleFromClaims({ roles: ["viewer", "admin", "other"] }, "roles", roles)).toBe("admin");
    expect(roleFromClaims({ roles: "viewer tester" }, "roles", roles)).toBe("tester");
    expect(roleFromClaims({ realm_access: { roles: ["tester"] } }, "realm_access.roles", roles)).toBe(
      "tester",
    );
  });

  it("gives no role when nothing maps (the sign-in is refused), inherited names included", () => {
    expect(roleFromClaims({}, "roles", roles)).toBeUndefined();
    expect(roleFromClaims({ roles: ["toString", "constructor"] }, "roles", roles)).toBeUndefined();
    expect(roleFromClaims({ roles: 3 }, "roles", roles)).toBeUndefined();
  });

  it("proposes a user name from the claims that a user name may hold", () => {
    expect(proposedUserName({ sub: "1", preferred_username: "ada" })).toBe("ada");
    expect(proposedUserName({ sub: "1", email: "ada lovelace@example.com" })).toBe(
      "ada-lovelace@example.com",
    );
    expect(proposedUserName({ sub: "---" })).toMatch(/^oidc-[0-9a-f]{8}$/);
  });
});
