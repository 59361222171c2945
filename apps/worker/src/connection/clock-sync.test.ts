import { describe, expect, it } from "vitest";
import { ClockSync } from "./clock-sync.js";

describe("ClockSync", () => {
  it("takes the offset from the probe with the shortest round trip", () => {
    const clock = new ClockSync();
    clock.seed(10_500, 10_000);
    expect(clock.offsetMs).toBe(500);
    // Master 300 ms ahead; a slow probe (its answer delayed on the way back) then a fast one.
    clock.add(1000, 1000 + 300 + 5, 1000 + 80);
    clock.add(2000, 2000 + 300 + 2, 2000 + 4);
    expect(clock.offsetMs).toBe(300);
    expect(clock.toLocal(5300)).toBe(5000);
    // A later slow probe does not override the better one.
    clock.add(3000, 3000 + 300 + 50, 3000 + 60);
    expect(clock.offsetMs).toBe(300);
    expect(clock.sampleCount).toBe(3);
  });

  it("ignores a probe whose clock went backwards", () => {
    const clock = new ClockSync();
    clock.add(1000, 5000, 900);
    expect(clock.sampleCount).toBe(0);
  });

  it("knows its clock to half the best round trip, once it has one", () => {
    const clock = new ClockSync();
    expect(clock.uncertaintyMs).toBeNull();
    clock.add(1000, 5020, 1040);
    clock.add(2000, 6010, 2010);
    expect(clock.uncertaintyMs).toBe(5);
  });
});
