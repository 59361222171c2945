import { describe, expect, it } from "vitest";
import { DashboardSessions } from "../plugins/dashboard-sessions.js";
import { generatePassword, hashPassword, verifyPassword } from "./passwords.js";

describe("passwords", () => {
  it("hashes with scrypt and a fresh salt, and checks only the right password", async () => {
    const a = await hashPassword("correct horse battery");
    const b = await hashPassword("correct horse battery");
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword("correct horse battery", a)).toBe(true);
    expect(await verifyPassword("correct horse batterY", a)).toBe(false);
    expect(await verifyPassword("", a)).toBe(false);
  });

  it("never matches a malformed or over-costly stored hash", async () => {
    expect(await verifyPassword("x", "")).toBe(false);
    expect(await verifyPassword("x", "md5$abc")).toBe(false);
    expect(await verifyPassword("x", "scrypt$9999999999$8$1$c2FsdA$aGFzaA")).toBe(false);
    expect(await verifyPassword("x", "scrypt$NaN$8$1$c2FsdA$aGFzaA")).toBe(false);
  });

  it("makes one-time passwords of 24 URL-safe characters", () => {
    const passwords = new Set(Array.from({ length: 50 }, generatePassword));
    expect(passwords.size).toBe(50);
    for (const p of passwords) expect(p).toMatch(/^[\w-]{24}$/);
  });
});

describe("dashboard sessions", () => {
  it("keep who signed in, end at their time, and end all of one user's at once", () => {
    let now = 0;
    const sessions = new DashboardSessions(() => now);
    const alice = { name: "alice", user: "alice", role: "tester", via: "session" } as const;
    const bob = { name: "bob", user: "bob", role: "viewer", via: "session" } as const;
    const a1 = sessions.create(alice);
    const a2 = sessions.create(alice);
    const b1 = sessions.create(bob);
    expect(sessions.actor(a1)).toEqual(alice);
    sessions.revokeUser("alice");
    expect(sessions.actor(a1)).toBeUndefined();
    expect(sessions.actor(a2)).toBeUndefined();
    expect(sessions.actor(b1)).toEqual(bob);
    now = 12 * 3600_000 + 1;
    expect(sessions.actor(b1)).toBeUndefined();
    expect(sessions.actor("x".repeat(101))).toBeUndefined();
  });
});
