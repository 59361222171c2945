// A streamed response's timings travel as statistics of their own (HDR histograms merged exactly
// like latencies), under names no request can hold (U+0002, as iterations') and methods that are
// not requests: one record per stream for its first byte and first event, one per gap between
// two events.

/** The timings of a stream, as the report and thresholds name them. */
export const STREAM_TIMINGS = ["firstByteMs", "firstEventMs", "gapMs"] as const;
export type StreamTiming = (typeof STREAM_TIMINGS)[number];

/** The method each timing's statistics travel under (a method is at most 16 characters). */
export const STREAM_METHODS: Readonly<Record<StreamTiming, string>> = {
  firstByteMs: "STREAM_BYTE",
  firstEventMs: "STREAM_EVENT",
  gapMs: "STREAM_GAP",
};

const PREFIX = "\u0002stream:";

/** The name a request's stream timing is recorded under. */
export function streamStatsName(request: string, timing: StreamTiming): string {
  return `${PREFIX}${timing}:${request}`;
}

/** The request and timing a stream statistic's name is of, or null for any other name. */
export function streamOf(name: string): { request: string; timing: StreamTiming } | null {
  if (!name.startsWith(PREFIX)) return null;
  const rest = name.slice(PREFIX.length);
  const colon = rest.indexOf(":");
  const timing = rest.slice(0, colon) as StreamTiming;
  if (colon < 0 || !STREAM_TIMINGS.includes(timing)) return null;
  return { request: rest.slice(colon + 1), timing };
}
