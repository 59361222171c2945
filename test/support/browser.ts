import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { ROOT } from "./processes.js";

/** Debian's Chromium, with the flags this closed network needs (see the stack notes). */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

export const SCREENSHOTS = join(ROOT, "test-results/screenshots");

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Collects console errors and page errors so a test can assert there were none. */
export function watchConsole(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(String(error)));
  return errors;
}

/** The four ways every page is looked at: 1400 px and 390 px wide, light and dark. */
export const VIEWPORTS = [
  ["desktop-light", { width: 1400, height: 900 }, "light"],
  ["desktop-dark", { width: 1400, height: 900 }, "dark"],
  ["phone-light", { width: 390, height: 844 }, "light"],
  ["phone-dark", { width: 390, height: 844 }, "dark"],
] as const;
