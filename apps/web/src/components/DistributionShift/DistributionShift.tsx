import type { LatencyShift, ShiftPercentile } from "@volley/protocol";
import { formatMs } from "../../format/format.js";

/** The z beyond which a shift is more than sampling noise (as `volley run --baseline` judges). */
const SIGNIFICANT_Z = 3;

const LABELS: Record<ShiftPercentile, string> = {
  p50: "p50",
  p75: "p75",
  p90: "p90",
  p95: "p95",
  p99: "p99",
  p999: "p99.9",
};

const share = (value: number) => `${(value * 100).toFixed(value < 0.01 ? 2 : 1)} %`;

function judgement(shift: LatencyShift): { text: string; tone: string } {
  if (shift.z > SIGNIFICANT_Z) return { text: "B slower", tone: "bad" };
  if (shift.z < -SIGNIFICANT_Z) return { text: "B faster", tone: "good" };
  return { text: "within noise", tone: "" };
}

/**
 * B's whole latency distribution against A's percentiles: how many of B's requests are slower
 * than A's p95 (A has 5 % there), and whether the difference is beyond sampling noise. Sounder
 * than two single percentiles, which move by chance in short runs.
 */
export function DistributionShift({ shift }: { shift: Partial<Record<ShiftPercentile, LatencyShift>> }) {
  const rows = (Object.keys(LABELS) as ShiftPercentile[]).flatMap((key) => {
    const value = shift[key];
    return value ? [{ key, value }] : [];
  });
  if (!rows.length) return null;
  return (
    <section>
      <h2>Distribution</h2>
      <p className="muted">
        Share of each run's requests slower than A's percentile; a difference beyond sampling noise (z &gt;{" "}
        {SIGNIFICANT_Z}) means the whole distribution moved.
      </p>
      <div className="table-scroll">
        <table className="data-table compact" data-testid="compare-shift">
          <thead>
            <tr>
              <th>Percentile</th>
              <th>A's value</th>
              <th>A slower</th>
              <th>B slower</th>
              <th>z</th>
              <th>Judgement</th>
            </tr>
          </thead>
          <tbody>
            {rows.map(({ key, value }) => {
              const { text, tone } = judgement(value);
              return (
                <tr key={key} data-percentile={key}>
                  <td>{LABELS[key]}</td>
                  <td>{formatMs(value.aMs)}</td>
                  <td>{share(value.aShare)}</td>
                  <td>{share(value.bShare)}</td>
                  <td>{value.z.toFixed(1)}</td>
                  <td className={tone}>{text}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}
