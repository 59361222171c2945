// pnpm bench h2 [--duration 10] [--vus 50] [--sessions 1]
// Volley's HTTP/2 path (undici, allowH2) against a node http2 server over TLS on loopback, the
// client and the server pinned to their own cores, beside node's own http2 client driving the
// same streams (h2load is not installed here), and Volley's HTTP/1.1 against a node https server
// the same way (same TLS).
import { execFileSync, fork } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { arg, cores, fmt, pinned, ROOT, run, table } from "./lib/tools.mjs";

const args = process.argv.slice(2);
const duration = Number(arg(args, "duration", "10"));
const vus = Number(arg(args, "vus", "50"));
const sessions = arg(args, "sessions", "");
const { client, server: serverCore } = cores();

const dir = mkdtempSync(join(tmpdir(), "volley-h2-"));
execFileSync(
  "openssl",
  ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1"].concat([
    "-keyout",
    join(dir, "key.pem"),
    "-out",
    join(dir, "cert.pem"),
  ]),
  { stdio: "ignore" },
);

/** A node server (h2 or https) in its own process, pinned; resolves to its URL. */
async function startServer(kind) {
  const child = fork(join(ROOT, "bench/lib/tls-server.mjs"), [kind, dir], { stdio: "inherit" });
  const port = await new Promise((resolve) => child.once("message", resolve));
  execFileSync("taskset", ["-pc", String(serverCore), String(child.pid)], { stdio: "ignore" });
  return { url: `https://127.0.0.1:${port}`, stop: () => child.kill() };
}

const rows = [];
for (const [label, kind, http] of [
  [
    "HTTP/2",
    "h2",
    { version: 2, insecureTls: true, ...(sessions ? { maxConnections: Number(sessions) } : {}) },
  ],
  ["HTTP/1.1 (TLS)", "https", { insecureTls: true }],
]) {
  const server = await startServer(kind);
  const [cmd, cmdArgs] = pinned(client, process.execPath, [
    join(ROOT, "bench/lib/engine-client.mjs"),
    ...[
      "--url",
      server.url,
      "--vus",
      String(vus),
      "--duration",
      String(duration),
      "--http",
      JSON.stringify(http),
    ],
  ]);
  const out = JSON.parse(await run(cmd, cmdArgs, { cwd: ROOT }));
  rows.push([`volley ${label}`, fmt(out.rps), String(out.failures)]);
  console.log(`volley ${label.padEnd(16)} ${fmt(out.rps)} req/s, ${out.failures} failures`);
  if (kind === "h2") {
    const [rcmd, rargs] = pinned(client, process.execPath, [
      join(ROOT, "bench/lib/h2-reference.mjs"),
      ...["--url", server.url, "--vus", String(vus), "--duration", String(duration)],
    ]);
    const reference = JSON.parse(await run(rcmd, rargs, { cwd: ROOT }));
    rows.push(["node:http2 client", fmt(reference.rps), "-"]);
    console.log(`node:http2 client       ${fmt(reference.rps)} req/s`);
  }
  server.stop();
}
console.log(`\n${table([["protocol", "req/s", "failures"], ...rows])}`);
