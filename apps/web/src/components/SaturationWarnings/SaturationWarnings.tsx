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
      <strong>{heading(warnings, liveSaturated.length > 0)}</strong>
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

/** What the list says as a whole: figures incomplete (a worker or batches missing), limited, or both. */
function heading(warnings: SaturationWarning[], saturatedNow: boolean): string {
  const incomplete = warnings.some((w) => w.kind !== undefined && w.kind !== "saturated");
  const limited = saturatedNow || warnings.some((w) => w.kind === undefined || w.kind === "saturated");
  if (incomplete && limited) return "These figures are incomplete and may be limited by the load generator.";
  return incomplete ? "These figures are incomplete." : "Results may be limited by the load generator.";
}
