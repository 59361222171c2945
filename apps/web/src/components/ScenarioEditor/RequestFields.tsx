import { HTTP_METHODS } from "@volley/protocol";
import { type Draft, getAt, linesToRecord, recordToLines, setAt } from "./draft.js";
import { Field } from "./Field.js";

interface RequestFieldsProps {
  draft: Draft;
  index: number;
  issues: Map<string, string>;
  onChange: (draft: Draft) => void;
}

/** One request of the scenario: method, path, headers, body, captures, expectations. */
export function RequestFields({ draft, index, issues, onChange }: RequestFieldsProps) {
  const base = ["requests", index];
  const request = (getAt(draft, base) ?? {}) as Record<string, unknown>;
  const prefix = `requests[${index}]`;
  const set = (key: string | Array<string>, value: unknown) =>
    onChange(setAt(draft, [...base, ...(Array.isArray(key) ? key : [key])], value));
  const expect = (request.expect ?? {}) as Record<string, unknown>;
  const bodyText =
    request.body === undefined
      ? ""
      : typeof request.body === "string"
        ? request.body
        : JSON.stringify(request.body, null, 2);
  return (
    <fieldset className="request" data-request={index}>
      <legend>
        Request {index + 1}
        <button type="button" className="small" onClick={() => onChange(setAt(draft, base, undefined))}>
          Remove
        </button>
      </legend>
      <div className="field-row">
        <Field label="Name" path={`${prefix}.name`} issues={issues}>
          <input
            name={`${prefix}.name`}
            value={String(request.name ?? "")}
            onChange={(e) => set("name", e.target.value)}
          />
        </Field>
        <Field label="Method" path={`${prefix}.method`} issues={issues}>
          <select value={String(request.method ?? "GET")} onChange={(e) => set("method", e.target.value)}>
            {HTTP_METHODS.map((m) => (
              <option key={m}>{m}</option>
            ))}
          </select>
        </Field>
        {request.url !== undefined ? (
          <Field label="URL" path={`${prefix}.url`} issues={issues} hint="another host: http(s)://host/path">
            <input
              name={`${prefix}.url`}
              value={String(request.url ?? "")}
              onChange={(e) => set("url", e.target.value)}
            />
          </Field>
        ) : (
          <Field
            label="Path"
            path={`${prefix}.path`}
            issues={issues}
            hint="templates: {{vu}} {{iter}} {{uuid}} …"
          >
            <input
              name={`${prefix}.path`}
              value={String(request.path ?? "")}
              onChange={(e) => set("path", e.target.value)}
            />
          </Field>
        )}
        <Field label="Timeout" path={`${prefix}.timeout`} issues={issues} hint="default: the scenario's">
          <input value={String(request.timeout ?? "")} onChange={(e) => set("timeout", e.target.value)} />
        </Field>
      </div>
      <div className="field-row">
        <Field label="Headers" path={`${prefix}.headers`} issues={issues} hint="one per line: name: value">
          <textarea
            key={recordToLines(request.headers)}
            rows={2}
            defaultValue={recordToLines(request.headers)}
            onBlur={(e) => set("headers", linesToRecord(e.target.value))}
          />
        </Field>
        <Field label="Body" path={`${prefix}.body`} issues={issues} hint="JSON is sent as JSON">
          <textarea
            key={bodyText}
            rows={2}
            defaultValue={bodyText}
            onBlur={(e) => set("body", parseBody(e.target.value))}
          />
        </Field>
        <Field
          label="Captures"
          path={`${prefix}.capture`}
          issues={issues}
          hint="var: json.path | header.name | regex:…"
        >
          <textarea
            key={recordToLines(request.capture)}
            rows={2}
            defaultValue={recordToLines(request.capture)}
            onBlur={(e) => set("capture", linesToRecord(e.target.value))}
          />
        </Field>
      </div>
      <div className="field-row">
        <Field
          label="Expected status"
          path={`${prefix}.expect.status`}
          issues={issues}
          hint='200, "200, 201" or 2xx'
        >
          <input
            key={formatStatus(expect.status)}
            defaultValue={formatStatus(expect.status)}
            onBlur={(e) => set(["expect", "status"], parseStatus(e.target.value))}
          />
        </Field>
        <Field label="Body must contain" path={`${prefix}.expect.body`} issues={issues}>
          <input
            value={String(expect.body ?? "")}
            onChange={(e) => set(["expect", "body"], e.target.value)}
          />
        </Field>
      </div>
    </fieldset>
  );
}

function parseBody(text: string): unknown {
  if (!text.trim()) return undefined;
  try {
    const value = JSON.parse(text);
    return typeof value === "object" && value !== null ? value : text;
  } catch {
    return text;
  }
}

function formatStatus(status: unknown): string {
  if (status === undefined) return "";
  return Array.isArray(status) ? status.join(", ") : String(status);
}

function parseStatus(text: string): unknown {
  const parts = text
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  if (parts.length === 0) return undefined;
  return parts.length === 1 ? parts[0] : parts;
}
