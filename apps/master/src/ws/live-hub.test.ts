import type { AddressInfo } from "node:net";
import type { LiveMessage } from "@volley/protocol";
import { afterEach, describe, expect, it, vi } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { LiveHub } from "./live-hub.js";

// Real sockets on loopback: a dashboard that stops reading is closed, not buffered for.
const servers: WebSocketServer[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) {
    for (const client of server.clients) client.terminate();
    server.close();
  }
});

async function hubServer(
  hub: LiveHub,
  first: LiveMessage = { type: "workers", workers: [] } as unknown as LiveMessage,
) {
  const server = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  servers.push(server);
  const closed: number[] = [];
  server.on("connection", (socket) => {
    socket.on("close", (code) => closed.push(code));
    hub.add(socket, first);
  });
  await new Promise((resolve) => server.once("listening", resolve));
  return { url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`, closed };
}

/** The pace of publishing (the hub's limit is reached by publishing, not by waiting). */
const pace = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A dashboard; `messages` counts what it received from the first message on. */
const open = (url: string) =>
  new Promise<WebSocket & { messages: number }>((resolve, reject) => {
    const socket = Object.assign(new WebSocket(url), { messages: 0 });
    socket.on("message", () => socket.messages++);
    socket.once("open", () => resolve(socket));
    socket.once("error", reject);
  });

describe("LiveHub", () => {
  it("closes a dashboard that stops reading; one that reads keeps every message", async () => {
    const hub = new LiveHub();
    const { url } = await hubServer(hub);
    const paused = await open(url);
    (paused as unknown as { _socket: { pause(): void } })._socket.pause();
    const reader = await open(url);
    await vi.waitFor(() => expect(hub.size).toBe(2));
    const big = { type: "workers", workers: [{ pad: "x".repeat(512 * 1024) }] } as unknown as LiveMessage;
    let published = 0;
    for (let i = 0; i < 40 && hub.size === 2; i++) {
      hub.publish(big);
      published++;
      await pace(20);
    }
    expect(hub.size).toBe(1);
    const pausedClosed = new Promise((resolve) => paused.once("close", resolve));
    (paused as unknown as { _socket: { resume(): void } })._socket.resume();
    await pausedClosed;
    hub.publish({ type: "workers", workers: [] } as unknown as LiveMessage);
    published++;
    // The reader gets the first state and every message published, none skipped.
    await vi.waitFor(() => expect(reader.messages).toBeGreaterThanOrEqual(published + 1), { timeout: 2000 });
    expect(reader.messages).toBe(published + 1);
    reader.close();
  });

  it("keeps a dashboard still reading a large first state (a long run's series), then holds it to the limit", async () => {
    const hub = new LiveHub();
    const state = {
      type: "workers",
      workers: [{ pad: "s".repeat(3 * 1024 * 1024) }],
    } as unknown as LiveMessage;
    const { url } = await hubServer(hub, state);
    const slow = await open(url);
    (slow as unknown as { _socket: { pause(): void } })._socket.pause();
    await vi.waitFor(() => expect(hub.size).toBe(1));
    hub.publish({ type: "workers", workers: [] } as unknown as LiveMessage);
    expect(hub.size).toBe(1);
    const big = { type: "workers", workers: [{ pad: "x".repeat(512 * 1024) }] } as unknown as LiveMessage;
    for (let i = 0; i < 40 && hub.size === 1; i++) {
      hub.publish(big);
      await pace(20);
    }
    expect(hub.size).toBe(0);
    slow.terminate();
  });

  it("refuses a dashboard past its limit with 1013", async () => {
    const hub = new LiveHub(2);
    const { url } = await hubServer(hub);
    await open(url);
    await open(url);
    const third = await open(url);
    const code = await new Promise<number>((resolve) => third.once("close", resolve));
    expect(code).toBe(1013);
    expect(hub.size).toBe(2);
  });
});
