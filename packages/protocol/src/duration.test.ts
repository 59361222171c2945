import { describe, expect, it } from "vitest";
import { durationSchema, formatDuration, parseDuration } from "./duration.js";

describe("parseDuration", () => {
  it.each([
    ["500ms", 500],
    ["10s", 10_000],
    ["2m", 120_000],
    ["1h", 3_600_000],
    ["1.5s", 1500],
    ["1m30s", 90_000],
    ["250us", 0.25],
    [" 3s ", 3000],
  ])("%s is %d ms", (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each(["", "10", "s", "10 s", "10sec", "-1s", "1d", "1m30"])("rejects %j", (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });

  it("schema names the problem", () => {
    const result = durationSchema.safeParse("10 seconds");
    expect(result.success).toBe(false);
    expect(result.error?.issues[0].message).toContain('"10 seconds" is not a duration');
    expect(durationSchema.safeParse(10).error?.issues[0].message).toContain("expected a duration");
  });
});

describe("formatDuration", () => {
  it.each([
    [250, "250ms"],
    [1000, "1s"],
    [90_000, "1m30s"],
    [3_600_000, "1h"],
    [3_661_000, "1h1m1s"],
  ])("%d ms is %s", (ms, text) => expect(formatDuration(ms)).toBe(text));
});

describe("durations are bounded", () => {
  it("refuses one longer than a year, and a text longer than 100 characters", () => {
    expect(durationSchema.safeParse("8784h").success).toBe(true);
    expect(durationSchema.safeParse("3000000000h").error?.issues[0].message).toContain("longer than a year");
    expect(durationSchema.safeParse("1s".repeat(60)).success).toBe(false);
  });
});
