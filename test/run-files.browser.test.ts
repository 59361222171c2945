import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { TLSSocket } from "node:tls";
import type { RunningMaster } from "@volley/master";
import type { RunDetail } from "@volley/protocol";
import type { WorkerNode } from "@volley/worker";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { launchBrowser, screenshot, VIEWPORTS, watchConsole } from "./support/browser.js";
import { startTestMaster, startTestWorker } from "./support/in-process.js";
import { getJson, ROOT, sendJson, waitForRunEnd } from "./support/processes.js";
import { startTargetServer, type TargetServer } from "./support/target-server.js";
import { makeTestPki } from "./support/test-pki.js";

let master: RunningMaster;
let worker: WorkerNode;
let target: TargetServer;
let browser: Browser;
let firstRunId = "";

beforeAll(async () => {
  target = await startTargetServer();
  master = await startTestMaster({ webRoot: join(ROOT, "apps/web/dist") });
  worker = await startTestWorker(master, { threads: 2 });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await worker?.shutdown(3000);
  await master?.close();
  await target?.close();
});

const users = `email\n${Array.from({ length: 40 }, (_, i) => `u${i}@x.test`).join("\n")}\n`;
const scenario = () => ({
  name: "with-files",
  target: target.url,
  data: { users: { file: "users.csv", mode: "unique" } },
  load: { executor: "constant-vus", vus: 4, duration: "10s" },
  requests: [
    {
      name: "upload",
      method: "POST",
      path: "/upload",
      multipart: { email: "{{data.users.email}}", doc: { file: "doc.txt", contentType: "text/plain" } },
    },
  ],
});

/** What the server received: distinct emails, and each distinct text of the uploaded doc. */
async function uploadsSeen(): Promise<{ emails: number; docs: string[] }> {
  const emails = new Set<unknown>();
  const docs = new Set<string>();
  for (const entry of target.log) {
    const form = await new Response(entry.body, {
      headers: { "content-type": String(entry.headers["content-type"]) },
    }).formData();
    emails.add(form.get("email"));
    docs.add(await (form.get("doc") as File).text());
  }
  return { emails: emails.size, docs: [...docs] };
}

async function openWithScenario(page: Page): Promise<void> {
  await page.goto(`${master.url}/new`);
  await page.getByLabel("Scenario text").fill(stringify(scenario()));
  await page.getByTestId("run-files").waitFor();
}

describe("files a scenario names, chosen in the dashboard", () => {
  it("lists them, takes them, and the run sends each row once with the file", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors = watchConsole(page);
    await openWithScenario(page);
    const files = page.getByTestId("run-files");
    expect(await files.textContent()).toContain("users.csv (test data) not chosen yet");
    expect(await files.textContent()).toContain("doc.txt (multipart file) not chosen yet");
    await page
      .getByLabel("Choose users.csv")
      .setInputFiles({ name: "users.csv", mimeType: "text/csv", buffer: Buffer.from(users) });
    await page
      .getByLabel("Choose doc.txt")
      .setInputFiles({ name: "doc.txt", mimeType: "text/plain", buffer: Buffer.from("hello doc") });
    await page.getByText("users.csv (test data) ready").waitFor();
    await page.getByText("doc.txt (multipart file) ready").waitFor();
    await page.getByTestId("start-run").click();
    await page.waitForURL(/\/runs\/[0-9a-z]+$/);
    const runId = page.url().split("/").pop() as string;
    const run = await waitForRunEnd<RunDetail>(master.url, runId, 30_000);
    expect(run.summary.total.requests).toBe(40);
    expect(await uploadsSeen()).toEqual({ emails: 40, docs: ["hello doc"] });
    expect(errors).toEqual([]);
    await page.close();
    firstRunId = runId;
  });

  it("Run again sends the files kept with the run, unless another is chosen", async () => {
    expect(firstRunId).toBeTruthy();
    target.reset();
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors = watchConsole(page);
    await page.goto(`${master.url}/new?from=${firstRunId}`);
    await page.getByText("users.csv (test data) kept with the earlier run (").waitFor();
    expect(await page.getByTestId("run-files").textContent()).toContain(
      "doc.txt (multipart file) kept with the earlier run (9 B)",
    );
    // A file chosen now replaces the kept one; the other still comes from the earlier run.
    await page
      .getByLabel("Choose doc.txt")
      .setInputFiles({ name: "doc.txt", mimeType: "text/plain", buffer: Buffer.from("new doc") });
    await page.getByText("doc.txt (multipart file) ready").waitFor();
    await page.getByTestId("start-run").click();
    await page.waitForURL(
      (url) => /\/runs\/[0-9a-z]+$/.test(url.pathname) && !url.pathname.endsWith(firstRunId),
    );
    const run = await waitForRunEnd<RunDetail>(master.url, page.url().split("/").pop() as string, 30_000);
    expect(run.summary.total.requests).toBe(40);
    expect(await uploadsSeen()).toEqual({ emails: 40, docs: ["new doc"] });
    // The API lists what a run kept; an unknown run to take files from is a 400 naming the field.
    const kept = await getJson<{ files: unknown[] }>(`${master.url}/api/runs/${run.id}/files`);
    expect(kept.files).toEqual([
      { kind: "attachment", name: "doc.txt", bytes: 7 },
      { kind: "feeder", name: "users.csv", bytes: users.length },
    ]);
    const bad = await sendJson("POST", `${master.url}/api/runs`, { scenario: scenario(), filesFrom: "nope" });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([{ path: "filesFrom", message: "no run nope" }]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("lists the files of every part of a scenario with several loads", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(`${master.url}/new`);
    const { load, requests, ...rest } = scenario();
    await page
      .getByLabel("Scenario text")
      .fill(stringify({ ...rest, scenarios: { upload: { load, requests } } }));
    await page.getByTestId("run-files").waitFor();
    const text = await page.getByTestId("run-files").textContent();
    expect(text).toContain("users.csv (test data) not chosen yet");
    expect(text).toContain("doc.txt (multipart file) not chosen yet");
    await page.close();
  });

  it("a file not chosen is named in the server's answer", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await openWithScenario(page);
    await page.getByTestId("start-run").click();
    const error = page.getByTestId("server-error");
    await error.waitFor();
    expect(await error.textContent()).toContain("users.csv was not sent with the scenario");
    await page.close();
  });

  it("asks for a client certificate, its key and CA as certificates; the run sends them and the mutual-TLS server sees the certificate", async () => {
    const pki = makeTestPki(["127.0.0.1"]);
    let seen: string[] = [];
    const server = createHttpsServer(
      {
        key: pki.serverKey,
        cert: pki.serverCert,
        ca: pki.caCert,
        requestCert: true,
        rejectUnauthorized: true,
      },
      (req, res) => {
        seen.push(String((req.socket as TLSSocket).getPeerCertificate().subject?.CN));
        res.writeHead(200, { "content-length": 0 }).end();
      },
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const tlsScenario = {
      name: "with-certificates",
      target: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
      load: { executor: "per-vu-iterations", vus: 2, iterations: 3 },
      http: { tls: { cert: "certs/client.pem", key: "certs/client.key", ca: "certs/ca.pem" } },
      requests: [{ name: "secure", path: "/secure" }],
    };
    const files = {
      "certs/client.pem": pki.clientCert,
      "certs/client.key": pki.clientKey,
      "certs/ca.pem": pki.caCert,
    };
    try {
      for (const [name, viewport, scheme] of VIEWPORTS) {
        const page = await browser.newPage({ viewport, colorScheme: scheme });
        const errors = watchConsole(page);
        await page.goto(`${master.url}/new`);
        await page.getByLabel("Scenario text").fill(stringify(tlsScenario));
        const list = page.getByTestId("run-files");
        await list.waitFor();
        for (const file of Object.keys(files)) {
          expect(await list.textContent()).toContain(`${file} (certificate) not chosen yet`);
        }
        for (const [file, bytes] of Object.entries(files)) {
          await page
            .getByLabel(`Choose ${file}`)
            .setInputFiles({ name: file.split("/")[1], mimeType: "application/x-pem-file", buffer: bytes });
          await page.getByText(`${file} (certificate) ready`).waitFor();
        }
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow).toBeLessThanOrEqual(0);
        await screenshot(page, `run-files-certificates-${name}`);
        if (name === VIEWPORTS[0][0]) {
          seen = [];
          await page.getByTestId("start-run").click();
          await page.waitForURL(/\/runs\/[0-9a-z]+$/);
          const run = await waitForRunEnd<RunDetail>(
            master.url,
            page.url().split("/").pop() as string,
            30_000,
          );
          expect(run.summary.total).toMatchObject({ requests: 6, failures: 0 });
          expect(seen).toEqual(Array(6).fill("volley-client"));
          const kept = await getJson<{ files: Array<{ kind: string; name: string }> }>(
            `${master.url}/api/runs/${run.id}/files`,
          );
          expect(kept.files.map((f) => `${f.kind} ${f.name}`).sort()).toEqual([
            "certificate certs/ca.pem",
            "certificate certs/client.key",
            "certificate certs/client.pem",
          ]);
        }
        expect(errors).toEqual([]);
        await page.close();
      }
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it.each(VIEWPORTS)("%s: the file list fits the screen", async (name, viewport, scheme) => {
    const page = await browser.newPage({ viewport, colorScheme: scheme });
    await openWithScenario(page);
    await page
      .getByLabel("Choose users.csv")
      .setInputFiles({ name: "users.csv", mimeType: "text/csv", buffer: Buffer.from(users) });
    await page.getByText("users.csv (test data) ready").waitFor();
    const box = await page.getByTestId("run-files").boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= viewport.width).toBe(true);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(page, `run-files-${name}`);
    await page.goto(`${master.url}/new?from=${firstRunId}`);
    await page.getByText("users.csv (test data) kept with the earlier run (").waitFor();
    const keptOverflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(keptOverflow).toBeLessThanOrEqual(0);
    await screenshot(page, `run-files-kept-${name}`);
    await page.close();
  });
});
