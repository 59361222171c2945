import { type RunDetail, traceLink, traceLinkTemplate } from "@volley/protocol";

/** The run's `http.tracing.linkTemplate`, when it has one. */
export function traceTemplateOf(run: RunDetail): string | undefined {
  return traceLinkTemplate(run.scenario);
}

/** A trace id: a link into the traced system through the scenario's template, or the id to copy. */
export function TraceLink({ traceId, template }: { traceId: string; template?: string }) {
  const href = traceLink(template, traceId);
  const text = <code className="trace-id">{traceId}</code>;
  if (href === null) return text;
  return (
    <a href={href} target="_blank" rel="noreferrer noopener" data-trace={traceId}>
      {text}
    </a>
  );
}
