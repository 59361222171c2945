import type { ReactNode } from "react";

interface FieldProps {
  label: string;
  /** The field's path, as validation issues name it (e.g. "load.vus"). */
  path: string;
  issues: Map<string, string>;
  children: ReactNode;
  hint?: string;
}

/** A labelled form field with its validation message beside it (the control is the child). */
export function Field({ label, path, issues, children, hint }: FieldProps) {
  const error = issues.get(path);
  return (
    // biome-ignore lint/a11y/noLabelWithoutControl: the control is passed as a child
    <label className={`field${error ? " has-error" : ""}`} data-path={path}>
      <span className="field-label">{label}</span>
      {children}
      {error ? (
        <span className="field-error" role="alert">
          {error}
        </span>
      ) : (
        hint && <span className="field-hint">{hint}</span>
      )}
    </label>
  );
}
