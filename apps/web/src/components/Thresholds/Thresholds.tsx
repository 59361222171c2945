import { LATENCY_METRICS, parseThreshold, RATIO_METRICS, type ThresholdResult } from "@volley/protocol";

/** Threshold rules with the measured value and pass or fail. */
export function Thresholds({ results }: { results: ThresholdResult[] }) {
  if (!results.length) return null;
  return (
    <ul className="thresholds" data-testid="thresholds">
      {results.map((r) => (
        <li key={r.key} className={r.pass ? "good" : "bad"}>
          <span className="mark">{r.pass ? "✓" : "✗"}</span> <code>{r.key}</code> {r.expression}
          <span className="muted"> — actual {r.actual === null ? "nothing measured" : format(r)}</span>
        </li>
      ))}
    </ul>
  );
}

function format(r: ThresholdResult): string {
  const value = r.actual ?? 0;
  const { metric } = parseThreshold(r.key, r.expression);
  if ((RATIO_METRICS as readonly string[]).includes(metric)) return `${(value * 100).toFixed(2)} %`;
  if ((LATENCY_METRICS as readonly string[]).includes(metric)) return `${value.toFixed(2)} ms`;
  return value.toLocaleString("en-US", { maximumFractionDigits: 2 });
}
