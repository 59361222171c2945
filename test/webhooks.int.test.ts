import { createHmac } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { RunDetail } from "@volley/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestFleet, type TestFleet } from "./support/in-process.js";
import { sendJson, waitFor, waitForRunEnd } from "./support/processes.js";

// `run.finished` webhooks against a loopback receiver that fails the first attempt: retried,
// delivered once, signed with the token, and never in the way of the run.
const TOKEN = "webhook-test-token-1";
let fleet: TestFleet;
let receiver: Server;
const deliveries: Array<{ body: string; signature: string | undefined; status: number }> = [];

beforeAll(async () => {
  let attempts = 0;
  receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      const status = ++attempts === 1 ? 503 : 200;
      deliveries.push({ body, signature: req.headers["x-volley-signature"] as string | undefined, status });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const { port } = receiver.address() as AddressInfo;
  fleet = await startTestFleet({
    master: {
      token: TOKEN,
      // The second hook goes nowhere: its retries must not hold anything up.
      webhooks: [`http://127.0.0.1:${port}/hooks/volley`, "http://127.0.0.1:9/nowhere"],
      webhookRetryDelayMs: 200,
    },
  });
});
afterAll(async () => {
  await fleet?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

describe("run.finished webhooks", () => {
  it("are retried after a failure, delivered once per run, and signed with the token", async () => {
    const { master, target } = fleet;
    const created = await fetch(`${master.url}/api/runs`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({
        scenario: {
          name: "hooked",
          target: target.url,
          load: { executor: "per-vu-iterations", vus: 2, iterations: 5 },
          requests: [{ path: "/hello" }],
          thresholds: { p95: "<5s" },
        },
      }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const run = await waitForRunEnd<RunDetail>(master.url, id, 30_000, TOKEN);
    expect(run.status).toBe("finished");
    await waitFor(() => deliveries.some((d) => d.status === 200), { what: "the webhook", timeoutMs: 10_000 });
    expect(deliveries.map((d) => d.status)).toEqual([503, 200]);
    const [, delivered] = deliveries;
    const event = JSON.parse(delivered.body);
    expect(event).toMatchObject({
      event: "run.finished",
      run: { id, name: "hooked", status: "finished", verdict: run.trust.verdict, passed: true },
    });
    expect(event.run.summary.total.requests).toBe(10);
    expect(event.run.thresholds).toEqual(run.thresholds);
    expect(delivered.signature).toBe(
      `sha256=${createHmac("sha256", TOKEN).update(delivered.body).digest("hex")}`,
    );
    // The unreachable hook is still retrying; the master took the next run at once all the same.
    const next = await sendJson(
      "POST",
      `${master.url}/api/runs`,
      {
        scenario: {
          name: "after",
          target: target.url,
          load: { executor: "per-vu-iterations", vus: 1, iterations: 1 },
          requests: [{ path: "/hello" }],
        },
      },
      TOKEN,
    );
    expect(next.status).toBe(201);
    // Once per run: the next delivery is the next run's, and the first run had exactly two.
    await waitForRunEnd(master.url, next.body.id as string, 30_000, TOKEN);
    await waitFor(() => deliveries.length >= 3, { what: "the next run's webhook", timeoutMs: 10_000 });
    const runsDelivered = deliveries.map((d) => JSON.parse(d.body).run.name as string);
    expect(runsDelivered).toEqual(["hooked", "hooked", "after"]);
  });
});
