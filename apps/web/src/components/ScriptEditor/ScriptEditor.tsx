import { lazy, Suspense, useEffect, useState } from "react";
import { onThemeChange } from "../../theme.js";

// The editor (CodeMirror, ~150 KB) is its own chunk, fetched when a scenario has a script.
const CodeEditor = lazy(() => import("./CodeEditor.js"));

interface ScriptEditorProps {
  /** The path the scenario names (`script: flow.ts`). */
  name: string;
  source: string;
  onChange: (source: string) => void;
  /** What the master said about the script (a compile error with its line), if anything. */
  problem?: string;
}

/** The script a scenario runs, edited beside it: TypeScript, sent with the run for the master to bundle. */
export function ScriptEditor({ name, source, onChange, problem }: ScriptEditorProps) {
  const dark = useDarkTheme();
  return (
    <section className="panel script-editor" data-testid="script-editor">
      <h2>
        Script <code>{name}</code>
      </h2>
      <p className="muted">
        Each iteration of a VU awaits the default export with a <code>vu</code>:{" "}
        <code>vu.http.get/post…</code>, <code>vu.check</code>, <code>vu.group</code>, <code>vu.sleep</code>,{" "}
        <code>vu.vars</code>, <code>vu.data</code>. One file here (relative imports need{" "}
        <code>volley run</code>); see docs/scripting.md.
      </p>
      <Suspense fallback={<p className="muted">Loading the editor…</p>}>
        <CodeEditor value={source} onChange={onChange} dark={dark} label={`Script ${name}`} />
      </Suspense>
      {problem && (
        <div className="callout bad" role="alert" data-testid="script-problem">
          {problem}
        </div>
      )}
    </section>
  );
}

/** A script to start from: one request, one check. */
export const SCRIPT_TEMPLATE = `import type { Vu } from "@volley/script";

export default async function (vu: Vu) {
  const home = await vu.http.get("/", { name: "home" });
  vu.check("home is up", home.status === 200);
  await vu.sleep(100);
}
`;

/** Whether the page is in dark mode now (the resolved theme on <html>), following changes. */
function useDarkTheme(): boolean {
  const [dark, setDark] = useState(isDark);
  useEffect(() => {
    const stop = onThemeChange(() => setDark(isDark()));
    return () => {
      stop();
    };
  }, []);
  return dark;
}

function isDark(): boolean {
  return document.documentElement.dataset.theme === "dark";
}
