import { scopedName, streamStatsName } from "@volley/protocol";
import { RequestRecorder, StatsAggregate } from "@volley/stats";
import { describe, expect, it } from "vitest";
import { messageCounts, requestCounts, streamTimingQuantiles } from "./run-samples.js";

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
    const source = { runId: "r", cumulative: stats, recent: stats, vus: 1, scenarios: [] };
    expect(messageCounts(source)).toEqual([
      { labels: { run: "r", scenario: "", request: "chat", direction: "sent" }, value: 3 },
      { labels: { run: "r", scenario: "", request: "chat", direction: "received" }, value: 2 },
    ]);
    const quantiles = streamTimingQuantiles(source);
    expect(quantiles.map((q) => q.labels.quantile)).toEqual(["0.5", "0.95", "0.99"]);
    expect(quantiles[0].labels).toMatchObject({ request: "feed", timing: "firstEventMs" });
    expect(quantiles[0].value).toBeCloseTo(0.1, 3);
  });

  it("label a request of scenarios: with its own name and its scenario, two scenarios' one name apart", () => {
    const web = new RequestRecorder(scopedName("web", "login"), "GET");
    web.record(1000, 200, 0, 0);
    const app = new RequestRecorder(scopedName("app", "login"), "GET");
    app.record(1000, 200, 0, 0);
    app.record(1000, 200, 0, 0);
    const feed = new RequestRecorder(streamStatsName(scopedName("app", "feed"), "gapMs"), "STREAM_GAP");
    feed.record(1000, 0, 0, 0);
    const stats = statsOf(web, app, feed);
    const source = { runId: "r", cumulative: stats, recent: stats, vus: 1, scenarios: ["web", "app"] };
    expect(requestCounts(source)).toEqual([
      { labels: { run: "r", scenario: "web", request: "login", status: "200" }, value: 1 },
      { labels: { run: "r", scenario: "app", request: "login", status: "200" }, value: 2 },
    ]);
    expect(streamTimingQuantiles(source)[0].labels).toMatchObject({ scenario: "app", request: "feed" });
  });
});
