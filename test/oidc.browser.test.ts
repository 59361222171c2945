import { join } from "node:path";
import type { RunningMaster } from "@volley/master";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, screenshot, VIEWPORTS, watchConsole } from "./support/browser.js";
import { startTestMaster } from "./support/in-process.js";
import { startOidcProvider, type TestOidcProvider } from "./support/oidc-provider.js";
import { ROOT } from "./support/processes.js";

// Single sign-on in Chromium: the sign-in page's button, the provider, and back to the dashboard
// signed in (the Strict session cookie must reach the first page after the provider's redirect);
// a refused account sees why on the sign-in page. 1400 and 390 px, light and dark.
const TOKEN = "oidc-browser-token-1234567";
let provider: TestOidcProvider;
let master: RunningMaster;
let browser: Browser;

beforeAll(async () => {
  provider = await startOidcProvider({
    "grace-sub": { preferred_username: "grace", roles: ["admin"] },
    "guest-sub": { preferred_username: "guest", roles: ["marketing"] },
  });
  master = await startTestMaster({
    token: TOKEN,
    webRoot: join(ROOT, "apps/web/dist"),
    oidc: { issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret },
  });
  provider.register(`${master.url}/api/session/oidc/callback`);
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await master?.close();
  await provider?.close();
});

const providerButton = () => `Sign in with ${new URL(provider.issuer).host}`;

describe("single sign-on in the dashboard", () => {
  it.each(VIEWPORTS)(
    "%s: signs in through the provider and lands on the dashboard",
    async (name, viewport, scheme) => {
      const page = await browser.newPage({ viewport, colorScheme: scheme });
      const errors = watchConsole(page);
      provider.signInAs("grace-sub");
      await page.goto(`${master.url}/`);
      await page.getByRole("link", { name: providerButton() }).waitFor();
      await screenshot(page, `sign-in-oidc-${name}`);
      await page.getByRole("link", { name: providerButton() }).click();
      await page.getByTestId("signed-in-as").getByText("grace").waitFor();
      expect(new URL(page.url()).pathname).toBe("/");
      // An admin through the provider: the Users table says how grace signs in.
      await page.goto(`${master.url}/access`);
      const row = page.getByTestId("user-table").locator("tr", { hasText: "grace" });
      await row.getByText("(single sign-on)").waitFor();
      expect(await row.getByRole("button", { name: "Reset password" }).count()).toBe(0);
      // No password of grace's own to change here either.
      expect(await page.getByTestId("password-panel").count()).toBe(0);
      await screenshot(page, `access-oidc-${name}`);
      expect(errors).toEqual([]);
      await page.close();
    },
  );

  it("shows an account without a role why it was refused", async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    provider.signInAs("guest-sub");
    await page.goto(`${master.url}/`);
    await page.getByRole("link", { name: providerButton() }).click();
    await page.getByRole("alert").getByText('your account has no Volley role: the "roles" claim').waitFor();
    // The reason is shown once: the address no longer carries it.
    expect(new URL(page.url()).search).toBe("");
    await screenshot(page, "sign-in-oidc-refused-phone");
    await page.close();
  });
});
