import type { Trust, WorkerInfo } from "@volley/protocol";

interface TrustNoticeProps {
  trust: Trust;
  /** Workers of the active run that look saturated right now. */
  liveSaturated?: WorkerInfo[];
}

const HEADINGS: Record<Trust["verdict"], string> = {
  trusted: "Figures: trusted so far.",
  degraded: "Figures: degraded. Read them with these in mind.",
  untrusted: "Figures: untrusted. They do not describe the target's capacity.",
};

/**
 * The run's trust verdict with every reason: a saturated load generator, a worker lost or
 * refusing, lost batches, dropped or skipped iterations, requests a script did not await, a run
 * too short for its tail percentiles. Nothing
 * shows for a trusted run.
 */
export function TrustNotice({ trust, liveSaturated = [] }: TrustNoticeProps) {
  if (trust.verdict === "trusted" && !liveSaturated.length) return null;
  const tone = trust.verdict === "untrusted" ? "bad" : "warn";
  return (
    <div
      className={`callout ${tone}`}
      role="alert"
      data-testid="saturation-warning"
      data-verdict={trust.verdict}
    >
      <strong>{HEADINGS[trust.verdict]}</strong>
      <ul>
        {liveSaturated.map((w) => (
          <li key={`live-${w.id}`}>
            {w.name} is saturated now: CPU {Math.round(w.cpu)} %, event-loop delay{" "}
            {w.eventLoopDelayMs.toFixed(0)} ms.
          </li>
        ))}
        {trust.reasons.map((r, i) => (
          // Reasons of one kind may repeat (requests not awaited at two places): the index keeps keys apart.
          // biome-ignore lint/suspicious/noArrayIndexKey: the list is rebuilt whole from each report
          <li key={`${r.kind}-${r.worker ?? ""}-${r.from ?? ""}-${i}`}>{r.message}</li>
        ))}
      </ul>
    </div>
  );
}
