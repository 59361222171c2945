import { EXECUTORS } from "@volley/protocol";
import { type Draft, getAt, numberOrText, setAt } from "./draft.js";
import { Field } from "./Field.js";

interface LoadFieldsProps {
  draft: Draft;
  issues: Map<string, string>;
  onChange: (draft: Draft) => void;
}

type Kind = "int" | "number" | "duration";
const FIELDS: Record<string, Array<{ key: string; label: string; kind: Kind; hint?: string }>> = {
  "constant-vus": [
    { key: "vus", label: "VUs", kind: "int" },
    { key: "duration", label: "Duration", kind: "duration", hint: "e.g. 30s, 5m" },
    { key: "rampUp", label: "Ramp-up", kind: "duration", hint: "optional" },
  ],
  "ramping-vus": [{ key: "startVus", label: "Start VUs", kind: "int" }],
  "per-vu-iterations": [
    { key: "vus", label: "VUs", kind: "int" },
    { key: "iterations", label: "Iterations per VU", kind: "int" },
    { key: "maxDuration", label: "Max duration", kind: "duration", hint: "default 10m" },
  ],
  "shared-iterations": [
    { key: "vus", label: "VUs", kind: "int" },
    { key: "iterations", label: "Iterations in all", kind: "int" },
    { key: "maxDuration", label: "Max duration", kind: "duration", hint: "default 10m" },
  ],
  "constant-arrival-rate": [
    { key: "rate", label: "Rate (iterations/s)", kind: "number" },
    { key: "duration", label: "Duration", kind: "duration" },
    { key: "maxVus", label: "Max VUs", kind: "int" },
  ],
  "ramping-arrival-rate": [
    { key: "startRate", label: "Start rate (/s)", kind: "number" },
    { key: "maxVus", label: "Max VUs", kind: "int" },
  ],
  "capacity-search": [
    { key: "startRate", label: "Start rate (/s)", kind: "number" },
    { key: "step", label: "Step (+/s)", kind: "number", hint: "or factor in the text" },
    { key: "stepDuration", label: "Step duration", kind: "duration", hint: "whole seconds" },
    { key: "maxRate", label: "Max rate (/s)", kind: "number" },
    { key: "maxVus", label: "Max VUs", kind: "int" },
  ],
};
const DEFAULTS: Record<string, Record<string, unknown>> = {
  "constant-vus": { vus: 10, duration: "30s" },
  "ramping-vus": { stages: [{ duration: "30s", target: 10 }] },
  "per-vu-iterations": { vus: 10, iterations: 10 },
  "shared-iterations": { vus: 10, iterations: 100 },
  "constant-arrival-rate": { rate: 100, duration: "30s", maxVus: 50 },
  "ramping-arrival-rate": { stages: [{ duration: "30s", target: 100 }], maxVus: 50 },
  "capacity-search": {
    startRate: 50,
    step: 50,
    stepDuration: "10s",
    maxRate: 1000,
    maxVus: 200,
    slo: { p95: "<200ms", errorRate: "<1%" },
  },
};

/** The `load` block: the executor and the fields that executor takes. */
export function LoadFields({ draft, issues, onChange }: LoadFieldsProps) {
  const load = (getAt(draft, ["load"]) ?? {}) as Record<string, unknown>;
  const executor = String(load.executor ?? "constant-vus");
  const fields = FIELDS[executor] ?? [];
  const hasStages = executor === "ramping-vus" || executor === "ramping-arrival-rate";
  const stages = (Array.isArray(load.stages) ? load.stages : []) as Array<Record<string, unknown>>;
  const changeExecutor = (next: string) => {
    const keep = Object.fromEntries(
      Object.entries(load).filter(
        ([key]) =>
          key === "gracefulStop" ||
          (key === "slo" && next === "capacity-search") ||
          FIELDS[next]?.some((f) => f.key === key),
      ),
    );
    onChange(setAt(draft, ["load"], { ...DEFAULTS[next], ...keep, executor: next }));
  };
  return (
    <fieldset>
      <legend>Load</legend>
      <div className="field-row">
        <Field label="Executor" path="load.executor" issues={issues}>
          <select value={executor} onChange={(e) => changeExecutor(e.target.value)} name="executor">
            {EXECUTORS.map((e) => (
              <option key={e} value={e}>
                {e}
              </option>
            ))}
          </select>
        </Field>
        {fields.map((field) => (
          <Field
            key={field.key}
            label={field.label}
            path={`load.${field.key}`}
            issues={issues}
            hint={field.hint}
          >
            <input
              name={`load.${field.key}`}
              value={load[field.key] === undefined ? "" : String(load[field.key])}
              inputMode={field.kind === "duration" ? "text" : "decimal"}
              onChange={(e) =>
                onChange(
                  setAt(
                    draft,
                    ["load", field.key],
                    field.kind === "duration" ? e.target.value : numberOrText(e.target.value),
                  ),
                )
              }
            />
          </Field>
        ))}
        <Field label="Graceful stop" path="load.gracefulStop" issues={issues} hint="default 5s">
          <input
            name="load.gracefulStop"
            value={String(load.gracefulStop ?? "")}
            onChange={(e) => onChange(setAt(draft, ["load", "gracefulStop"], e.target.value))}
          />
        </Field>
      </div>
      {executor === "capacity-search" && (
        <p className="field-hint" data-testid="slo-note">
          SLO each step is judged by: {describeSlo(load.slo)}. Edit <code>slo</code> (p95, p99, errorRate,
          request) in the scenario text.
        </p>
      )}
      {hasStages && (
        <div className="stages">
          {stages.map((stage, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: stages have no identity besides their position
            <div className="field-row" key={index}>
              <Field
                label={`Stage ${index + 1} duration`}
                path={`load.stages[${index}].duration`}
                issues={issues}
              >
                <input
                  value={String(stage.duration ?? "")}
                  onChange={(e) =>
                    onChange(setAt(draft, ["load", "stages", index, "duration"], e.target.value))
                  }
                />
              </Field>
              <Field
                label={executor === "ramping-vus" ? "Target VUs" : "Target rate (/s)"}
                path={`load.stages[${index}].target`}
                issues={issues}
              >
                <input
                  value={String(stage.target ?? "")}
                  onChange={(e) =>
                    onChange(setAt(draft, ["load", "stages", index, "target"], numberOrText(e.target.value)))
                  }
                />
              </Field>
              <button
                type="button"
                className="small"
                onClick={() => onChange(setAt(draft, ["load", "stages", index], undefined))}
              >
                Remove
              </button>
            </div>
          ))}
          <button
            type="button"
            className="small"
            onClick={() =>
              onChange(setAt(draft, ["load", "stages"], [...stages, { duration: "30s", target: 10 }]))
            }
          >
            Add stage
          </button>
          {issues.get("load.stages") && <span className="field-error">{issues.get("load.stages")}</span>}
        </div>
      )}
    </fieldset>
  );
}

function describeSlo(slo: unknown): string {
  if (!slo || typeof slo !== "object") return "none yet";
  const parts = Object.entries(slo as Record<string, unknown>).map(
    ([key, value]) => `${key} ${String(value)}`,
  );
  return parts.length ? parts.join(", ") : "none yet";
}
