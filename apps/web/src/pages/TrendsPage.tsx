import {
  MEASURE_COLOURS,
  PERCENTILE_COLOURS,
  type RunPage as RunPageData,
  type TrendPoint,
} from "@volley/protocol";
import { useMemo, useState } from "react";
import { Link, useSearchParams } from "react-router-dom";
import { ApiError, api } from "../api/client.js";
import { useApi } from "../api/use-api.js";
import { Chart } from "../components/Chart/Chart.js";
import { When } from "../components/When/When.js";
import { formatMs, formatPercent, formatRate } from "../format/format.js";

/** The band's width when the URL names none: the change `--max-regression` examples allow. */
const DEFAULT_BAND_PERCENT = 10;

/** The URL's `band`: a whole percent from 1 to 100, or why it is not one. */
function readBand(text: string | null): { percent: number; error: string | null } {
  if (text === null || text === "") return { percent: DEFAULT_BAND_PERCENT, error: null };
  const percent = Number(text);
  if (!Number.isInteger(percent) || percent < 1 || percent > 100)
    return { percent: DEFAULT_BAND_PERCENT, error: `Band: "${text}" is not a whole percent from 1 to 100` };
  return { percent, error: null };
}

/** /trends?name= — one scenario name across its finished runs: latency, throughput, errors. */
export function TrendsPage() {
  const [params, setParams] = useSearchParams();
  const name = params.get("name") ?? "";
  const [pinError, setPinError] = useState<string | null>(null);
  const recent = useApi<RunPageData>("/api/runs?status=finished&limit=100");
  const names = [...new Set((recent.data?.runs ?? []).map((r) => r.name))];
  const trend = useApi<TrendPoint[]>(name ? `/api/trends?name=${encodeURIComponent(name)}&limit=50` : null);
  const points = trend.data ?? [];
  // The baseline chosen here, else the one pinned for the name.
  const baseline = params.get("baseline") ?? points.find((p) => p.pinned)?.id ?? null;
  const pin = async (id: string) => {
    setPinError(null);
    try {
      await api(`/api/runs/${id}/pin`, { method: "POST" });
      trend.reload();
    } catch (error) {
      setPinError(error instanceof ApiError ? error.message : (error as Error).message);
    }
  };
  const x = useMemo(() => points.map((_, i) => i), [points]);
  // Runs are numbered oldest first; the table below says when each ran.
  const labels = points.map((_, i) => `#${i + 1}`);
  const base = points.find((p) => p.id === baseline);
  const band = readBand(params.get("band"));
  const [bandText, setBandText] = useState(params.get("band") ?? String(DEFAULT_BAND_PERCENT));
  const bandOf = (key: "p95" | "rps", label: string) =>
    base
      ? {
          label,
          color: MEASURE_COLOURS.baseline,
          low: points.map(() => base[key] * (1 - band.percent / 100)),
          high: points.map(() => base[key] * (1 + band.percent / 100)),
        }
      : undefined;
  // Outside the band on the worse side: slower p95, lower throughput.
  const worse = (p: TrendPoint, key: "p95" | "rps") =>
    base !== undefined &&
    (key === "p95"
      ? p.p95 > base.p95 * (1 + band.percent / 100)
      : p.rps < base.rps * (1 - band.percent / 100));
  const choose = (next: Record<string, string | null>) => {
    const merged = new URLSearchParams(params);
    for (const [key, value] of Object.entries(next)) {
      if (value) merged.set(key, value);
      else merged.delete(key);
    }
    setParams(merged);
  };
  return (
    <div>
      <div className="page-head">
        <h1>Trends</h1>
        <div className="actions">
          <select
            aria-label="Scenario name"
            value={name}
            onChange={(e) => choose({ name: e.target.value, baseline: null })}
            data-testid="trend-name"
          >
            <option value="">Choose a scenario…</option>
            {names.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </div>
      </div>
      {!name && <p className="muted">Pick a scenario name to see its finished runs side by side.</p>}
      {pinError && <div className="callout bad">{pinError}</div>}
      {base && (
        <form
          className="trend-band"
          data-testid="trend-band"
          onSubmit={(event) => {
            event.preventDefault();
            choose({ band: bandText });
          }}
        >
          <label>
            Band around the baseline ±{" "}
            <input
              type="text"
              className="band-input"
              inputMode="numeric"
              size={3}
              aria-label="Band around the baseline, percent"
              aria-invalid={band.error !== null}
              value={bandText}
              onChange={(event) => setBandText(event.target.value)}
              onBlur={() => choose({ band: bandText })}
            />{" "}
            %
          </label>
          <span className="muted">
            runs past it on the worse side are marked below (p95 above it, throughput under it)
          </span>
          {band.error && (
            <span className="field-error" role="alert">
              {band.error}
            </span>
          )}
        </form>
      )}
      {name && points.length === 0 && trend.data && <p className="muted">No finished run named {name}.</p>}
      {points.length > 0 && (
        <>
          <div className="chart-grid">
            <Chart
              title="Latency"
              unit="ms"
              x={x}
              xLabels={labels}
              series={[
                { label: "p50", color: PERCENTILE_COLOURS.p50, values: points.map((p) => p.p50) },
                { label: "p95", color: PERCENTILE_COLOURS.p95, values: points.map((p) => p.p95) },
                { label: "p99", color: PERCENTILE_COLOURS.p99, values: points.map((p) => p.p99) },
              ]}
              band={bandOf("p95", "baseline p95")}
            />
            <Chart
              title="Throughput"
              unit="req/s"
              x={x}
              xLabels={labels}
              series={[{ label: "rps", color: MEASURE_COLOURS.throughput, values: points.map((p) => p.rps) }]}
              band={bandOf("rps", "baseline")}
            />
            <Chart
              title="Error rate"
              unit="%"
              x={x}
              xLabels={labels}
              series={[
                {
                  label: "errors",
                  color: MEASURE_COLOURS.errors,
                  values: points.map((p) => p.errorRate * 100),
                },
              ]}
            />
          </div>
          <section>
            <h2>Runs</h2>
            <div className="table-scroll">
              <table className="data-table" data-testid="trend-table">
                <thead>
                  <tr>
                    <th>#</th>
                    <th>Run</th>
                    <th>Started</th>
                    <th>req/s</th>
                    <th>errors</th>
                    <th>p50</th>
                    <th>p95</th>
                    <th>p99</th>
                    <th>Figures</th>
                    <th>Baseline</th>
                    <th>Pinned</th>
                  </tr>
                </thead>
                <tbody>
                  {points.map((p, i) => (
                    <tr key={p.id} data-run={p.id}>
                      <td>{i + 1}</td>
                      <td>
                        <Link to={`/runs/${p.id}`}>{p.id}</Link>
                      </td>
                      <td>
                        <When iso={p.startedAt} />
                      </td>
                      <td
                        className={worse(p, "rps") ? "bad" : undefined}
                        data-outside={worse(p, "rps") || undefined}
                      >
                        {formatRate(p.rps, "")}
                      </td>
                      <td>{formatPercent(p.errorRate)}</td>
                      <td>{formatMs(p.p50)}</td>
                      <td
                        className={worse(p, "p95") ? "bad" : undefined}
                        data-outside={worse(p, "p95") || undefined}
                      >
                        {formatMs(p.p95)}
                      </td>
                      <td>{formatMs(p.p99)}</td>
                      <td>
                        <span className={`badge trust-${p.verdict}`}>{p.verdict}</span>
                      </td>
                      <td>
                        <input
                          type="radio"
                          name="baseline"
                          aria-label={`Use ${p.id} as the baseline`}
                          checked={p.id === baseline}
                          onChange={() => choose({ baseline: p.id })}
                        />
                      </td>
                      <td>
                        {p.pinned ? (
                          <span className="badge state-ready" data-testid="pinned">
                            pinned
                          </span>
                        ) : (
                          <button type="button" className="small" onClick={() => void pin(p.id)}>
                            Pin
                          </button>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </section>
        </>
      )}
    </div>
  );
}
