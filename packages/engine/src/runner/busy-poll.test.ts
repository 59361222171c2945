import { describe, expect, it } from "vitest";
import { WriteBatch } from "../http/write-batch.js";
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

  it("never polls without sleeping when told not to (HTTP/2)", () => {
    let admitted = 0;
    const writes = new WriteBatch();
    const poll = new BusyPoll(() => admitted, false, writes);
    admitted = 10_000;
    poll.tick();
    expect(poll.active).toBe(false);
    expect(writes.active).toBe(false);
  });

  it("batches the thread's writes exactly while it polls without sleeping", () => {
    let admitted = 0;
    const writes = new WriteBatch();
    const poll = new BusyPoll(() => admitted, true, writes);
    admitted = 150;
    poll.tick();
    expect(writes.active).toBe(false);
    admitted += 200;
    poll.tick();
    expect(writes.active).toBe(true);
    admitted += 10;
    poll.tick();
    expect(writes.active).toBe(false);
    admitted += 300;
    poll.tick();
    expect(writes.active).toBe(true);
    poll.stop();
    expect(writes.active).toBe(false);
  });

  it("counts the turns that found nothing to do as idle, and a turn that worked as not", async () => {
    let admitted = 0;
    const poll = new BusyPoll(() => admitted);
    admitted = 1000;
    poll.tick();
    poll.takeIdleMs();
    const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    await wait(100);
    const idle = poll.takeIdleMs();
    // Nothing else ran: most of the 100 ms was empty turns (the timer's own turn is not).
    expect(idle).toBeGreaterThan(40);
    expect(idle).toBeLessThanOrEqual(110);
    // 60 ms of work in one turn is work, whatever the turns around it did.
    setImmediate(() => {
      const until = performance.now() + 60;
      while (performance.now() < until);
    });
    const before = performance.now();
    await wait(80);
    const elapsed = performance.now() - before;
    expect(poll.takeIdleMs()).toBeLessThan(elapsed - 55);
    poll.stop();
  });
});
