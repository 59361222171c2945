import { statusExpectationSchema } from "@volley/protocol";
import { describe, expect, it } from "vitest";
import { statusExpectation } from "./status-expectation.js";

describe("a script's expect.status", () => {
  it("reads as the scenario's rule does, each distinct value validated once", () => {
    for (const value of [200, "2xx", "200-204", [200, 201], ["2xx", 304]]) {
      const first = statusExpectation(value);
      expect(first).toEqual(statusExpectationSchema.parse(value));
      // The same literal on the next call: the ranges already made, not a new parse.
      expect(statusExpectation(Array.isArray(value) ? [...value] : value)).toBe(first);
    }
  });

  it("a bad value throws on every call, whatever was remembered before", () => {
    expect(statusExpectation([200])).toEqual([[200, 200]]);
    for (let i = 0; i < 2; i++) {
      expect(() => statusExpectation("[200]")).toThrow(/status range/);
      expect(() => statusExpectation(99)).toThrow();
      expect(() => statusExpectation([])).toThrow();
      expect(() => statusExpectation([{ toJSON: () => 200 }])).toThrow();
    }
  });
});
