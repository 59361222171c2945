import { formatMs, parseScenario, type RunDetail, runPlannedIterations, statusLabel } from "@volley/protocol";

/** How often a plain (non-TTY) progress line is printed, so CI logs stay readable. */
const PLAIN_EVERY_MS = 5000;
const BAR_WIDTH = 24;

/**
 * `volley run`'s progress while a run is active. In a terminal: a block of a few lines redrawn in
 * place each second (elapsed of planned with a bar, rps now, p95, errors, VUs, workers, and a
 * saturation flag). Elsewhere (CI logs): one plain line every five seconds.
 */
export class LiveView {
  private drawn = 0;
  private lastPlain = 0;

  constructor(
    private readonly out: { write(text: string): unknown; isTTY?: boolean; columns?: number },
    private readonly now: () => number = Date.now,
  ) {}

  /** `saturatedNow`: workers of the run saturated now (the live feed's); else read from the run's warnings. */
  update(run: RunDetail, saturatedNow?: string[]): void {
    const lines = liveLines(run, this.now(), saturatedNow);
    if (this.out.isTTY) {
      // A line wider than the terminal would wrap and break the cursor arithmetic: cut it.
      const width = Math.max(20, (this.out.columns ?? 120) - 1);
      const up = this.drawn > 1 ? `\x1b[${this.drawn - 1}A` : "";
      let text = `\r${up}${lines.map((l) => `\x1b[2K${l.slice(0, width)}`).join("\n")}`;
      // A block that shrank leaves no stale line under it.
      const stale = this.drawn - lines.length;
      if (stale > 0) text += `${"\n\x1b[2K".repeat(stale)}\x1b[${stale}A`;
      this.out.write(text);
      this.drawn = lines.length;
    } else if (this.now() - this.lastPlain >= PLAIN_EVERY_MS) {
      this.out.write(`${plainLine(run, this.now(), saturatedNow)}\n`);
      this.lastPlain = this.now();
    }
  }

  /** Leaves the block on screen and moves below it. */
  finish(): void {
    if (this.out.isTTY && this.drawn > 0) this.out.write("\n");
    this.drawn = 0;
  }
}

interface Figures {
  elapsedS: number;
  plannedS: number;
  rps: number;
  p95: number | null;
  requests: number;
  failures: number;
  errorRate: number;
  vus: number;
  maxVus: number;
  running: number;
  lost: number;
  saturated: string[];
  /** Iterations done of those planned, for a run of a fixed number of them; else null. */
  iterations: { done: number; planned: number } | null;
  finished: number;
}

/** A run of a fixed number of iterations counts its progress in them (its length is only a bound). */
const plannedIterationsOf = (() => {
  const known = new Map<string, number | null>();
  return (run: RunDetail): number | null => {
    if (!known.has(run.id)) {
      let planned: number | null = null;
      try {
        planned = runPlannedIterations(parseScenario(run.scenario));
      } catch {
        // A stored scenario this CLI cannot read: show the planned length instead.
      }
      known.set(run.id, planned);
    }
    return known.get(run.id) ?? null;
  };
})();

function figures(run: RunDetail, now: number, saturatedNow?: string[]): Figures {
  const t = run.summary.total;
  const planned = plannedIterationsOf(run);
  const started = run.startedAt ? Date.parse(run.startedAt) : now;
  const elapsedS = Math.max(0, (now - started) / 1000);
  const latest = run.now ?? null;
  // A worker whose last saturation span reaches the last few seconds is saturated now.
  const saturated =
    saturatedNow ??
    run.warnings
      .filter((w) => (w.kind ?? "saturated") === "saturated" && w.toS >= elapsedS - 3)
      .map((w) => w.workerName);
  return {
    elapsedS,
    plannedS: run.plannedDurationS,
    rps: latest?.rps ?? t.rps,
    p95: latest?.p95 ?? t.latencyMs.p95,
    requests: t.requests,
    failures: t.failures,
    errorRate: t.requests ? t.failures / t.requests : 0,
    vus: latest?.vus ?? 0,
    maxVus: run.workers.reduce((sum, w) => sum + w.vus, 0),
    running: run.workers.filter((w) => w.status === "running").length,
    lost: run.workers.filter((w) => w.status === "lost" || w.status === "failed").length,
    saturated: [...new Set(saturated)],
    iterations: planned === null ? null : { done: t.iterations ?? 0, planned },
    finished: run.workers.filter((w) => w.status === "finished").length,
  };
}

/** The terminal block: what a person watching the run reads at a glance. */
export function liveLines(run: RunDetail, now: number, saturatedNow?: string[]): string[] {
  if (run.status === "queued") return [`${run.name}  queued: it starts when the runs before it end`];
  const f = figures(run, now, saturatedNow);
  const share = progress(f);
  const filled = Math.round(share * BAR_WIDTH);
  const bar = `[${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}]`;
  const lines = [
    `${run.name}  ${statusLabel(run)}  ${where(f, " / ", " of ", "  ")}  ${bar} ${Math.round(share * 100)}%`,
    `  rps ${rate(f.rps)}/s   p95 ${f.requests ? formatMs(f.p95) : "–"}   errors ${percent(f.errorRate)} (${f.failures.toLocaleString("en-US")})   VUs ${f.vus} of ${f.maxVus}   workers ${workerWord(f)}`,
  ];
  if (f.saturated.length) {
    lines.push(`  ! saturated: ${f.saturated.join(", ")} (the generator, not the target, may be the limit)`);
  }
  return lines;
}

/** One line for logs that are not a terminal. */
export function plainLine(run: RunDetail, now: number, saturatedNow?: string[]): string {
  if (run.status === "queued") return `${run.name} queued`;
  const f = figures(run, now, saturatedNow);
  return [
    `[${where(f, "/", "/", " ")}] ${statusLabel(run)}`,
    `rps ${rate(f.rps)}/s`,
    `p95 ${f.requests ? formatMs(f.p95) : "-"}`,
    `errors ${percent(f.errorRate)} (${f.failures})`,
    `VUs ${f.vus}/${f.maxVus}`,
    `workers ${workerWord(f)}`,
    ...(f.saturated.length ? [`SATURATED ${f.saturated.join(",")}`] : []),
  ].join("  ");
}

/** Whole requests per second with separators; a decimal below 100. */
function rate(value: number): string {
  return value < 100 ? value.toFixed(1) : Math.round(value).toLocaleString("en-US");
}

/**
 * Elapsed of planned (`ofTime` between them), or, for a fixed number of iterations, elapsed and
 * the iterations done of those planned (`ofCount` between them, after `gap`).
 */
function where(f: Figures, ofTime: string, ofCount: string, gap: string): string {
  if (!f.iterations) return `${clock(f.elapsedS)}${ofTime}${clock(f.plannedS)}`;
  const { done, planned } = f.iterations;
  return `${clock(f.elapsedS)}${gap}${done.toLocaleString("en-US")}${ofCount}${planned.toLocaleString("en-US")} iterations`;
}

/** Share of the run done: of its iterations when it has a fixed number, else of its planned length. */
function progress(f: Figures): number {
  if (f.iterations)
    return f.iterations.planned > 0 ? Math.min(1, f.iterations.done / f.iterations.planned) : 0;
  const shown = Math.min(f.elapsedS, f.plannedS || f.elapsedS);
  return f.plannedS > 0 ? Math.min(1, shown / f.plannedS) : 0;
}

/** "2 running", "1 running, 1 finished", "2 finished, 1 lost": a worker done with its part is finished, not idle. */
function workerWord(f: Figures): string {
  const parts = [
    f.running ? `${f.running} running` : "",
    f.finished ? `${f.finished} finished` : "",
    f.lost ? `${f.lost} lost` : "",
  ].filter(Boolean);
  return parts.join(", ") || "0 running";
}

function percent(rate: number): string {
  return `${(rate * 100).toFixed(2)}%`;
}

/** m:ss, or h:mm:ss past an hour. */
export function clock(seconds: number): string {
  const s = Math.floor(seconds);
  const hh = Math.floor(s / 3600);
  const mm = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return hh ? `${hh}:${String(mm).padStart(2, "0")}:${ss}` : `${mm}:${ss}`;
}
