import type { ValidationIssue } from "@volley/protocol";
import { useEffect, useState } from "react";
import { parse as parseYaml, stringify as toYaml } from "yaml";
import { type Draft, getAt, isRecord, linesToRecord, recordToLines, setAt } from "./draft.js";
import { Field } from "./Field.js";
import { LoadFields } from "./LoadFields.js";
import { RequestFields } from "./RequestFields.js";
import { describeSyntaxError, type SyntaxProblem } from "./syntax-error.js";
import { WorkerFields } from "./WorkerFields.js";

type Format = "yaml" | "json";

interface ScenarioEditorProps {
  draft: Draft;
  issues: ValidationIssue[];
  byPath: Map<string, string>;
  onChange: (draft: Draft) => void;
}

/**
 * The scenario as a form and as JSON/YAML text, kept in step: the form rewrites the text; text
 * that parses rewrites the form. Errors show at the field and under the text.
 */
export function ScenarioEditor({ draft, issues, byPath, onChange }: ScenarioEditorProps) {
  const [format, setFormat] = useState<Format>("yaml");
  const [text, setText] = useState(() => serialize(draft, "yaml"));
  const [syntaxError, setSyntaxError] = useState<SyntaxProblem | null>(null);
  const [editingText, setEditingText] = useState(false);

  useEffect(() => {
    if (!editingText) setText(serialize(draft, format));
  }, [draft, format, editingText]);

  const onText = (value: string) => {
    setText(value);
    try {
      const parsed = format === "json" ? JSON.parse(value) : parseYaml(value);
      if (!parsed || typeof parsed !== "object" || Array.isArray(parsed))
        throw new Error("the scenario must be an object");
      setSyntaxError(null);
      onChange(parsed as Draft);
    } catch (error) {
      setSyntaxError(describeSyntaxError(error, value));
    }
  };
  const requests = (Array.isArray(draft.requests) ? draft.requests : []) as unknown[];
  const set = (path: Array<string | number>, value: unknown) => onChange(setAt(draft, path, value));

  return (
    <div className="scenario-editor">
      <div className="scenario-form">
        <fieldset>
          <legend>Scenario</legend>
          <div className="field-row">
            <Field label="Name" path="name" issues={byPath}>
              <input
                name="name"
                value={String(draft.name ?? "")}
                onChange={(e) => set(["name"], e.target.value)}
              />
            </Field>
            <Field label="Target" path="target" issues={byPath} hint="http://host:port">
              <input
                name="target"
                value={String(draft.target ?? "")}
                onChange={(e) => set(["target"], e.target.value)}
              />
            </Field>
          </div>
          <div className="field-row">
            <Field
              label="Think time"
              path="thinkTime"
              issues={byPath}
              hint='after each request: "1s" or "100ms..2s"'
            >
              {draft.thinkTime !== null && typeof draft.thinkTime === "object" ? (
                <p className="field-note" data-testid="think-distribution">
                  Distribution: {String((draft.thinkTime as { distribution?: unknown }).distribution)}. Edit
                  it in the scenario text.
                </p>
              ) : (
                <input
                  name="thinkTime"
                  value={String(draft.thinkTime ?? "")}
                  onChange={(e) => set(["thinkTime"], e.target.value)}
                />
              )}
            </Field>
            <Field label="Timeout" path="timeout" issues={byPath} hint="per request, default 10s">
              <input
                name="timeout"
                value={String(draft.timeout ?? "")}
                onChange={(e) => set(["timeout"], e.target.value)}
              />
            </Field>
          </div>
        </fieldset>
        <WorkerFields draft={draft} issues={byPath} onChange={onChange} />
        {isRecord(draft.scenarios) ? (
          <p className="callout" data-testid="scenarios-note">
            {Object.keys(draft.scenarios).length} scenarios at once ({Object.keys(draft.scenarios).join(", ")}
            ), each with its own load. Edit them in the scenario text.
          </p>
        ) : (
          <LoadFields draft={draft} issues={byPath} onChange={onChange} />
        )}
        {Array.isArray(draft.flows) && (
          <p className="callout" data-testid="flows-note">
            {draft.flows.length} flows ({flowNames(draft.flows)}). Edit flows, groups and repeats in the
            scenario text.
          </p>
        )}
        {requests.map((step, index) =>
          isCompoundStep(step) ? (
            // biome-ignore lint/suspicious/noArrayIndexKey: steps are edited by position
            <p key={index} className="callout" data-testid="step-note">
              Step {index + 1}: {stepTitle(step)}. Edit it in the scenario text.
            </p>
          ) : (
            // biome-ignore lint/suspicious/noArrayIndexKey: requests are edited by position
            <RequestFields key={index} draft={draft} index={index} issues={byPath} onChange={onChange} />
          ),
        )}
        {typeof draft.script === "string" && (
          <p className="callout" data-testid="script-note">
            Each iteration runs the script <code>{draft.script}</code>, edited below.{" "}
            <button type="button" className="small" onClick={() => onChange(withRequests(draft))}>
              Use requests instead
            </button>
          </p>
        )}
        {!Array.isArray(draft.flows) && !isRecord(draft.scenarios) && typeof draft.script !== "string" && (
          <div className="actions add-request">
            <button
              type="button"
              onClick={() => set(["requests", requests.length], { method: "GET", path: "/" })}
            >
              Add request
            </button>
            <button type="button" onClick={() => onChange(withScript(draft))} data-testid="use-script">
              Write a script instead
            </button>
          </div>
        )}
        {byPath.get("requests") && <span className="field-error">{byPath.get("requests")}</span>}
        <fieldset>
          <legend>Thresholds</legend>
          <Field
            label="Rules"
            path="thresholds"
            issues={byPath}
            hint="metric: rule, e.g. p95: <200ms, errorRate: <1%, login.p99: <1s"
          >
            {hasObjectValues(getAt(draft, ["thresholds"])) ? (
              <p className="field-note" data-testid="thresholds-note">
                Some thresholds stop the run (abortOnFail). Edit them in the scenario text.
              </p>
            ) : (
              <textarea
                key={recordToLines(getAt(draft, ["thresholds"]))}
                rows={3}
                defaultValue={recordToLines(getAt(draft, ["thresholds"]))}
                onBlur={(e) => set(["thresholds"], linesToRecord(e.target.value))}
              />
            )}
          </Field>
          {[...byPath.entries()]
            .filter(([path]) => path.startsWith("thresholds."))
            .map(([path, message]) => (
              <span key={path} className="field-error">
                {path}: {message}
              </span>
            ))}
        </fieldset>
      </div>
      <div className="scenario-text">
        <div className="tabs" role="tablist">
          {(["yaml", "json"] as const).map((f) => (
            <button
              key={f}
              type="button"
              role="tab"
              aria-selected={format === f}
              className={format === f ? "active" : undefined}
              onClick={() => {
                setFormat(f);
                setSyntaxError(null);
              }}
            >
              {f.toUpperCase()}
            </button>
          ))}
        </div>
        <textarea
          aria-label="Scenario text"
          className="code"
          spellCheck={false}
          value={text}
          onFocus={() => setEditingText(true)}
          onBlur={() => setEditingText(false)}
          onChange={(e) => onText(e.target.value)}
        />
        {syntaxError && (
          <div className="callout bad" role="alert" data-testid="syntax-error">
            Not valid {format.toUpperCase()}
            {syntaxError.line !== undefined && ` at line ${syntaxError.line}, column ${syntaxError.column}`}:{" "}
            {syntaxError.message}
            {syntaxError.snippet && <pre className="syntax-snippet">{syntaxError.snippet}</pre>}
          </div>
        )}
        {/* The field errors belong to the last text that parsed: hidden while this one does not. */}
        {!syntaxError && issues.length > 0 && (
          <ul className="issue-list" data-testid="validation-errors">
            {issues.map((issue) => (
              <li key={`${issue.path}-${issue.message}`}>
                <code>{issue.path}</code> {issue.message}
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}

/** The draft running a script instead of its requests. */
function withScript(draft: Draft): Draft {
  const { requests: _requests, ...rest } = draft;
  return { ...rest, script: "flow.ts" };
}

/** The draft back on requests (one to start from). */
function withRequests(draft: Draft): Draft {
  const { script: _script, ...rest } = draft;
  return { ...rest, requests: [{ name: "home", method: "GET", path: "/" }] };
}

function serialize(draft: Draft, format: Format): string {
  return format === "json" ? JSON.stringify(draft, null, 2) : toYaml(draft);
}

type CompoundStep = { group?: unknown; repeat?: unknown; parallel?: unknown; requests?: unknown };

/** A group, repeat or parallel step: edited in the scenario text, named in the form. */
function isCompoundStep(step: unknown): step is CompoundStep {
  return (
    step !== null && typeof step === "object" && ("group" in step || "repeat" in step || "parallel" in step)
  );
}

function stepTitle(step: CompoundStep): string {
  if ("parallel" in step) {
    const sent = Array.isArray(step.parallel) ? step.parallel.length : 0;
    return `${sent} requests sent in parallel`;
  }
  const inner = Array.isArray(step.requests) ? step.requests.length : 0;
  const what = "group" in step ? `group "${String(step.group)}"` : `repeat ${String(step.repeat)} times`;
  return `${what} of ${inner} step${inner === 1 ? "" : "s"}`;
}

function flowNames(flows: unknown[]): string {
  return flows.map((f) => (f && typeof f === "object" && "name" in f ? String(f.name) : "?")).join(", ");
}

function hasObjectValues(record: unknown): boolean {
  return (
    !!record &&
    typeof record === "object" &&
    Object.values(record).some((v) => v !== null && typeof v === "object")
  );
}
