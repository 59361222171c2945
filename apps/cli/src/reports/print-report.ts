import {
  type CapacityResult,
  formatBytes,
  formatMs,
  formatQuantity,
  messageKind,
  type RunDetail,
  scopedName,
  statusLabel,
  stepVerdict,
} from "@volley/protocol";
import { formatSummaryTable, formatThresholds } from "../summary-table.js";

/** The final report `volley run` prints: totals, the request table, errors, capacity, trust, thresholds. */
export function printReport(run: RunDetail): void {
  const t = run.summary.total;
  console.log(
    `\n${run.name}: ${statusLabel(run)}${run.error ? ` (${run.error})` : ""}, ${formatQuantity(t.requests, "request")} in ${run.summary.durationS.toFixed(1)} s, ${t.dropped.toLocaleString("en-US")} dropped`,
  );
  console.log(formatSummaryTable(run));
  const sockets = formatMessages(run);
  if (sockets) console.log(`\n${sockets}`);
  const streams = formatStreams(run);
  if (streams) console.log(`\n${streams}`);
  if (t.iterations !== undefined) console.log(`\n${formatIterations(t)}`);
  if (run.summary.errors.length) {
    console.log("\nErrors:");
    for (const e of run.summary.errors.slice(0, 10))
      console.log(`  ${e.count}x ${e.kind} ${e.request ?? ""}: ${e.message}`);
  }
  if (run.summary.capacity) console.log(`\n${formatCapacity(run.summary.capacity)}`);
  console.log(`\nFigures: ${run.trust.verdict}`);
  for (const reason of run.trust.reasons) console.log(`  - ${reason.message}`);
  const thresholds = formatThresholds(run);
  if (thresholds) console.log(`\nThresholds ${run.passed ? "passed" : "FAILED"}:\n${thresholds}`);
}

/** Messages and bytes under each name that carried some: "chat  WebSocket  90 messages sent, 90 received  1.2 KiB out, 1.9 KiB in". */
export function formatMessages(run: RunDetail): string {
  const sockets = run.summary.requests.filter((r) => r.ws);
  if (sockets.length === 0) return "";
  const width = Math.max(...sockets.map((r) => scopedName(r.scenario, r.name).length));
  const lines = sockets.map((r) => {
    const ws = r.ws as NonNullable<typeof r.ws>;
    return `  ${scopedName(r.scenario, r.name).padEnd(width)}  ${messageKind(r.method).padEnd(11)}  ${formatQuantity(ws.messagesSent, "message")} sent, ${ws.messagesReceived.toLocaleString("en-US")} received  ${formatBytes(ws.bytesOut)} out, ${formatBytes(ws.bytesIn)} in`;
  });
  return ["Messages", ...lines].join("\n");
}

/** Each streamed request's timings: "chat  first byte p95 12 ms, first event p95 104 ms, gap p95 31 ms, 5 events per stream". */
export function formatStreams(run: RunDetail): string {
  const streamed = run.summary.requests.filter((r) => r.stream);
  if (streamed.length === 0) return "";
  const width = Math.max(...streamed.map((r) => scopedName(r.scenario, r.name).length));
  const lines = streamed.map((r) => {
    const s = r.stream as NonNullable<typeof r.stream>;
    return `  ${scopedName(r.scenario, r.name).padEnd(width)}  first byte p95 ${formatMs(s.firstByteMs.p95)}, first event p50 ${formatMs(s.firstEventMs.p50)} p95 ${formatMs(s.firstEventMs.p95)}, gap p50 ${formatMs(s.gapMs.p50)} p99 ${formatMs(s.gapMs.p99)}, ${formatQuantity(s.events, "event")} (${s.eventsPerStream} per stream)`;
  });
  return ["Streams", ...lines].join("\n");
}

/** "Iterations: 1,000 (p50 12.3 ms, p95 20.1 ms, max 41.0 ms), 50 skipped". */
export function formatIterations(total: RunDetail["summary"]["total"]): string {
  const ms = total.iterationMs;
  const durations =
    ms && (total.iterations ?? 0) > 0
      ? ` (p50 ${formatMs(ms.p50)}, p95 ${formatMs(ms.p95)}, max ${formatMs(ms.max)})`
      : "";
  const skipped = total.skippedIterations
    ? `, ${total.skippedIterations.toLocaleString("en-US")} skipped`
    : "";
  return `Iterations: ${(total.iterations ?? 0).toLocaleString("en-US")}${durations}${skipped}`;
}

/** A capacity search's answer and one line per step. */
export function formatCapacity(capacity: CapacityResult): string {
  const lines = capacity.steps.map((s) => {
    const verdict = stepVerdict(s);
    const p95 = s.p95 === null ? "–" : formatMs(s.p95);
    return `  ${String(s.rate).padStart(8)}/s  achieved ${s.achievedRps.toFixed(1).padStart(8)}/s  p95 ${p95.padStart(9)}  errors ${(s.errorRate * 100).toFixed(2).padStart(6)} %  ${verdict}`;
  });
  return [`Capacity: ${capacity.sentence}`, ...lines].join("\n");
}
