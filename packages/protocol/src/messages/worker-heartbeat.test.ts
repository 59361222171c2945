import { describe, expect, it } from "vitest";
import { workerHeartbeatSchema } from "./worker-heartbeat.js";

describe("workerHeartbeatSchema", () => {
  const beat = {
    type: "heartbeat",
    state: "running",
    runId: "r1",
    vus: 10,
    cpu: 80,
    machineCpu: 50,
    memoryMb: 200,
    eventLoopDelayMs: 3,
    sentAt: Date.now(),
  };

  it("takes a real heartbeat and refuses figures no worker measures, naming the field", () => {
    expect(workerHeartbeatSchema.safeParse(beat).success).toBe(true);
    for (const [field, value] of [
      ["cpu", 1e308],
      ["vus", 1e12],
      ["memoryMb", 1e308],
      ["eventLoopDelayMs", Number.MAX_VALUE],
      ["sentAt", 1e308],
    ] as const) {
      const parsed = workerHeartbeatSchema.safeParse({ ...beat, [field]: value });
      expect(parsed.success, field).toBe(false);
      expect(parsed.error?.issues[0].path, field).toEqual([field]);
    }
  });
});
