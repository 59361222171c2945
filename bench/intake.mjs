// `pnpm bench intake`: the master's intake of stats batches alone, no Redis, no database — what
// it does per batch once the queue hands it over (JSON.parse of the job, the batch schema, the
// check, the merge, closing seconds and the checkpoint's figures) — with plain batches and with
// batches carrying tracing's slowest lists, phases and four custom metrics, in rotating rounds.
// `--against DIR`: a built checkout of another Volley version (a git worktree), loaded into the
// same process and measured in the same rounds on plain batches: this machine's speed drifts
// ±20 % between processes, far more than what #30's "within 10 % of today's" asks to read.
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { EXTRAS_PARTS, ingestBatch, METRICS } from "./lib/ingest-batches.mjs";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "20" },
    workers: { type: "string", default: "200" },
    seconds: { type: "string", default: "10" },
    names: { type: "string", default: "20" },
    "extras-parts": { type: "string", default: EXTRAS_PARTS.join(",") },
    against: { type: "string" },
  },
});
const rounds = Number(values.rounds);
const workerCount = Number(values.workers);
const seconds = Number(values.seconds);
const names = Number(values.names);
const extrasParts = new Set(values["extras-parts"].split(",").filter(Boolean));
const requestOrder = [
  ...Array.from({ length: names }, (_, n) => `request-${n}`),
  ...METRICS.map((m) => m.name),
];

/** A Volley build's intake: its batch schema, its run aggregator, its histogram buffer. */
async function loadBuild(root) {
  const at = (path) => import(pathToFileURL(resolve(root, path)).href);
  const [{ statsBatchSchema }, { DecodedHistograms }, { newWorker }, { RunAggregator }] = await Promise.all([
    at("packages/protocol/dist/index.js"),
    at("packages/stats/dist/index.js"),
    at("apps/master/dist/pipeline/merge-state.js"),
    at("apps/master/dist/pipeline/run-aggregator.js"),
  ]);
  return { statsBatchSchema, DecodedHistograms, newWorker, RunAggregator };
}

/** Every batch of a run as the queue hands them over: JSON text, second by second. */
function jobs(parts) {
  const texts = [];
  for (let second = 0; second < seconds; second++)
    for (let w = 0; w < workerCount; w++) {
      const batch = ingestBatch({
        runId: "bench-run",
        workerId: `w${w}`,
        workerIndex: w,
        second,
        final: second === seconds - 1,
        names,
        parts,
      });
      texts.push(JSON.stringify(batch));
    }
  return texts;
}

/** One run's intake by one build: its seconds of batches go through `second(s)`, one at a time. */
function intake(build, texts) {
  const aggregator = new build.RunAggregator({
    runId: "bench-run",
    startAt: 0,
    requestOrder,
    maxSecond: seconds + 10,
    workers: Array.from({ length: workerCount }, (_, w) => build.newWorker(`w${w}`, `w${w}`)),
  });
  const histograms = new build.DecodedHistograms();
  /** CPU milliseconds per batch (the process's: garbage collection's threads too) of second `s`. */
  return (s) => {
    const started = process.cpuUsage();
    for (let i = s * workerCount; i < (s + 1) * workerCount; i++) {
      const parsed = build.statsBatchSchema.safeParse(JSON.parse(texts[i]));
      if (!parsed.success) throw new Error(parsed.error.message);
      const problem = aggregator.problem(parsed.data, histograms);
      if (problem) throw new Error(problem);
      aggregator.accept(parsed.data, histograms);
    }
    aggregator.closeReady(Number.MAX_SAFE_INTEGER);
    aggregator.takeCheckpoint();
    const used = process.cpuUsage(started);
    return (used.user + used.system) / 1000 / workerCount;
  };
}

const here = await loadBuild(new URL("..", import.meta.url).pathname);
const plain = jobs(new Set());
const extras = jobs(extrasParts);
const modes = {
  plain: () => intake(here, plain),
  extras: () => intake(here, extras),
};
// Profiling one mode alone: INTAKE_ONLY=extras node --cpu-prof bench/intake.mjs
if (process.env.INTAKE_ONLY)
  for (const mode of Object.keys(modes)) if (mode !== process.env.INTAKE_ONLY) delete modes[mode];
if (values.against) {
  const other = await loadBuild(values.against);
  modes.against = () => intake(other, plain);
}
const size = (texts) => Math.round(texts.reduce((n, t) => n + t.length, 0) / texts.length / 1024);
console.log(
  `intake: ${workerCount} workers x ${seconds} s x ${names} names; extras: ${[...extrasParts].join(", ") || "none"}; ` +
    `batch ${size(plain)} KB plain, ${size(extras)} KB with extras; ${rounds} rounds` +
    (values.against ? `; against ${values.against} (plain batches)` : ""),
);
const names_ = Object.keys(modes);
/**
 * Each round runs every mode's run side by side, a second of batches at a time in rotating
 * order, so the machine's drift (seconds to minutes) falls on every mode alike: each second's
 * figures are compared with the same second's of the other modes.
 */
function round(k, times) {
  const runs = Object.fromEntries(names_.map((mode) => [mode, modes[mode]()]));
  for (let s = 0; s < seconds; s++) {
    globalThis.gc?.();
    for (let m = 0; m < names_.length; m++) {
      const mode = names_[(m + k + s) % names_.length];
      if (times) times[mode][k] = (times[mode][k] ?? 0) + runs[mode](s) / seconds;
      else runs[mode](s);
    }
  }
}
for (let i = 0; i < 3; i++) round(i, null); // warm the JIT on every shape
const times = Object.fromEntries(names_.map((mode) => [mode, []]));
for (let k = 0; k < rounds; k++) round(k, times);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ratios = (a, b) => times[a].map((t, k) => t / times[b][k]);
for (const mode of names_)
  console.log(`${mode.padEnd(7)} ${median(times[mode]).toFixed(3)} ms a batch (median of the rounds)`);
const line = (a, b, goal) => {
  const r = ratios(a, b);
  const q = (f) => [...r].sort((x, y) => x - y)[Math.floor(f * (r.length - 1))].toFixed(2);
  console.log(
    `${a} ÷ ${b}: median ${median(r).toFixed(3)}${goal} (quartiles ${q(0.25)}-${q(0.75)} of ${r.length} rounds)`,
  );
};
if (modes.plain && modes.extras) line("extras", "plain", "");
if (values.against) {
  line("plain", "against", "");
  line("extras", "against", " (goal ≤ 1.10)");
}
