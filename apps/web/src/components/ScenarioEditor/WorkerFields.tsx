import { useLive } from "../../live/live-context.js";
import { workerLabelOptions } from "../WorkerList/worker-labels.js";
import { type Draft, isRecord } from "./draft.js";
import { Field } from "./Field.js";

interface WorkerFieldsProps {
  draft: Draft;
  issues: Map<string, string>;
  onChange: (draft: Draft) => void;
}

/**
 * Which workers run it (`workers: { selector, count }`), offered from the labels the connected
 * workers carry. Shown once a worker has labels or the scenario names some.
 */
export function WorkerFields({ draft, issues, onChange }: WorkerFieldsProps) {
  const live = useLive();
  const options = workerLabelOptions(live.workers);
  const workers = isRecord(draft.workers) ? draft.workers : undefined;
  const selector = isRecord(workers?.selector) ? (workers.selector as Record<string, unknown>) : {};
  const pairs = Object.entries(selector).map(([key, value]) => `${key}=${String(value)}`);
  if (options.length === 0 && workers === undefined) return null;
  const write = (next: { selector: Record<string, string>; count?: number }) => {
    const { workers: _old, ...rest } = draft;
    const empty = Object.keys(next.selector).length === 0 && next.count === undefined;
    onChange(
      empty
        ? rest
        : {
            ...rest,
            workers: {
              ...(Object.keys(next.selector).length ? { selector: next.selector } : {}),
              ...(next.count !== undefined ? { count: next.count } : {}),
            },
          },
    );
  };
  const count = typeof workers?.count === "number" ? workers.count : undefined;
  const chosen = pairs.length === 1 ? pairs[0] : "";
  return (
    <fieldset>
      <legend>Workers</legend>
      <div className="field-row">
        <Field label="Run on" path="workers.selector" issues={issues} hint="workers whose labels match">
          {pairs.length > 1 ? (
            <p className="field-note" data-testid="selector-note">
              Workers labelled {pairs.join(", ")}. Edit the selector in the scenario text.
            </p>
          ) : (
            <select
              name="workers.selector"
              value={chosen}
              onChange={(e) => {
                const [key, ...value] = e.target.value.split("=");
                write({ selector: e.target.value ? { [key]: value.join("=") } : {}, count });
              }}
            >
              <option value="">every free worker</option>
              {[...new Set([...options, ...pairs])].map((option) => (
                <option key={option}>{option}</option>
              ))}
            </select>
          )}
        </Field>
        <Field label="How many" path="workers.count" issues={issues} hint="default: every one that matches">
          <input
            name="workers.count"
            type="number"
            min={1}
            value={count ?? ""}
            onChange={(e) =>
              write({
                selector: Object.fromEntries(Object.entries(selector).map(([k, v]) => [k, String(v)])),
                count: e.target.value === "" ? undefined : Number(e.target.value),
              })
            }
          />
        </Field>
      </div>
    </fieldset>
  );
}
