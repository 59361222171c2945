import type { RunDetail, WorkerInfo } from "@volley/protocol";
import { useState } from "react";
import { api, errorText } from "../../api/client.js";

/**
 * Shown on a running run when ready workers are not in it (they connected after the start):
 * `POST /api/runs/:id/rebalance` gives them a share, from a moment a second ahead.
 */
export function RebalanceButton({ run, workers }: { run: RunDetail; workers: WorkerInfo[] }) {
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const inRun = new Set(run.workers.map((w) => w.workerId));
  const outside = workers.filter((w) => w.state === "ready" && !inRun.has(w.id));
  if (!outside.length && !error) return null;
  const rebalance = async () => {
    setSending(true);
    setError(null);
    try {
      await api(`/api/runs/${run.id}/rebalance`, { method: "POST" });
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setSending(false);
    }
  };
  return (
    <div className="callout" data-testid="rebalance">
      {outside.length > 0 && (
        <>
          {outside.length === 1 ? `${outside[0].name} is ready` : `${outside.length} workers are ready`} and
          not in this run.{" "}
          <button type="button" onClick={rebalance} disabled={sending} data-testid="rebalance-button">
            {sending ? "Rebalancing…" : outside.length === 1 ? "Give it a share" : "Give them a share"}
          </button>
        </>
      )}
      {error && (
        <p className="field-error" role="alert" data-testid="rebalance-error">
          {error}
        </p>
      )}
    </div>
  );
}
