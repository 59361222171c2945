import { describe, expect, it } from "vitest";
import * as protocol from "../index.js";
import { requestStatsSchema } from "./request-stats.js";

// Every method statistics travel under must pass the batch schema, or its batches are dropped.
describe("statistics' methods", () => {
  it("all fit a batch's method field", () => {
    const methods = [
      ...Object.entries(protocol)
        .filter(([name, value]) => name.endsWith("_METHOD") && typeof value === "string")
        .map(([, value]) => value as string),
      ...Object.values(protocol.STREAM_METHODS),
      ...protocol.HTTP_METHODS,
    ];
    expect(methods.length).toBeGreaterThan(10);
    const shape = requestStatsSchema.shape.method;
    for (const method of methods) expect(shape.safeParse(method).success, method).toBe(true);
  });
});
