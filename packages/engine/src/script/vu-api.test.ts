import { describe, expect, it } from "vitest";
import { FeederSet } from "../feeders/feeder.js";
import type { ScriptVuContext } from "./script-vu-context.js";
import { FeederExhaustedError, VuApi, type VuApiHost } from "./vu-api.js";

/** A host whose number and iteration a test moves, and which records what the API asked of it. */
function fakeHost(): VuApiHost & { asked: string[]; running: boolean } {
  const asked: string[] = [];
  return {
    asked,
    running: true,
    number: 7,
    iteration: 0,
    cookies: null,
    locatesCalls: null,
    takeScheduledStart: () => -1,
    send: () => asked.push("send"),
    untrack: () => {},
    assertRunning() {
      asked.push("assertRunning");
      if (!this.running) throw new Error("aborted");
    },
    sockets: { connect: () => asked.push("ws") } as unknown as VuApiHost["sockets"],
    grpcClients: { connect: () => asked.push("grpc") } as unknown as VuApiHost["grpcClients"],
    sleep: async (ms: number) => {
      asked.push(`sleep ${ms}`);
    },
  };
}

function context(checks: string[]): ScriptVuContext {
  const feeders = new FeederSet(
    { users: { file: "users.csv", mode: "unique", onExhausted: "stop" } },
    { users: { columns: ["id", "name"], rows: [["1", "ada"]] } },
  );
  return {
    script: { setupData: { token: "t" } },
    http: {
      recorders: {
        check: (name: string) => ({
          record: (_l: number, _s: number, _i: number, _o: number, kind?: string) =>
            checks.push(`${name}:${kind ?? "ok"}`),
        }),
      },
    },
    worker: "w1",
    env: { STAGE: "test" },
    feeders,
    feederNames: ["users"],
    metrics: { api: {} },
  } as unknown as ScriptVuContext;
}

describe("the vu object of a scripted VU", () => {
  it("reads its VU's number and iteration as they are now, and keeps vars across iterations", () => {
    const host = fakeHost();
    const vu = new VuApi(host, context([]));
    expect([vu.number, vu.iteration, vu.worker, vu.env.STAGE]).toEqual([7, 0, "w1", "test"]);
    expect(vu.setupData).toEqual({ token: "t" });
    vu.vars.seen = true;
    (host as { iteration: number }).iteration = 3;
    expect(vu.iteration).toBe(3);
    expect(vu.vars.seen).toBe(true);
  });

  it("works taken apart: check, sleep, ws and grpc need no `this`", async () => {
    const host = fakeHost();
    const checks: string[] = [];
    const { check, sleep, ws, grpc } = new VuApi(host, context(checks));
    expect(check("ok", true)).toBe(true);
    expect(check("bad", false)).toBe(false);
    expect(checks).toEqual(["ok:ok", "bad:expect"]);
    await sleep(5);
    ws.connect("ws://127.0.0.1:1/");
    grpc.connect({ service: "x" } as never);
    expect(host.asked).toEqual(["sleep 5", "assertRunning", "ws", "assertRunning", "grpc"]);
  });

  it("opens no socket for an iteration that was aborted", () => {
    const host = fakeHost();
    const vu = new VuApi(host, context([]));
    host.running = false;
    expect(() => vu.ws.connect("ws://127.0.0.1:1/")).toThrow("aborted");
    expect(host.asked).toEqual(["assertRunning"]);
  });

  it("hands out a feeder's rows by column and stops the VU when a unique one runs out", () => {
    const vu = new VuApi(fakeHost(), context([]));
    expect(vu.data.users.next()).toEqual({ id: "1", name: "ada" });
    expect(() => vu.data.users.next()).toThrow(FeederExhaustedError);
  });
});
