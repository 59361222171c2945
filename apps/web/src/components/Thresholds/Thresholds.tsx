import { formatThresholdActual, type ThresholdResult } from "@volley/protocol";

/** Threshold rules with the measured value and pass or fail. */
export function Thresholds({ results }: { results: ThresholdResult[] }) {
  if (!results.length) return null;
  return (
    <ul className="thresholds" data-testid="thresholds">
      {results.map((r) => (
        <li key={r.key} className={r.pass ? "good" : "bad"}>
          <span className="mark">{r.pass ? "✓" : "✗"}</span> <code>{r.key}</code> {r.expression}
          <span className="muted"> — actual {formatThresholdActual(r)}</span>
        </li>
      ))}
    </ul>
  );
}
