import { describe, expect, it } from "vitest";
import { formatElapsed, SECOND_TICKS } from "./format.js";

describe("time axis", () => {
  it("labels whole seconds, then m:ss, then h:mm:ss", () => {
    expect([0, 1, 59, 60, 61, 599, 3600, 3725].map(formatElapsed)).toEqual([
      "0s",
      "1s",
      "59s",
      "1:00",
      "1:01",
      "9:59",
      "1:00:00",
      "1:02:05",
    ]);
  });

  it("never steps by less than a second", () => {
    expect(Math.min(...SECOND_TICKS)).toBe(1);
    expect(SECOND_TICKS.every(Number.isInteger)).toBe(true);
  });
});
