import { describe, expect, it } from "vitest";
import { BusyPoll } from "./busy-poll.js";

describe("BusyPoll", () => {
  it("polls without sleeping while at least 200 requests went in the last 100 ms, and stops below", async () => {
    let admitted = 0;
    const poll = new BusyPoll(() => admitted);
    admitted = 150;
    poll.tick();
    expect(poll.active).toBe(false);
    admitted += 200;
    poll.tick();
    expect(poll.active).toBe(true);
    // While it spins, immediates keep coming: a check phase runs again and again.
    let checks = 0;
    await new Promise<void>((resolve) => {
      const count = () => (++checks < 50 ? setImmediate(count) : resolve());
      setImmediate(count);
    });
    admitted += 199;
    poll.tick();
    expect(poll.active).toBe(false);
    admitted += 500;
    poll.tick();
    expect(poll.active).toBe(true);
    poll.stop();
    expect(poll.active).toBe(false);
  });
});
