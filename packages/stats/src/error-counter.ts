import { type ErrorCount, type ErrorKind, MAX_ERROR_TRACES, mergeTraceIds } from "@volley/protocol";

/** Most distinct messages kept per error kind; later ones count under the kind's first message. */
export const MAX_MESSAGES_PER_KIND = 10;
const MAX_MESSAGE_LENGTH = 300;

/** Counts errors by kind and message, with bounded cardinality (messages often carry ids or ports). */
export class ErrorCounter {
  private readonly entries = new Map<string, ErrorCount>();
  private readonly messagesPerKind = new Map<ErrorKind, number>();

  /** `traceIds`: trace ids of these failures (`http.tracing`); the first few are kept. */
  add(kind: ErrorKind, message: string, count = 1, traceIds?: readonly string[]): void {
    const text =
      message.length > MAX_MESSAGE_LENGTH ? `${message.slice(0, MAX_MESSAGE_LENGTH - 1)}…` : message;
    const key = `${kind}\u0000${text}`;
    const entry = this.entries.get(key);
    if (entry) {
      entry.count += count;
      if (traceIds) addTraces(entry, traceIds);
      return;
    }
    const kinds = this.messagesPerKind.get(kind) ?? 0;
    if (kinds >= MAX_MESSAGES_PER_KIND) {
      for (const existing of this.entries.values()) {
        if (existing.kind === kind) {
          existing.count += count;
          if (traceIds) addTraces(existing, traceIds);
          return;
        }
      }
    }
    const added: ErrorCount = { kind, message: text, count };
    if (traceIds) addTraces(added, traceIds);
    this.entries.set(key, added);
    this.messagesPerKind.set(kind, kinds + 1);
  }

  addAll(errors: readonly ErrorCount[]): void {
    for (const e of errors) this.add(e.kind, e.message, e.count, e.traceIds);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Entries, most frequent first. */
  list(): ErrorCount[] {
    return [...this.entries.values()]
      .map((e) => (e.traceIds ? { ...e, traceIds: [...e.traceIds] } : { ...e }))
      .sort((a, b) => b.count - a.count);
  }

  clear(): void {
    this.entries.clear();
    this.messagesPerKind.clear();
  }
}

function addTraces(entry: ErrorCount, traceIds: readonly string[]): void {
  if (traceIds.length === 0 || (entry.traceIds?.length ?? 0) >= MAX_ERROR_TRACES) return;
  entry.traceIds = mergeTraceIds(entry.traceIds ?? [], traceIds);
}
