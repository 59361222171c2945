import { useState } from "react";

/** What an import made: the scenario for the editor, and where it came from with what it left out. */
export interface ImportResult {
  scenario: Record<string, unknown>;
  from: string;
  notes: string[];
}

const KINDS = {
  har: { label: "HAR recording", placeholder: 'Paste a HAR ({"log": {"entries": [...]}}) or choose a file' },
  openapi: {
    label: "OpenAPI 3.0 / 3.1",
    placeholder: "Paste an OpenAPI description (YAML or JSON) or choose a file",
  },
  postman: {
    label: "Postman collection v2.1",
    placeholder: "Paste a Postman collection (JSON) or choose a file",
  },
  curl: {
    label: "curl command",
    placeholder: "curl -X POST https://api.example.com/orders -H 'content-type: application/json' -d '{...}'",
  },
} as const;
type Kind = keyof typeof KINDS;

/**
 * The New run page's Import: a HAR, an OpenAPI description, a Postman collection or a curl
 * command (pasted or from a file) made into a scenario by the same code as `volley import`,
 * loaded only when used.
 */
export function ImportScenario({
  onImported,
  onCancel,
}: {
  onImported: (result: ImportResult) => void;
  onCancel: () => void;
}) {
  const [kind, setKind] = useState<Kind>("har");
  const [text, setText] = useState("");
  const [fileName, setFileName] = useState<string | null>(null);
  const [keepAssets, setKeepAssets] = useState(false);
  const [keepOrigins, setKeepOrigins] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      const migrate = await import("@volley/migrate/importers");
      const name = fileName ?? (kind === "curl" ? "curl" : "pasted text");
      const source = { text, name };
      const imported =
        kind === "har"
          ? migrate.importHar(source, { keepAssets, keepOrigins })
          : kind === "openapi"
            ? migrate.importOpenapi(source)
            : kind === "postman"
              ? migrate.importPostman(source)
              : migrate.importCurl(source);
      // The same check `volley import` makes before it writes anything.
      migrate.toYaml(imported, name);
      onImported({ scenario: imported.scenario, from: name, notes: imported.notes });
    } catch (caught) {
      setError((caught as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="panel import-panel" aria-label="Import a scenario" data-testid="import-panel">
      <h2>Import a scenario</h2>
      <div className="import-row">
        <label>
          From{" "}
          <select value={kind} onChange={(e) => setKind(e.target.value as Kind)} data-testid="import-kind">
            {Object.entries(KINDS).map(([value, { label }]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        {kind !== "curl" && (
          <label className="file-pick">
            <input
              type="file"
              data-testid="import-file"
              accept={kind === "openapi" ? ".yaml,.yml,.json" : ".json,.har"}
              onChange={async (e) => {
                const file = e.target.files?.[0];
                if (!file) return;
                setFileName(file.name);
                setText(await file.text());
              }}
            />
          </label>
        )}
        {kind === "har" && (
          <>
            <label>
              <input type="checkbox" checked={keepAssets} onChange={(e) => setKeepAssets(e.target.checked)} />{" "}
              keep assets
            </label>
            <label>
              <input
                type="checkbox"
                checked={keepOrigins}
                onChange={(e) => setKeepOrigins(e.target.checked)}
              />{" "}
              keep other origins
            </label>
          </>
        )}
      </div>
      <textarea
        aria-label="Source to import"
        className="import-text"
        data-testid="import-text"
        rows={kind === "curl" ? 4 : 10}
        spellCheck={false}
        placeholder={KINDS[kind].placeholder}
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          setFileName(null);
        }}
      />
      {error && (
        <div className="callout bad" role="alert" data-testid="import-error">
          {error}
        </div>
      )}
      <div className="actions">
        <button
          type="button"
          className="primary"
          onClick={run}
          disabled={busy || text.trim() === ""}
          data-testid="import-run"
        >
          {busy ? "Importing…" : "Import into the editor"}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </section>
  );
}
