import { StringDecoder } from "node:string_decoder";
import type { RequestRecorder } from "@volley/stats";

/** Longest unfinished event kept between chunks; past it the partial text is dropped. */
const MAX_PARTIAL = 1_048_576;

export interface StreamSpec {
  kind: "sse" | "lines";
  until: string | null;
}

/** One event as a script reads it: an SSE event's data (its `data:` lines joined), name and id; a line's text. */
export interface StreamEvent {
  data: string;
  event?: string;
  id?: string;
}

/** An SSE block's fields (RFC: one optional space after the colon is not part of the value). */
function parseSse(block: string): StreamEvent {
  const data: string[] = [];
  const event: StreamEvent = { data: "" };
  for (const line of block.split("\n")) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const field = line.slice(0, colon);
    const value = line.slice(colon + 1).replace(/^ /, "");
    if (field === "data") data.push(value);
    else if (field === "event") event.event = value;
    else if (field === "id") event.id = value;
  }
  event.data = data.join("\n");
  return event;
}

/** Where a stream's timings go: one record per stream for its first event, one per gap. */
export interface StreamRecorders {
  firstEvent: RequestRecorder;
  gap: RequestRecorder;
}

/**
 * Reads a streamed response's body as it arrives and times its events: Server-Sent Events (a
 * block ending in a blank line with at least one `data:` line; comments and keep-alives are not
 * events) or lines (each non-empty line). The event holding `until` ends the stream and is not
 * counted (OpenAI's `data: [DONE]`). Each timing is recorded the moment it is known; events that
 * arrive in one read share its moment.
 */
export class StreamReader {
  events = 0;
  /** The `until` event arrived: the rest of the body is not read. */
  done = false;
  private readonly decoder = new StringDecoder("utf8");
  private partial = "";
  private startedAt = 0;
  private lastEventAt = 0;

  constructor(
    private readonly spec: StreamSpec,
    private readonly recorders: StreamRecorders,
    /** Hears each event (a script reading the stream); the declarative engine only times them. */
    private readonly onEvent: ((event: StreamEvent) => void) | null = null,
  ) {}

  /** A new stream whose timings count from `startedAt` (performance.now ms). */
  begin(startedAt: number): void {
    this.events = 0;
    this.done = false;
    this.partial = "";
    this.startedAt = startedAt;
  }

  read(chunk: Buffer, now: number): void {
    if (this.done) return;
    let text = this.partial + this.decoder.write(chunk);
    if (this.spec.kind === "sse") text = text.replace(/\r\n?/g, "\n");
    const separator = this.spec.kind === "sse" ? "\n\n" : "\n";
    let start = 0;
    for (let end = text.indexOf(separator); end >= 0; end = text.indexOf(separator, start)) {
      const block = text.slice(start, end);
      start = end + separator.length;
      if (!this.isEvent(block)) continue;
      if (this.spec.until !== null && block.includes(this.spec.until)) {
        this.done = true;
        this.partial = "";
        return;
      }
      this.event(now);
      if (this.onEvent !== null)
        this.onEvent(this.spec.kind === "sse" ? parseSse(block) : { data: block.replace(/\r$/, "") });
    }
    this.partial = text.length - start > MAX_PARTIAL ? "" : text.slice(start);
  }

  private isEvent(block: string): boolean {
    if (this.spec.kind === "lines") return block.trim().length > 0;
    return /(^|\n)data:/.test(block);
  }

  private event(now: number): void {
    if (this.events++ === 0) this.recorders.firstEvent.record((now - this.startedAt) * 1000, 0, 0, 0);
    else this.recorders.gap.record((now - this.lastEventAt) * 1000, 0, 0, 0);
    this.lastEventAt = now;
  }
}
