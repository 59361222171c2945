import { describe, expect, it } from "vitest";
import { issuesOf } from "../test-support/scenario-issues.js";
import { parseScenario } from "./parse-scenario.js";
import { statsNames } from "./scenario-names.js";

describe("ws requests", () => {
  const chat = {
    name: "ws",
    target: "http://127.0.0.1:1",
    load: { executor: "per-vu-iterations", vus: 1, iterations: 1 },
    requests: [
      {
        name: "chat",
        ws: "/chat?room={{vu}}",
        steps: [
          { send: "hi {{vu}}" },
          { expect: "hi", name: "chat.reply", timeout: "2s" },
          { sleep: "10ms" },
          { expect: "bye" },
          { close: true },
        ],
      },
    ],
    thresholds: { "chat.reply.p95": "<100ms", "chat.reply.p99": "<1s" },
  };
  it("take steps; each expect is a name of its own (NAME.reply by default) that thresholds may judge", () => {
    const scenario = parseScenario(chat);
    expect(scenario.requests[0].steps).toEqual([
      { send: "hi {{vu}}" },
      { expect: "hi", name: "chat.reply", timeout: 2000 },
      { sleep: 10 },
      { expect: "bye" },
      { close: true },
    ]);
    expect(statsNames(scenario)).toEqual(["chat", "chat.reply"]);
    const unnamed = parseScenario({
      ...chat,
      requests: [{ ws: "/feed", steps: [{ expect: "tick" }] }],
      thresholds: {},
    });
    expect(statsNames(unnamed)).toEqual(["WS /feed", "WS /feed.reply"]);
  });

  it("refuse what an HTTP request has, naming the field", () => {
    const bad = {
      ...chat,
      requests: [
        { name: "a", ws: "/chat", body: "x", steps: [{ send: "x" }] },
        { name: "b", path: "/x", steps: [{ send: "x" }] },
        { name: "c", ws: "/chat", method: "POST", expect: { status: 200 } },
      ],
      thresholds: {},
    };
    expect(issuesOf(bad)).toEqual([
      { path: "requests[0].body", message: "a ws request has no body: send messages in its steps" },
      { path: "requests[1].steps", message: "steps go with ws: a WebSocket request" },
      { path: "requests[2].expect", message: "a ws request's answers are awaited with expect steps" },
      { path: "requests[2].method", message: "a ws request opens with GET" },
    ]);
    const malformed = {
      ...chat,
      requests: [
        { name: "d", ws: "ftp://x/y" },
        { name: "e", ws: "/chat", steps: [{ shout: "x" }] },
      ],
      thresholds: {},
    };
    expect(issuesOf(malformed)).toEqual([
      {
        path: "requests[0].ws",
        message:
          'ws must be a path on the target ("/chat") or a ws:// or wss:// URL, with templates only after the host',
      },
      {
        path: "requests[1].steps[0]",
        message: "a step is { send }, { expect, name, timeout }, { sleep } or { close: true }",
      },
    ]);
  });
});
