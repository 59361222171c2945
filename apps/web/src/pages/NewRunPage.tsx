import type { KeptRunFile, RunDetail, RunPage as RunPageData } from "@volley/protocol";
import { useEffect, useMemo, useState } from "react";
import { Link, useNavigate, useSearchParams } from "react-router-dom";
import { ApiError, api } from "../api/client.js";
import { useApi } from "../api/use-api.js";
import { type ImportResult, ImportScenario } from "../components/ImportScenario/ImportScenario.js";
import { LoadPreview } from "../components/LoadPreview/LoadPreview.js";
import {
  isChosen,
  type KeptFiles,
  keptFile,
  type NeededFile,
  neededFiles,
  type RunFileContents,
  RunFiles,
} from "../components/RunFiles/RunFiles.js";
import { DEFAULT_DRAFT, type Draft } from "../components/ScenarioEditor/draft.js";
import { validateDraft } from "../components/ScenarioEditor/issues.js";
import { ScenarioEditor } from "../components/ScenarioEditor/ScenarioEditor.js";
import { SCRIPT_TEMPLATE, ScriptEditor } from "../components/ScriptEditor/ScriptEditor.js";
import { formatDate } from "../format/format.js";
import { useLive } from "../live/live-context.js";
import { isInProgress } from "../live/use-live-feed.js";

/** /new — write or reuse a scenario, see its errors as you type, start it. */
export function NewRunPage() {
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const feed = useLive();
  const [draft, setDraft] = useState<Draft>(DEFAULT_DRAFT);
  const [serverError, setServerError] = useState<ApiError | null>(null);
  const [starting, setStarting] = useState(false);
  const [contents, setContents] = useState<RunFileContents>({ files: {}, attachments: {} });
  // The script a scripted scenario runs, by the path `script:` names (one file from the dashboard).
  const [scripts, setScripts] = useState<Record<string, string>>({});
  const scriptName = typeof draft.script === "string" && draft.script ? draft.script : null;
  const scriptSource = scriptName ? (scripts[scriptName] ?? SCRIPT_TEMPLATE) : null;
  const recent = useApi<RunPageData>("/api/runs?limit=20");
  const validation = useMemo(() => validateDraft(draft), [draft]);
  const ready = feed.workers.filter((w) => w.state === "ready").length;
  const connected = feed.workers.filter((w) => w.state !== "lost").length;
  const inProgress = isInProgress(feed.current) ? feed.current : null;
  // Behind a run in progress (or runs already waiting), a new run queues and starts in its turn.
  const queueing = inProgress !== null || feed.queued.length > 0;

  const [kept, setKept] = useState<KeptFiles | null>(null);
  const [importing, setImporting] = useState(false);
  const [imported, setImported] = useState<Omit<ImportResult, "scenario"> | null>(null);

  const load = async (id: string) => {
    const [run, stored, kept] = await Promise.all([
      api<RunDetail>(`/api/runs/${id}`),
      api<{ files: KeptRunFile[] }>(`/api/runs/${id}/files`),
      api<{ files: Record<string, string> }>(`/api/runs/${id}/scripts`),
    ]);
    setDraft(run.scenario as Draft);
    setScripts(kept.files);
    setKept({ runId: id, files: stored.files });
  };
  const from = params.get("from");
  // biome-ignore lint/correctness/useExhaustiveDependencies: load once per ?from=
  useEffect(() => {
    if (from) void load(from);
  }, [from]);

  const start = async () => {
    setStarting(true);
    setServerError(null);
    try {
      // Only the files the scenario names now travel with it.
      const needed = neededFiles(validation.scenario);
      const pick = (kinds: Array<NeededFile["kind"]>, from: Record<string, string>) =>
        Object.fromEntries(
          needed.filter((f) => kinds.includes(f.kind) && f.name in from).map((f) => [f.name, from[f.name]]),
        );
      // Files not chosen here come from the run being run again, when it kept them.
      const reuse = needed.some((f) => !isChosen(f, contents) && keptFile(f, kept));
      const created = await api<{ id: string }>("/api/runs", {
        method: "POST",
        body: {
          scenario: draft,
          files: pick(["feeder"], contents.files),
          attachments: pick(["attachment", "certificate"], contents.attachments),
          ...(reuse && kept ? { filesFrom: kept.runId } : {}),
          ...(scriptName && scriptSource !== null ? { scripts: { [scriptName]: scriptSource } } : {}),
          ...(queueing ? { queue: true } : {}),
        },
      });
      navigate(`/runs/${created.id}`);
    } catch (error) {
      setServerError(error instanceof ApiError ? error : new ApiError(0, (error as Error).message));
      setStarting(false);
    }
  };
  const recentScenarios = (recent.data?.runs ?? []).filter(
    (run, index, all) => all.findIndex((other) => other.name === run.name) === index,
  );
  return (
    <div>
      <div className="page-head">
        <h1>New run</h1>
        <div className="actions">
          <select
            aria-label="Reuse a recent scenario"
            value=""
            onChange={(e) => e.target.value && void load(e.target.value)}
            data-testid="recent-scenarios"
          >
            <option value="">Reuse a recent scenario…</option>
            {recentScenarios.map((run) => (
              <option key={run.id} value={run.id}>
                {`${run.name} (${formatDate(run.createdAt)})`}
              </option>
            ))}
          </select>
          <button type="button" onClick={() => setImporting(true)} data-testid="import-open">
            Import…
          </button>
          <button
            type="button"
            className="primary"
            onClick={start}
            disabled={starting || validation.issues.length > 0}
            data-testid="start-run"
            title={
              validation.issues.length
                ? "Fix the errors first"
                : queueing
                  ? "Starts when the runs before it end"
                  : ready === 0
                    ? "No worker is ready"
                    : undefined
            }
          >
            {starting ? (queueing ? "Queueing…" : "Starting…") : queueing ? "Queue" : "Start"}
          </button>
        </div>
      </div>
      {queueing ? (
        <div className="callout" data-testid="run-in-progress">
          {inProgress ? (
            <>
              A run is in progress: <Link to={`/runs/${inProgress.id}`}>{inProgress.name}</Link>
              {inProgress.status === "stopping" ? " (stopping)" : ""}.{" "}
            </>
          ) : null}
          {feed.queued.length > 0 && (
            <>
              <Link to="/runs?status=queued">
                {feed.queued.length} run{feed.queued.length === 1 ? " is" : "s are"} queued
              </Link>
              .{" "}
            </>
          )}
          This one will be queued and start on the ready workers when the runs before it end; a queued run can
          be cancelled from its page.
        </div>
      ) : (
        connected === 0 && (
          <div className="callout warn">
            No worker is connected: add one on the <Link to="/workers">Workers page</Link>.
          </div>
        )
      )}
      {importing && (
        <ImportScenario
          onCancel={() => setImporting(false)}
          onImported={({ scenario, ...about }) => {
            setDraft(scenario as Draft);
            setImported(about);
            setImporting(false);
          }}
        />
      )}
      {imported && (
        <div className="callout good" data-testid="import-notes">
          Imported from <strong>{imported.from}</strong>: one VU, one iteration, to check the requests before
          a real load.
          {imported.notes.length > 0 && (
            <ul>
              {imported.notes.map((note) => (
                <li key={note}>{note}</li>
              ))}
            </ul>
          )}
        </div>
      )}
      {serverError && (
        <div className="callout bad" role="alert" data-testid="server-error">
          {serverError.message}
          {serverError.details.length > 0 && (
            <ul>
              {serverError.details.map((d) => (
                <li key={`${d.path}-${d.message}`}>
                  <code>{d.path}</code> {d.message}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      <RunFiles
        needed={neededFiles(validation.scenario)}
        contents={contents}
        kept={kept}
        onChange={setContents}
      />
      {validation.scenario && <LoadPreview scenario={validation.scenario} />}
      <ScenarioEditor
        draft={draft}
        issues={validation.issues}
        byPath={validation.byPath}
        onChange={setDraft}
      />
      {scriptName && scriptSource !== null && (
        <ScriptEditor
          name={scriptName}
          source={scriptSource}
          onChange={(source) => setScripts((current) => ({ ...current, [scriptName]: source }))}
          problem={serverError?.details.find((d) => d.path.endsWith("script"))?.message}
        />
      )}
    </div>
  );
}
