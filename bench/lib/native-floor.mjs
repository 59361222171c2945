// The node:net floor (node-floor.mjs) with its reads and writes made in C, a batch at a time
// (../native/socket-batch.c): the sockets are opened by node:net, then taken off libuv's reads
// (paused) onto an epoll set of the addon's; a loop that never sleeps reads every ready socket in
// one call and writes the requests their answers completed in one call. What a Node.js client's
// ceiling would be with one crossing into C per batch instead of a callback per read and a
// stream write per request. Prints JSON: { requests, rps }. --build only builds the addon.
import { createRequire } from "node:module";
import { connect } from "node:net";
import { join } from "node:path";
import { buildAddon } from "../../scripts/native-addon.mjs";

const NATIVE = new URL("../native/", import.meta.url).pathname;
const ADDON = join(NATIVE, "build/Release/socket_batch.node");

/** Builds the addon when it is not built; its path, or null. */
export function buildNativeFloor() {
  return buildAddon(NATIVE, ADDON, join(NATIVE, "socket-batch.c")) === null ? ADDON : null;
}

const args = process.argv.slice(2);
if (args.includes("--build")) {
  process.stdout.write(JSON.stringify({ addon: buildNativeFloor() }));
} else if (process.argv[1] === new URL(import.meta.url).pathname) {
  await measure();
}

async function measure() {
  const get = (name, fallback) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : fallback;
  };
  const addon = buildNativeFloor();
  if (addon === null) throw new Error("the native floor's addon could not be built (node-gyp, g++)");
  const io = createRequire(import.meta.url)(addon);
  const url = new URL(get("url"));
  const connections = Number(get("connections", "50"));
  const durationMs = Number(get("duration", "10")) * 1000;
  const request = Buffer.from(`GET ${get("path", "/hello")} HTTP/1.1\r\nhost: ${url.host}\r\n\r\n`, "latin1");
  const CRLF2 = Buffer.from("\r\n\r\n");

  const epoll = io.epollCreate();
  const fds = new Int32Array(connections);
  /** Per connection: the answer's body bytes still to come, -1 while its head is not complete. */
  const remaining = new Int32Array(connections).fill(-1);
  /** A head split across reads, kept until it is whole. */
  const pending = new Array(connections).fill(null);
  const reads = Buffer.allocUnsafe(4 << 20);
  const readMeta = new Int32Array(256 * 3);
  // Every request is the same bytes: one copy per connection, written from where it lies.
  const requests = Buffer.allocUnsafe(connections * request.length);
  const offsets = new Int32Array(connections);
  const lengths = new Int32Array(connections).fill(request.length);
  const writeFds = new Int32Array(connections);
  const results = new Int32Array(connections);
  for (let i = 0; i < connections; i++) {
    request.copy(requests, i * request.length);
    offsets[i] = i * request.length;
  }

  let answered = 0;
  let running = true;
  const sockets = await Promise.all(
    Array.from(
      { length: connections },
      (_, i) =>
        new Promise((resolve, reject) => {
          const socket = connect({ host: url.hostname, port: Number(url.port) });
          socket.setNoDelay(true);
          socket.once("error", reject);
          socket.once("connect", () => {
            socket.pause(); // libuv reads it no more: the addon's epoll set does
            fds[i] = socket._handle.fd;
            if (io.epollAdd(epoll, fds[i], i) < 0) reject(new Error("epoll_ctl failed"));
            resolve(socket);
          });
        }),
    ),
  );

  /** Bytes [at, end) of `bytes` read for connection `id`: how many answers they completed. */
  function take(id, bytes, at, end) {
    let done = 0;
    while (at < end) {
      if (remaining[id] < 0) {
        const head = bytes.indexOf(CRLF2, at);
        if (head < 0 || head >= end) {
          pending[id] = Buffer.from(bytes.subarray(at, end));
          return done;
        }
        remaining[id] = contentLength(bytes, at, head);
        at = head + 4;
      }
      const taken = Math.min(remaining[id], end - at);
      remaining[id] -= taken;
      at += taken;
      if (remaining[id] === 0) {
        remaining[id] = -1;
        done++;
      }
    }
    return done;
  }

  function spin() {
    if (!running) return;
    const count = io.pollReads(epoll, fds, reads, readMeta);
    if (count < 0) throw new Error(`epoll_wait failed: ${count}`);
    let writes = 0;
    for (let k = 0; k < count; k++) {
      const id = readMeta[k * 3];
      const at = readMeta[k * 3 + 1];
      const bytes = readMeta[k * 3 + 2];
      if (bytes <= 0) throw new Error(`connection ${id} ended (${bytes})`);
      let done;
      if (pending[id] !== null) {
        const joined = Buffer.concat([pending[id], reads.subarray(at, at + bytes)]);
        pending[id] = null;
        done = take(id, joined, 0, joined.length);
      } else {
        done = take(id, reads, at, at + bytes);
      }
      answered += done;
      if (done > 0) writeFds[writes++] = fds[id];
    }
    if (writes > 0) {
      io.writeMany(writeFds, offsets, lengths, writes, requests, results);
      for (let i = 0; i < writes; i++)
        if (results[i] !== request.length) throw new Error(`a write wrote ${results[i]} bytes`);
    }
    setImmediate(spin);
  }

  const first = Int32Array.from(fds);
  io.writeMany(first, offsets, lengths, connections, requests, results);
  const started = performance.now();
  setImmediate(spin);
  setTimeout(() => {
    running = false;
    const elapsedS = (performance.now() - started) / 1000;
    for (const socket of sockets) socket.destroy();
    process.stdout.write(JSON.stringify({ requests: answered, rps: answered / elapsedS }));
  }, durationMs);
}

/** Content-Length of the head at [start, end): nginx writes it in this case. */
function contentLength(bytes, start, end) {
  const head = bytes.latin1Slice(start, end).toLowerCase();
  const at = head.indexOf("content-length:");
  if (at < 0) throw new Error("the native floor needs a Content-Length in every answer");
  return Number.parseInt(head.slice(at + 15), 10);
}
