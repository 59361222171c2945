import type { SaturationWarning, WorkerInfo } from "@volley/protocol";

interface SaturationWarningsProps {
  warnings: SaturationWarning[];
  /** Workers of the active run that look saturated right now. */
  liveSaturated?: WorkerInfo[];
}

/**
 * Says when the figures cannot be taken at face value: the load generator itself may have
 * limited them, or a worker was lost or refused the run, or batches were lost.
 */
export function SaturationWarnings({ warnings, liveSaturated = [] }: SaturationWarningsProps) {
  if (!warnings.length && !liveSaturated.length) return null;
  return (
    <div className="callout warn" role="alert" data-testid="saturation-warning">
      <strong>
        {warnings.some((w) => w.kind && w.kind !== "saturated")
          ? "These figures are incomplete or may be limited by the load generator."
          : "Results may be limited by the load generator."}
      </strong>
      <ul>
        {liveSaturated.map((w) => (
          <li key={`live-${w.id}`}>
            {w.name} is saturated now: CPU {Math.round(w.cpu)} %, event-loop delay{" "}
            {w.eventLoopDelayMs.toFixed(0)} ms.
          </li>
        ))}
        {warnings.map((w) => (
          <li key={`${w.workerId}-${w.fromS}`}>{w.message}</li>
        ))}
      </ul>
    </div>
  );
}
