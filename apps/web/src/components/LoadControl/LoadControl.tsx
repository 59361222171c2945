import {
  type LoadChangeRecord,
  type LoadConfig,
  loadShape,
  parseScenario,
  type RunDetail,
  vuCeiling,
} from "@volley/protocol";
import { type FormEvent, useMemo, useState } from "react";
import { api, errorText } from "../../api/client.js";

interface LoadControlProps {
  run: RunDetail;
  /** Seconds since the run's start. */
  elapsedS: number;
}

interface Knob {
  /** The part's name in `scenarios:`, or null for a single scenario. */
  scenario: string | null;
  knob: "vus" | "rate";
  load: LoadConfig;
}

/** Parts whose load can change while running: VU executors take VUs, arrival rates a rate. */
function knobsOf(run: RunDetail): Knob[] {
  try {
    return parseScenario(run.scenario).parts.flatMap((part): Knob[] => {
      const { executor } = part.load;
      if (executor === "constant-vus" || executor === "ramping-vus")
        return [{ scenario: part.name, knob: "vus", load: part.load }];
      if (executor === "constant-arrival-rate" || executor === "ramping-arrival-rate")
        return [{ scenario: part.name, knob: "rate", load: part.load }];
      return [];
    });
  } catch {
    return [];
  }
}

/** The planned value at `t` seconds (corners of the plan, linear between them). */
function plannedAt(load: LoadConfig, t: number): number {
  const { points } = loadShape(load);
  for (let i = 1; i < points.length; i++) {
    const [t0, v0] = points[i - 1];
    const [t1, v1] = points[i];
    if (t <= t1) return t1 > t0 ? v0 + ((v1 - v0) * (t - t0)) / (t1 - t0) : v1;
  }
  return points.at(-1)?.[1] ?? 0;
}

/** What the part runs at now: the latest change made to it, else the plan. */
function currentValue(part: Knob, changes: LoadChangeRecord[], elapsedS: number): number {
  const mine = changes.filter(
    (c) => (c.scenario ?? null) === part.scenario && c.at <= elapsedS + 1 && c[part.knob] !== undefined,
  );
  const latest = mine.at(-1);
  const value = latest ? (part.knob === "vus" ? latest.vus : latest.rate) : undefined;
  return value ?? Math.round(plannedAt(part.load, elapsedS) * 10) / 10;
}

/**
 * Changes a running run's VUs or arrival rate (`PATCH /api/runs/:id/load`): the new value holds
 * from now to the end (for a ramp, to the end of its current stage), and appears on the charts
 * as a marker.
 */
export function LoadControl({ run, elapsedS }: LoadControlProps) {
  const knobs = useMemo(() => knobsOf(run), [run]);
  const [chosen, setChosen] = useState(0);
  const [value, setValue] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const [applied, setApplied] = useState<LoadChangeRecord | null>(null);
  if (!knobs.length) return null;
  const part = knobs[Math.min(chosen, knobs.length - 1)];
  // Mid-ramp the planned VUs are fractional (4.6): a person sets and reads whole VUs.
  const planned = currentValue(part, run.loadChanges, elapsedS);
  const now = part.knob === "vus" ? Math.round(planned) : Math.round(planned * 10) / 10;
  const unit = part.knob === "vus" ? "VUs" : "iterations/s";
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const number = Number(value === "" ? Number.NaN : value);
    if (!Number.isFinite(number) || number < 0 || (part.knob === "vus" && !Number.isInteger(number))) {
      setError(part.knob === "vus" ? "VUs: a whole number, 0 or more" : "rate: a number, 0 or more");
      return;
    }
    setSending(true);
    setError(null);
    try {
      const body = { [part.knob]: number, ...(part.scenario !== null ? { scenario: part.scenario } : {}) };
      const answer = await api<{ loadChanges: LoadChangeRecord[] }>(`/api/runs/${run.id}/load`, {
        method: "PATCH",
        body,
      });
      setApplied(answer.loadChanges.at(-1) ?? null);
      setValue("");
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setSending(false);
    }
  };
  return (
    <section className="load-control" data-testid="load-control">
      <h2>Load</h2>
      {/* The master's answer names the field and the limit; the browser's own bubble would not. */}
      <form className="load-control-form" onSubmit={submit} noValidate>
        {knobs.length > 1 && (
          <label className="field">
            <span className="field-label">Scenario</span>
            <select
              value={chosen}
              onChange={(e) => {
                setChosen(Number(e.target.value));
                setError(null);
              }}
              data-testid="load-scenario"
            >
              {knobs.map((k, i) => (
                <option key={k.scenario ?? ""} value={i}>
                  {k.scenario} ({k.knob === "vus" ? "VUs" : "rate"})
                </option>
              ))}
            </select>
          </label>
        )}
        <label className={`field${error ? " has-error" : ""}`}>
          <span className="field-label">
            {part.knob === "vus"
              ? `VUs (now ${now}, at most ${vuCeiling(part.load)})`
              : `Rate (now ${now}/s)`}
          </span>
          <input
            type="number"
            inputMode="decimal"
            min={0}
            max={part.knob === "vus" ? vuCeiling(part.load) : undefined}
            step={part.knob === "vus" ? 1 : "any"}
            placeholder={String(now)}
            value={value}
            onChange={(e) => setValue(e.target.value)}
            aria-label={part.knob === "vus" ? "New VU count" : "New arrival rate"}
            data-testid="load-value"
          />
        </label>
        <button type="submit" className="primary" disabled={sending || value === ""} data-testid="load-apply">
          {sending ? "Applying…" : `Set ${unit}`}
        </button>
      </form>
      {error && (
        <p className="field-error" role="alert" data-testid="load-error">
          {error}
        </p>
      )}
      {applied && !error && (
        <p className="muted" data-testid="load-applied">
          {applied.vus !== undefined ? `${applied.vus} VUs` : `${applied.rate} iterations/s`} from{" "}
          {applied.at.toFixed(1)} s
          {part.load.executor.startsWith("ramping") ? " until the end of the current stage" : " to the end"}.
        </p>
      )}
    </section>
  );
}

/**
 * Chart markers for a run's load changes ("→ 8 VUs", "→ 100/s", "⇄ 3 workers", and the unique
 * rows a rebalance handed to the new workers: "⇄ 3 workers, 120 rows"), with who made each.
 */
export function loadMarkers(changes: LoadChangeRecord[]) {
  return changes.map((c) => ({
    at: c.at,
    label:
      (c.workers !== undefined
        ? `⇄ ${c.workers} workers${handedRows(c)}`
        : `${c.scenario ? `${c.scenario} ` : ""}→ ${c.vus !== undefined ? `${c.vus} VUs` : `${c.rate}/s`}`) +
      (c.by ? ` (${c.by})` : ""),
  }));
}

function handedRows(change: LoadChangeRecord): string {
  if (!change.rows) return "";
  const rows = Object.values(change.rows).reduce((sum, n) => sum + n, 0);
  return `, ${rows.toLocaleString("en-US")} ${rows === 1 ? "row" : "rows"}`;
}
