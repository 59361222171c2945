import { describe, expect, it } from "vitest";
import { axisTicks, formatElapsed, SECOND_TICKS, WHOLE_STEPS } from "./axis-steps.js";

describe("axis ticks", () => {
  it("count in 1-2-5 steps from zero to the tick at or above the largest value", () => {
    expect(axisTicks(13)).toEqual([0, 5, 10, 15]);
    expect(axisTicks(38)).toEqual([0, 10, 20, 30, 40]);
    expect(axisTicks(0.3)).toEqual([0, 0.1, 0.2, 0.3]);
    expect(axisTicks(0)).toEqual([0, 0.5, 1]);
  });

  it("count VUs whole and time in seconds and minutes", () => {
    expect(axisTicks(2.5, WHOLE_STEPS)).toEqual([0, 1, 2, 3]);
    expect(axisTicks(5.75, SECOND_TICKS, 6)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(axisTicks(90, SECOND_TICKS, 6).map(formatElapsed)).toEqual([
      "0s",
      "15s",
      "30s",
      "45s",
      "1:00",
      "1:15",
      "1:30",
    ]);
  });
});
