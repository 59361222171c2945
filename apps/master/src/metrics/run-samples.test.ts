import { streamStatsName } from "@volley/protocol";
import { RequestRecorder, StatsAggregate } from "@volley/stats";
import { describe, expect, it } from "vitest";
import { messageCounts, streamTimingQuantiles } from "./run-samples.js";

function statsOf(...recorders: RequestRecorder[]): StatsAggregate {
  const stats = new StatsAggregate();
  stats.add(recorders.map((r) => r.flush()));
  return stats;
}

describe("run metric samples of WebSockets and streams", () => {
  it("count each handshake's messages by direction, and give each stream timing's quantiles in seconds", () => {
    const chat = new RequestRecorder("chat", "WS");
    chat.record(2000, 101, 0, 0);
    for (let i = 0; i < 3; i++) chat.recordMessage(true, 5);
    for (let i = 0; i < 2; i++) chat.recordMessage(false, 7);
    const firstEvent = new RequestRecorder(streamStatsName("feed", "firstEventMs"), "STREAM_EVENT");
    for (let i = 0; i < 100; i++) firstEvent.record(100_000, 0, 0, 0); // 100 ms each
    const stats = statsOf(chat, firstEvent);
    const source = { runId: "r", cumulative: stats, recent: stats, vus: 1, scenarioOf: new Map() };
    expect(messageCounts(source)).toEqual([
      { labels: { run: "r", scenario: "", request: "chat", direction: "sent" }, value: 3 },
      { labels: { run: "r", scenario: "", request: "chat", direction: "received" }, value: 2 },
    ]);
    const quantiles = streamTimingQuantiles(source);
    expect(quantiles.map((q) => q.labels.quantile)).toEqual(["0.5", "0.95", "0.99"]);
    expect(quantiles[0].labels).toMatchObject({ request: "feed", timing: "firstEventMs" });
    expect(quantiles[0].value).toBeCloseTo(0.1, 3);
  });
});
