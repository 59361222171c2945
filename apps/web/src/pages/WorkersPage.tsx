import type { WorkerInfo } from "@volley/protocol";
import { useEffect, useState } from "react";
import { api } from "../api/client.js";
import { useApi } from "../api/use-api.js";
import { WorkerList } from "../components/WorkerList/WorkerList.js";
import { labelText, workerLabelOptions } from "../components/WorkerList/worker-labels.js";
import { useLive } from "../live/live-context.js";

interface MasterConfig {
  workerCommand: string;
  workerUrl: string;
  workersLocalOnly: boolean;
  maxLocalWorkers: number;
}

type Message = { tone: "good" | "bad"; text: string; starting?: string[]; fades?: boolean };

/** /workers — every worker node, local workers on demand, and the command to add a machine. */
export function WorkersPage() {
  const feed = useLive();
  const config = useApi<MasterConfig>("/api/config");
  const [count, setCount] = useState(1);
  const [threads, setThreads] = useState(1);
  const [message, setMessage] = useState<Message | null>(null);
  const [copied, setCopied] = useState(false);
  const [label, setLabel] = useState("");
  const labelOptions = workerLabelOptions(feed.workers);
  const shown = label ? feed.workers.filter((w) => labelText(w.labels ?? {}).includes(label)) : feed.workers;
  const addLocal = async () => {
    setMessage(null);
    try {
      const result = await api<{ started: string[] }>("/api/workers/local", {
        method: "POST",
        body: { count, threads },
      });
      setMessage({ tone: "good", text: `Starting ${result.started.join(", ")}…`, starting: result.started });
    } catch (error) {
      setMessage({ tone: "bad", text: (error as Error).message });
    }
  };
  const retire = async (worker: WorkerInfo) => {
    setMessage(null);
    try {
      await api(`/api/workers/${worker.id}`, { method: "DELETE" });
      setMessage({ tone: "good", text: `Retired ${worker.name}` });
    } catch (error) {
      setMessage({ tone: "bad", text: (error as Error).message });
    }
  };
  // "Starting …" lasts until those workers are ready, then says so and goes away.
  const starting = message?.starting;
  const readyNames = feed.workers.filter((w) => w.state === "ready").map((w) => w.name);
  const allReady = !!starting?.every((name) => readyNames.includes(name));
  useEffect(() => {
    if (!starting || !allReady) return;
    const verb = starting.length === 1 ? "is" : "are";
    setMessage({ tone: "good", text: `${starting.join(", ")} ${verb} ready`, fades: true });
  }, [starting, allReady]);
  useEffect(() => {
    if (!message?.fades) return;
    const timer = setTimeout(() => setMessage(null), 4000);
    return () => clearTimeout(timer);
  }, [message]);
  const copy = async () => {
    if (!config.data) return;
    await navigator.clipboard?.writeText(config.data.workerCommand).catch(() => {});
    setCopied(true);
    setTimeout(() => setCopied(false), 1500);
  };
  return (
    <div>
      <div className="page-head">
        <h1>Workers</h1>
      </div>
      {message && (
        <div className={`callout ${message.tone}`} role="status" data-testid="workers-message">
          {message.text}
        </div>
      )}
      {labelOptions.length > 0 && (
        <div className="filters">
          <label>
            Label
            <select
              aria-label="Show workers with the label"
              value={label}
              onChange={(e) => setLabel(e.target.value)}
            >
              <option value="">all workers</option>
              {labelOptions.map((option) => (
                <option key={option}>{option}</option>
              ))}
            </select>
          </label>
          {label && (
            <span className="muted" data-testid="label-filter-count">
              {shown.length} of {feed.workers.length} workers
            </span>
          )}
        </div>
      )}
      <WorkerList workers={shown} onRetire={retire} />
      <div className="two-columns">
        <section className="panel">
          <h2>Add a worker machine</h2>
          {config.data?.workersLocalOnly ? (
            <p className="muted" data-testid="worker-reach">
              This master listens on loopback ({config.data.workerUrl}): it only takes workers on this
              machine. To add other machines, restart it with <code>--host 0.0.0.0</code> and a{" "}
              <code>--token</code>. Here, run:
            </p>
          ) : (
            <p className="muted" data-testid="worker-reach">
              On any machine that can reach {config.data?.workerUrl ?? "this master"} and its Redis, run:
            </p>
          )}
          <div className="command">
            <code data-testid="worker-command">{config.data?.workerCommand ?? "…"}</code>
            <button type="button" className="small" onClick={copy}>
              {copied ? "Copied" : "Copy"}
            </button>
          </div>
        </section>
        <section className="panel">
          <h2>Add local workers</h2>
          <p className="muted">
            Worker processes on the master's machine (at most {config.data?.maxLocalWorkers ?? "…"}).
          </p>
          <div className="inline-form">
            <label>
              Count
              <input type="number" min={1} value={count} onChange={(e) => setCount(Number(e.target.value))} />
            </label>
            <label>
              Threads each
              <input
                type="number"
                min={1}
                value={threads}
                onChange={(e) => setThreads(Number(e.target.value))}
              />
            </label>
            <button type="button" className="primary" onClick={addLocal} data-testid="add-local-workers">
              Add local workers
            </button>
          </div>
        </section>
      </div>
    </div>
  );
}
