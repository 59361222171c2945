// The least a Node.js HTTP/1.1 client can do per request: --connections keep-alive sockets, each
// writing one prebuilt GET and reading its answer (framed by Content-Length) into one shared
// buffer, no parser object, no clock, no statistics; with --poll, libuv polled without sleeping
// as Volley's engine thread does under load (runner/busy-poll.ts). The bench prints it beside
// Volley and wrk: what is left between Volley and this floor is Volley's; between the floor and
// wrk, Node's (a V8 callback per read and per write). Prints JSON: { requests, rps }.
import { connect } from "node:net";

const args = process.argv.slice(2);
const get = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const url = new URL(get("url"));
const connections = Number(get("connections", "50"));
const durationMs = Number(get("duration", "10")) * 1000;
const poll = args.includes("--poll");

const request = Buffer.from(`GET ${get("path", "/hello")} HTTP/1.1\r\nhost: ${url.host}\r\n\r\n`, "latin1");
const shared = Buffer.allocUnsafe(64 * 1024);
const CRLF2 = Buffer.from("\r\n\r\n");
const LENGTH = "content-length:";
let requests = 0;
let running = true;

/** One connection: its answer's bytes still to come (-1: the head is not complete yet). */
function open() {
  let pending = null; // a head split across reads, kept until it is whole
  let remaining = -1;
  const socket = connect({
    host: url.hostname,
    port: Number(url.port),
    onread: {
      buffer: shared,
      callback(bytes, buffer) {
        let chunk = buffer.subarray(0, bytes);
        if (pending !== null) {
          chunk = Buffer.concat([pending, chunk]);
          pending = null;
        }
        let at = 0;
        while (at < chunk.length) {
          if (remaining < 0) {
            const end = chunk.indexOf(CRLF2, at);
            if (end < 0) {
              pending = Buffer.from(chunk.subarray(at));
              return true;
            }
            remaining = contentLength(chunk, at, end);
            at = end + 4;
          }
          const take = Math.min(remaining, chunk.length - at);
          remaining -= take;
          at += take;
          if (remaining === 0) {
            remaining = -1;
            requests++;
            if (running) socket.write(request);
          }
        }
        return true;
      },
    },
  });
  socket.setNoDelay(true);
  socket.on("connect", () => socket.write(request));
  socket.on("error", (error) => {
    console.error(error.message);
    process.exit(1);
  });
  return socket;
}

/** Content-Length of the head at [start, end): nginx writes it in this case; its digits follow. */
function contentLength(chunk, start, end) {
  const head = chunk.subarray(start, end).toString("latin1").toLowerCase();
  const at = head.indexOf(LENGTH);
  if (at < 0) throw new Error("the floor client needs a Content-Length in every answer");
  return Number.parseInt(head.slice(at + LENGTH.length), 10);
}

const sockets = Array.from({ length: connections }, open);
if (poll) {
  const spin = () => {
    if (running) setImmediate(spin);
  };
  setImmediate(spin);
}
const started = performance.now();
setTimeout(() => {
  running = false;
  const elapsedS = (performance.now() - started) / 1000;
  for (const socket of sockets) socket.destroy();
  process.stdout.write(JSON.stringify({ requests, rps: requests / elapsedS }));
}, durationMs);
