import type { WorkerInfo } from "@volley/protocol";
import { useState } from "react";
import { api } from "../api/client.js";
import { useApi } from "../api/use-api.js";
import { WorkerList } from "../components/WorkerList/WorkerList.js";
import { useLive } from "../live/live-context.js";

interface MasterConfig {
  workerCommand: string;
  workerUrl: string;
  maxLocalWorkers: number;
}

/** /workers — every worker node, local workers on demand, and the command to add a machine. */
export function WorkersPage() {
  const feed = useLive();
  const config = useApi<MasterConfig>("/api/config");
  const [count, setCount] = useState(1);
  const [threads, setThreads] = useState(1);
  const [message, setMessage] = useState<{ tone: "good" | "bad"; text: string } | null>(null);
  const [copied, setCopied] = useState(false);
  const addLocal = async () => {
    setMessage(null);
    try {
      const result = await api<{ started: string[] }>("/api/workers/local", {
        method: "POST",
        body: { count, threads },
      });
      setMessage({ tone: "good", text: `Starting ${result.started.join(", ")}` });
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
      <WorkerList workers={feed.workers} onRetire={retire} />
      <div className="two-columns">
        <section className="panel">
          <h2>Add a worker machine</h2>
          <p className="muted">On any machine that can reach this master and its Redis, run:</p>
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
