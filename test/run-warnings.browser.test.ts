import { join } from "node:path";
import type { RunningMaster } from "@volley/master";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, screenshot, VIEWPORTS, watchConsole } from "./support/browser.js";
import { FakeWorker, requestStats } from "./support/fake-worker.js";
import { startTestMaster } from "./support/in-process.js";
import { ROOT, sendJson, waitForRunEnd } from "./support/processes.js";

let master: RunningMaster;
let browser: Browser;
let runId: string;

// A run one worker refused and another was lost in: its page must say so first thing.
beforeAll(async () => {
  master = await startTestMaster({ webRoot: join(ROOT, "apps/web/dist"), heartbeatTimeoutMs: 1000 });
  browser = await launchBrowser();
  const [kept, refusing, lost] = [
    await FakeWorker.join(master),
    await FakeWorker.join(master),
    await FakeWorker.join(master),
  ];
  const created = await sendJson("POST", `${master.url}/api/runs`, {
    scenario: {
      name: "warned",
      target: "http://127.0.0.1:9",
      load: { executor: "constant-vus", vus: 3, duration: "3s" },
      requests: [{ name: "hello", path: "/hello" }],
    },
  });
  runId = created.body.id as string;
  for (const w of [kept, refusing, lost]) await w.next("start-run");
  kept.send({ type: "run-accepted", runId });
  lost.send({ type: "run-accepted", runId });
  refusing.send({ type: "run-rejected", runId, message: "not enough memory" });
  // The lost worker knew the master's clock only to ±30 ms: the run's clocks may disagree.
  lost.heartbeat("running", runId, { clockUncertaintyMs: 30 });
  await lost.push({ runId, seq: 0, requests: [requestStats("hello", 40)] });
  await lost.close(); // silent from now on: lost after the heartbeat timeout
  const beat = setInterval(() => kept.heartbeat("running", runId, { clockUncertaintyMs: 1 }), 200);
  for (let seq = 0; seq < 3; seq++) {
    await kept.push({ runId, seq, final: seq === 2, requests: [requestStats("hello", 100)] });
  }
  await waitForRunEnd(master.url, runId, 60_000);
  clearInterval(beat);
  await kept.close();
  await refusing.close();
});
afterAll(async () => {
  await browser?.close();
  await master?.close();
});

describe("run warnings on the run page", () => {
  it.each(VIEWPORTS)(
    "%s: the lost and refusing workers are named above the figures",
    async (name, viewport, scheme) => {
      const page = await browser.newPage({ viewport, colorScheme: scheme });
      const errors = watchConsole(page);
      await page.goto(`${master.url}/runs/${runId}`);
      const warning = page.getByTestId("saturation-warning");
      await warning.waitFor();
      const text = (await warning.textContent()) ?? "";
      // One worker lost and one refusing of the run's two: half the fleet is missing.
      expect(text).toContain("Figures: untrusted.");
      expect(await page.getByTestId("trust-verdict").textContent()).toBe("untrusted");
      expect(text).not.toContain("load generator");
      expect(text).toMatch(/was lost after \d+ s: what it sent later is missing/);
      expect(text).toContain("refused the run (not enough memory)");
      expect(text).toContain("the workers' clocks may disagree by up to 31 ms");
      // Nothing wider than the screen.
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      const box = await warning.boundingBox();
      expect(box && box.x >= 0 && box.x + box.width <= viewport.width).toBe(true);
      await screenshot(page, `run-warnings-${name}`);
      expect(errors).toEqual([]);
      await page.close();
    },
  );
});
