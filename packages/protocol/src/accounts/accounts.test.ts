import { describe, expect, it } from "vitest";
import { createTokenSchema, createUserSchema, roleAllows, updateUserSchema } from "./index.js";

describe("accounts schemas", () => {
  it("orders roles viewer < tester < admin", () => {
    expect(roleAllows("admin", "tester")).toBe(true);
    expect(roleAllows("tester", "tester")).toBe(true);
    expect(roleAllows("tester", "admin")).toBe(false);
    expect(roleAllows("viewer", "tester")).toBe(false);
  });

  it("reads token lifetimes in days or hours, up to a year", () => {
    expect(createTokenSchema.parse({ name: "ci", expiresIn: "30d" }).expiresIn).toBe(30 * 86_400_000);
    expect(createTokenSchema.parse({ name: "ci", expiresIn: "12h" }).expiresIn).toBe(12 * 3_600_000);
    expect(createTokenSchema.parse({ name: "ci" }).expiresIn).toBeUndefined();
    const tooLong = createTokenSchema.safeParse({ name: "ci", expiresIn: "400d" });
    expect(tooLong.success).toBe(false);
    expect(tooLong.error?.issues[0].path).toEqual(["expiresIn"]);
    expect(createTokenSchema.safeParse({ name: " ", expiresIn: "1d" }).success).toBe(false);
  });

  it("names users with a safe alphabet and known roles", () => {
    expect(createUserSchema.safeParse({ name: "alice.b@team", role: "tester" }).success).toBe(true);
    expect(createUserSchema.safeParse({ name: "../x", role: "tester" }).success).toBe(false);
    expect(createUserSchema.safeParse({ name: "a", role: "root" }).success).toBe(false);
    expect(updateUserSchema.safeParse({}).success).toBe(false);
  });
});
