import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { RunDetail } from "@volley/protocol";
import { junitReport } from "./junit.js";
import { summaryMarkdown } from "./summary-markdown.js";

/**
 * Writes the files `volley run` was asked for: the JSON report, JUnit XML, a Markdown summary, and
 * the HTML report (rendered by the master, as the dashboard serves it: `html` fetches it).
 */
export async function writeOutputs(
  run: RunDetail,
  files: { out?: string; junit?: string; summaryMd?: string; html?: string },
  html: () => Promise<string>,
): Promise<void> {
  const write = (file: string | undefined, text: string, what: string) => {
    if (!file) return;
    writeFileSync(resolve(file), text);
    console.log(`${what} written to ${file}`);
  };
  write(files.out, `${JSON.stringify(run, null, 2)}\n`, "Report");
  write(files.junit, junitReport(run), "JUnit XML");
  write(files.summaryMd, summaryMarkdown(run), "Markdown summary");
  if (files.html) write(files.html, await html(), "HTML report");
}
