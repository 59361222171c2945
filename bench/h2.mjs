// pnpm bench h2 [--duration 8] [--vus 50] [--rounds 3] [--protocols h2,h2c] [--sessions N]
// HTTP/2 from one pinned core against a node http2 server pinned to the other, in interleaved
// rounds: Volley's engine thread on its own client (node:http2), the same on undici's
// (`client: undici`, allowH2), node's own http2 client in a tight loop (`--vus` streams on one
// session), and h2load (nghttp2, C: the reference for what one core can do) with as many streams.
// Over TLS ("h2") and over plain TCP with prior knowledge ("h2c").
import { execFileSync, fork } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { arg, cores, fmt, has, pinned, ROOT, run, table } from "./lib/tools.mjs";

const args = process.argv.slice(2);
const duration = Number(arg(args, "duration", "8"));
const vus = Number(arg(args, "vus", "50"));
const rounds = Number(arg(args, "rounds", "3"));
const protocols = arg(args, "protocols", "h2").split(",");
const sessions = arg(args, "sessions", "");
const { client, server: serverCore } = cores();
if (!has("h2load")) {
  console.log("installing nghttp2-client (h2load)...");
  execFileSync("sh", ["-c", "apt-get install -y -qq nghttp2-client >/dev/null"], { stdio: "inherit" });
}

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

/** A node server (h2, h2c or https) in its own process, pinned; resolves to its URL. */
async function startServer(kind) {
  const child = fork(join(ROOT, "bench/lib/tls-server.mjs"), [kind, dir], { stdio: "inherit" });
  const port = await new Promise((resolve) => child.once("message", resolve));
  execFileSync("taskset", ["-pc", String(serverCore), String(child.pid)], { stdio: "ignore" });
  return { url: `${kind === "h2c" ? "http" : "https"}://127.0.0.1:${port}`, stop: () => child.kill() };
}

const pinnedRun = async (command, commandArgs) => run(...pinned(client, command, commandArgs), { cwd: ROOT });

/** req/s of one mode against `url`. */
async function measure(mode, url, protocol) {
  if (mode === "volley" || mode === "volley/undici") {
    const http = {
      version: protocol === "h2c" ? "2c" : 2,
      insecureTls: true,
      ...(sessions ? { maxConnections: Number(sessions) } : {}),
    };
    const out = await pinnedRun(process.execPath, [
      join(ROOT, "bench/lib/engine-client.mjs"),
      ...["--url", url, "--path", "/", "--vus", String(vus), "--duration", String(duration)],
      ...["--client", mode === "volley" ? "volley" : "undici", "--http", JSON.stringify(http)],
    ]);
    const parsed = JSON.parse(out);
    if (parsed.failures > 0) console.log(`  ${mode}: ${parsed.failures} failures`);
    return parsed.rps;
  }
  if (mode === "node:http2") {
    const out = await pinnedRun(process.execPath, [
      join(ROOT, "bench/lib/h2-reference.mjs"),
      ...["--url", url, "--vus", String(vus), "--duration", String(duration)],
    ]);
    return JSON.parse(out).rps;
  }
  // h2load: one client (one session), `vus` streams at once, for `duration` seconds.
  const out = await pinnedRun("h2load", ["-c", "1", "-m", String(vus), "-D", String(duration), `${url}/`]);
  const match = /finished in [\d.]+s, ([\d.]+) req\/s/.exec(out);
  if (!match) throw new Error(`h2load printed no rate:\n${out}`);
  return Number(match[1]);
}

const median = (list) => {
  const sorted = [...list].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const MODES = ["volley", "volley/undici", "node:http2", "h2load"];

for (const protocol of protocols) {
  const server = await startServer(protocol);
  console.log(`\n${protocol}: ${server.url}, ${vus} streams, ${duration} s a measure, ${rounds} rounds`);
  await measure("volley", server.url, protocol); // warm-up (and the server's JIT)
  const results = Object.fromEntries(MODES.map((mode) => [mode, []]));
  for (let round = 0; round < rounds; round++) {
    const order = MODES.map((_, i) => MODES[(i + round) % MODES.length]);
    for (const mode of order) results[mode].push(await measure(mode, server.url, protocol));
    console.log(`round ${round + 1}: ${MODES.map((m) => `${m} ${fmt(results[m].at(-1))}`).join(", ")} req/s`);
  }
  server.stop();
  const ratios = (mode) => results.volley.map((v, i) => v / results[mode][i]);
  const rows = MODES.map((mode) => [
    mode,
    fmt(median(results[mode])),
    mode === "volley" ? "1.00" : median(ratios(mode)).toFixed(2),
    mode === "volley"
      ? ""
      : ratios(mode)
          .map((r) => r.toFixed(2))
          .join(", "),
  ]);
  console.log(`\n${table([["client", "median req/s", "volley ÷ client (median)", "rounds"], ...rows])}`);
  console.log(
    `\n${protocol}: volley ÷ node:http2 = ${median(ratios("node:http2")).toFixed(2)} (goal >= 1.0), ` +
      `volley ÷ h2load = ${median(ratios("h2load")).toFixed(2)} (goal >= 0.5)`,
  );
}
