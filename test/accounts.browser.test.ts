import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, screenshot, VIEWPORTS, watchConsole } from "./support/browser.js";
import { startTestFleet, type TestFleet } from "./support/in-process.js";
import { ROOT, waitFor, waitForRunEnd } from "./support/processes.js";
import { rawRequest } from "./support/raw-http.js";

// Sign-in with a password, the Access page (tokens, users) and the audit log, as an admin and
// as a viewer, at 1400 and 390 px, light and dark.
const TOKEN = "accounts-browser-token-123";
let fleet: TestFleet;
let url: string;
let browser: Browser;
const passwords: Record<string, string> = {};
let runId: string;

const call = (method: string, path: string, auth: string, body?: unknown) =>
  rawRequest(
    url,
    method,
    path,
    {
      authorization: `Bearer ${auth}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body === undefined ? undefined : JSON.stringify(body),
  );

beforeAll(async () => {
  fleet = await startTestFleet({
    master: { token: TOKEN, host: "0.0.0.0", webRoot: join(ROOT, "apps/web/dist") },
  });
  url = `http://127.0.0.1:${new URL(fleet.master.url).port}`;
  browser = await launchBrowser();
  for (const [name, role] of [
    ["ada", "admin"],
    ["ben", "viewer"],
  ]) {
    const made = await call("POST", "/api/users", TOKEN, { name, role });
    expect(made.status, made.body).toBe(201);
    passwords[name] = made.json<{ password: string }>().password;
  }
  expect((await call("POST", "/api/worker-tokens", TOKEN, { name: "rack-1", expiresIn: "30d" })).status).toBe(
    201,
  );
  // A short run started and stopped by the master's token: the audit log and the run page show it.
  const created = await call("POST", "/api/runs", TOKEN, {
    scenario: {
      name: "audited",
      target: fleet.target.url,
      load: { executor: "constant-vus", vus: 1, duration: "20s" },
      thinkTime: "50ms",
      requests: [{ path: "/hello" }],
    },
  });
  expect(created.status, created.body).toBe(201);
  runId = created.json<{ id: string }>().id;
  await waitFor(() => fleet.target.total() > 0, { what: "requests to arrive" });
  expect((await call("POST", `/api/runs/${runId}/stop`, TOKEN)).status).toBe(202);
  await waitForRunEnd(fleet.master.url, runId, 30_000, TOKEN);
});
afterAll(async () => {
  await browser?.close();
  await fleet?.close();
});

async function signIn(page: Page, user: string, password: string): Promise<void> {
  await page.goto(`${url}/`);
  await page.getByText("Sign in with your user name and password.").waitFor();
  await page.getByLabel("User").fill(user);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByTestId("signed-in-as").getByText(user).waitFor();
}

const overflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

describe("accounts in the dashboard", () => {
  it("refuses a wrong password visibly", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(`${url}/`);
    await page.getByLabel("User").fill("ada");
    await page.getByLabel("Password").fill("not-the-password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").getByText("wrong user or password").waitFor();
    await screenshot(page, "sign-in-refused");
    await page.close();
  });

  it.each(VIEWPORTS)(
    "%s: an admin signs in, reads the audit log, makes a token and sees the users",
    async (name, viewport, scheme) => {
      const page = await browser.newPage({ viewport, colorScheme: scheme });
      const errors = watchConsole(page);
      await signIn(page, "ada", passwords.ada);
      await page.goto(`${url}/audit`);
      const audit = page.getByTestId("audit-table");
      await audit.getByText("run.start").waitFor();
      await audit.getByText("user.create").first().waitFor();
      expect(await overflow(page)).toBeLessThanOrEqual(1);
      await screenshot(page, `audit-${name}`);
      // Filtered by action.
      await page.getByLabel("Action starts with").fill("run.stop");
      await waitFor(async () => (await audit.locator("tbody tr").count()) === 1, {
        what: "one run.stop entry",
      });

      await page.goto(`${url}/access`);
      await page.getByTestId("user-table").getByText("ben").waitFor();
      await page.getByTestId("tokens-worker-tokens").getByText("rack-1").waitFor();
      const personal = page.getByTestId("tokens-tokens");
      await personal.getByLabel("Name").fill(`laptop-${name}`);
      await personal.getByRole("button", { name: "Make token" }).click();
      const secret = (await page.getByTestId("secret").textContent()) ?? "";
      expect(secret).toMatch(/^vol_pat_/);
      await personal.getByText(`laptop-${name}`).waitFor();
      // The token works as ada (an admin) at once.
      const me = await call("GET", "/api/session", secret);
      expect(me.json()).toEqual({ user: "ada", role: "admin", via: "personal-token" });
      expect(await overflow(page)).toBeLessThanOrEqual(1);
      await screenshot(page, `access-${name}`);

      // The run page says who started and stopped the run.
      await page.goto(`${url}/runs/${runId}`);
      await page.getByTestId("started-by").getByText("by token").waitFor();
      await page.getByTestId("stopped-by").getByText("stopped by token").waitFor();
      expect(errors).toEqual([]);
      await page.close();
    },
  );

  it("shows a viewer no admin pages, and says so when one is opened", async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await signIn(page, "ben", passwords.ben);
    await expect(page.getByRole("link", { name: "Audit", exact: true }).count()).resolves.toBe(0);
    await page.goto(`${url}/audit`);
    await page.getByText("this needs the role admin; ben is a viewer").waitFor();
    await page.goto(`${url}/access`);
    await page.getByText("Signed in as").waitFor();
    await expect(page.getByTestId("user-table").count()).resolves.toBe(0);
    await screenshot(page, "access-viewer-phone");
    // The one-time password is replaced on the Access page; then ben signs in with his own.
    const panel = page.getByTestId("password-panel");
    await panel.getByLabel("Current").fill(passwords.ben);
    await panel.getByLabel("New").fill("short");
    await panel.getByRole("button", { name: "Change password" }).click();
    await page.getByText("next: must be at least 12 characters").waitFor();
    await panel.getByLabel("New").fill("bens-own-long-password");
    await panel.getByRole("button", { name: "Change password" }).click();
    await page.getByText("Sign in with your user name and password.").waitFor();
    await signIn(page, "ben", "bens-own-long-password");
    await page.close();
  });
});
