import { formatPassRate, formatThresholdActual, type RunDetail } from "@volley/protocol";

/**
 * A run as JUnit XML for CI test reports: one testsuite for the run, one testcase per threshold
 * and per check; a failed threshold or check is a failure with its actual value against its
 * limit, a failed run an error. The trust verdict travels as a property.
 */
export function junitReport(run: RunDetail): string {
  const cases: string[] = [];
  let failures = 0;
  for (const t of run.thresholds) {
    const body = t.pass
      ? ""
      : `<failure message="${xml(`${t.key} ${t.expression}: actual ${formatThresholdActual(t)}`)}" type="threshold">${xml(`${t.key} must be ${t.expression}; it was ${formatThresholdActual(t)}`)}</failure>`;
    if (!t.pass) failures++;
    cases.push(
      `    <testcase classname="${xml(run.name)}.thresholds" name="${xml(`${t.key} ${t.expression}`)}">${body}</testcase>`,
    );
  }
  for (const c of run.summary.checks ?? []) {
    const failed = c.fails > 0;
    if (failed) failures++;
    const body = failed
      ? `<failure message="${xml(`${c.fails} of ${c.passes + c.fails} failed`)}" type="check">${xml(`check "${c.name}": ${c.passes} passed, ${c.fails} failed (${formatPassRate(c)})`)}</failure>`
      : "";
    cases.push(`    <testcase classname="${xml(run.name)}.checks" name="${xml(c.name)}">${body}</testcase>`);
  }
  const errored = run.status === "failed";
  if (errored) {
    cases.push(
      `    <testcase classname="${xml(run.name)}" name="run"><error message="${xml(run.error ?? "the run failed")}" type="run"/></testcase>`,
    );
  }
  const t = run.summary.total;
  const properties = [
    ["run", run.id],
    ["status", run.status],
    ["trust", run.trust.verdict],
    ["requests", String(t.requests)],
    ["failures", String(t.failures)],
    ["rps", String(t.rps)],
    ["p95_ms", String(t.latencyMs.p95)],
  ]
    .map(([name, value]) => `      <property name="${name}" value="${xml(value)}"/>`)
    .join("\n");
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="volley" tests="${cases.length}" failures="${failures}" errors="${errored ? 1 : 0}" time="${run.summary.durationS}">`,
    `  <testsuite name="${xml(run.name)}" tests="${cases.length}" failures="${failures}" errors="${errored ? 1 : 0}" time="${run.summary.durationS}" timestamp="${xml(run.startedAt ?? run.createdAt)}">`,
    "    <properties>",
    properties,
    "    </properties>",
    ...cases,
    "  </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}

/** Text safe inside XML attributes and elements (control characters XML 1.0 forbids are dropped). */
function xml(text: string): string {
  return (
    text
      // biome-ignore lint/suspicious/noControlCharactersInRegex: they are what is removed
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "")
      .replace(/&/g, "&amp;")
      .replace(/</g, "&lt;")
      .replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;")
  );
}
