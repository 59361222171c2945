// pnpm bench threads [--duration 6] [--connections 50] [--rounds 3]
// Thread scaling, as far as two cores can show it: the target (nginx) on a test host of its own, a
// network namespace reached over a veth pair, pinned to one core; `volley run` with 1 and 2
// engine threads pinned to the other core, and with 2 threads on both cores (unpinned: one of
// them shares the target's); wrk on the client core over the same veth, the C reference. Every
// mode in every round, the order rotated. Root only (`ip netns`).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { arg, cores, fmt, has, pinned, ROOT, run, startNginx, table } from "./lib/tools.mjs";

const args = process.argv.slice(2);
const duration = arg(args, "duration", "6");
const connections = Number(arg(args, "connections", "50"));
const rounds = Number(arg(args, "rounds", "3"));
const { client, server } = cores();

// The test host: 10.213.0.2 in its namespace, 10.213.0.1 on this side of the cable.
const ns = `volley-threads-${process.pid}`;
const leg = `vth${process.pid % 100000}`;
const ip = (...command) => execFileSync("ip", command, { stdio: "ignore" });
const inNs = (...command) => ip("netns", "exec", ns, ...command);
function removeHost() {
  try {
    ip("netns", "del", ns); // takes the veth pair with it
  } catch {}
}
ip("netns", "add", ns);
process.on("exit", removeHost);
ip("link", "add", leg, "type", "veth", "peer", "name", `${leg}t`);
ip("link", "set", `${leg}t`, "netns", ns);
ip("addr", "add", "10.213.0.1/30", "dev", leg);
ip("link", "set", leg, "up");
inNs("ip", "link", "set", "lo", "up");
inNs("ip", "addr", "add", "10.213.0.2/30", "dev", `${leg}t`);
inNs("ip", "link", "set", `${leg}t`, "up");

const nginx = await startNginx({ core: server, host: "10.213.0.2", prefix: ["ip", "netns", "exec", ns] });
const dir = mkdtempSync(join(tmpdir(), "volley-threads-"));
const scenario = join(dir, "threads.json");
writeFileSync(
  scenario,
  JSON.stringify({
    name: "threads",
    target: nginx.url,
    load: { executor: "constant-vus", vus: connections, duration: `${duration}s` },
    requests: [{ path: "/hello" }],
  }),
);

/** `volley run --threads N`, pinned to the client core or on every core; its report's req/s. */
async function volleyRun(threads, onClientCore) {
  const report = join(dir, "report.json");
  const cli = [
    join(ROOT, "apps/cli/dist/bin.js"),
    "run",
    scenario,
    "--threads",
    String(threads),
    "--out",
    report,
  ];
  const [cmd, cmdArgs] = onClientCore ? pinned(client, process.execPath, cli) : [process.execPath, cli];
  await run(cmd, cmdArgs, {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: `file:${join(dir, "volley.db")}`, VOLLEY_LOG_LEVEL: "warn" },
  });
  const { summary } = JSON.parse(readFileSync(report, "utf8"));
  if (summary.total.failures > 0)
    throw new Error(`${summary.total.failures} failures: not measuring requests`);
  return summary.total.rps;
}

const MODES = {
  "wrk (C), client core": async () => {
    const [cmd, cmdArgs] = pinned(client, "wrk", [
      "-t1",
      `-c${connections}`,
      `-d${duration}s`,
      `${nginx.url}/hello`,
    ]);
    return Number(/Requests\/sec:\s+([\d.]+)/.exec(await run(cmd, cmdArgs))?.[1] ?? 0);
  },
  "volley run --threads 1, client core": () => volleyRun(1, true),
  "volley run --threads 2, client core": () => volleyRun(2, true),
  "volley run --threads 2, both cores": () => volleyRun(2, false),
};
if (!has("wrk")) delete MODES["wrk (C), client core"];
const names = Object.keys(MODES);
const results = Object.fromEntries(names.map((name) => [name, []]));

console.log(
  `nginx on a test host (network namespace, veth) pinned to core ${server}; clients on core ${client}; ${connections} VUs, ${duration}s each`,
);
await MODES[names[1]](); // warm-up
for (let round = 0; round < rounds; round++) {
  const order = names.map((_, i) => names[(i + round) % names.length]);
  for (const name of order) results[name].push(await MODES[name]());
  console.log(`round ${round + 1}: ${names.map((n) => `${n} ${fmt(results[n].at(-1))}`).join("; ")} req/s`);
}
await nginx.stop();
rmSync(dir, { recursive: true, force: true });

const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const one = names.find((name) => name.includes("--threads 1"));
const ratios = (name) => results[name].map((rps, round) => rps / results[one][round]);
console.log(
  `\n${table([
    ["client", "median req/s", "÷ --threads 1 (median)", "rounds"],
    ...names.map((name) => [
      name,
      fmt(median(results[name])),
      median(ratios(name)).toFixed(2),
      ratios(name)
        .map((r) => r.toFixed(2))
        .join(", "),
    ]),
  ])}`,
);
