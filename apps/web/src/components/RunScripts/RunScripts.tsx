import { useApi } from "../../api/use-api.js";

/** The sources a scripted run ran (as sent, before bundling), one block per file. */
export function RunScripts({ runId }: { runId: string }) {
  const scripts = useApi<{ files: Record<string, string> }>(`/api/runs/${runId}/scripts`);
  const files = Object.entries(scripts.data?.files ?? {}).filter(([name]) => !name.includes("node_modules/"));
  if (files.length === 0) return null;
  return (
    <section className="run-scripts" data-testid="run-scripts">
      <h2>Script</h2>
      {files.map(([name, source]) => (
        <details key={name} open={files.length === 1}>
          <summary>
            <code>{name}</code>
          </summary>
          <pre>{source}</pre>
        </details>
      ))}
    </section>
  );
}
