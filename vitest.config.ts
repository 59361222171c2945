import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

// Five suites:
// - unit: beside the code (`*.test.ts`), no service, no build, seconds: workspace packages are
//   read from their sources (the `source` export condition), so a test sees the code as it is now;
// - load: beside the code (`*.load.test.ts`), engines driving a loopback server for seconds at a
//   time (rates, ramps, stalls, load changes), also from sources;
// - service: beside the code (`*.service.test.ts`), against the machine's real Redis and
//   PostgreSQL, also from sources;
// - integration and browser: cross-process suites in test/, against the build (`pnpm build`):
//   they start real masters, workers and engine threads from dist/, and Chromium. On this 2-core
//   machine their files run one at a time, except the "integration-paired" ones (below).
const SOURCE = { conditions: ["source", "node", "development|production"] };
const fromSource = { resolve: SOURCE, ssr: { resolve: { conditions: SOURCE.conditions } } };

/**
 * The integration suite's order: the files that hold the most sockets or build network
 * namespaces run first, on a machine no earlier suite has left sockets, namespaces or load on
 * (38,000 connections passed alone and failed after a hundred other files, in CI); the rest as
 * Vitest orders them.
 */
const FIRST = ["test/connections-scale.int.test.ts", "test/multi-host.int.test.ts"];
class FirstFilesSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const at = FIRST.findIndex((name) => file.moduleId.endsWith(name));
      return at < 0 ? FIRST.length : at;
    };
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}

/**
 * Integration files that run two at a time (after the others, which run alone): they wait on
 * runs, processes and sockets far more than they compute (a file measured 45-58 % busy on the
 * two cores alone), and assert counts and behaviour, not timings or CPU. A file that measures
 * rates, latencies, timeouts or its own CPU stays out of this list, and so does one whose runs
 * are judged by latency thresholds (demo.int: the gRPC example's p95 < 100 ms failed paired).
 */
const PAIRED = [
  "access",
  "accounts",
  "aggregators",
  "bad-input",
  "cli",
  "cli-imports",
  "cli-master",
  "custom-metrics",
  "dashboard-login",
  "deployment",
  "disk-full",
  "engine-faults",
  "examples",
  "feeders",
  "github-action",
  "hardening-edges",
  "import",
  "iterations",
  "k6-convert",
  "network-proxy",
  "network-tls",
  "oidc",
  "otlp",
  "protocol-faults",
  "quickstart",
  "row-handover",
  "run-deadline",
  "run-follower",
  "run-local-token",
  "run-sequence",
  "script-files",
  "security",
  "sessions",
  "test-readme",
  "webhooks",
  "worker-access",
  "worker-identity",
  "worker-labels",
  "worker-link",
  "worker-tokens",
].map((name) => `test/${name}.int.test.ts`);

const CROSS_PROCESS = { testTimeout: 180_000, hookTimeout: 180_000 };

export default defineConfig({
  test: {
    // Per-file durations for `node scripts/test-durations.mjs` (.ci/run prints them).
    reporters: ["default", ["json", { outputFile: "test-results/vitest.json" }]],
    sequence: { sequencer: FirstFilesSequencer },
    projects: [
      {
        ...fromSource,
        test: {
          name: "unit",
          include: ["packages/*/src/**/*.test.ts", "apps/*/src/**/*.test.ts"],
          exclude: ["**/*.service.test.ts", "**/*.load.test.ts", "**/node_modules/**"],
          testTimeout: 30_000,
        },
      },
      {
        ...fromSource,
        test: {
          name: "load",
          include: ["packages/*/src/**/*.load.test.ts", "apps/*/src/**/*.load.test.ts"],
          testTimeout: 60_000,
        },
      },
      {
        ...fromSource,
        test: {
          name: "service",
          include: ["packages/*/src/**/*.service.test.ts", "apps/*/src/**/*.service.test.ts"],
          testTimeout: 30_000,
        },
      },
      // Groups run in order: the integration files alone, then the paired ones, then the browser
      // suite (the unit, load and service files, one worker each here, come last).
      {
        test: {
          name: "integration",
          include: ["test/**/*.int.test.ts"],
          exclude: PAIRED,
          ...CROSS_PROCESS,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          name: "integration-paired",
          include: PAIRED,
          ...CROSS_PROCESS,
          maxWorkers: 2,
          sequence: { groupOrder: 2 },
        },
      },
      {
        test: {
          name: "browser",
          include: ["test/**/*.browser.test.ts"],
          ...CROSS_PROCESS,
          // One worker for every file, its modules (Playwright, the master) imported once: each
          // file starts its own master and Chromium and closes them, so nothing else is shared.
          isolate: false,
          maxWorkers: 1,
          sequence: { groupOrder: 3 },
        },
      },
    ],
  },
});
