import { javascript } from "@codemirror/lang-javascript";
import { oneDark } from "@codemirror/theme-one-dark";
import { basicSetup, EditorView } from "codemirror";
import { useEffect, useRef } from "react";

interface CodeEditorProps {
  value: string;
  onChange: (value: string) => void;
  dark: boolean;
  label: string;
}

/**
 * CodeMirror 6 with TypeScript highlighting. Loaded on demand (see ScriptEditor): the first page
 * never pays for it. The editor owns its text while it is open; a new `value` from outside (a run
 * loaded again) replaces it.
 */
export default function CodeEditor({ value, onChange, dark, label }: CodeEditorProps) {
  const box = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const changed = useRef(onChange);
  changed.current = onChange;

  // biome-ignore lint/correctness/useExhaustiveDependencies: made once per theme; value is synced below
  useEffect(() => {
    if (!box.current) return;
    const editor = new EditorView({
      doc: value,
      parent: box.current,
      extensions: [
        basicSetup,
        javascript({ typescript: true }),
        ...(dark ? [oneDark] : []),
        EditorView.contentAttributes.of({ "aria-label": label }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) changed.current(update.state.doc.toString());
        }),
      ],
    });
    view.current = editor;
    return () => {
      editor.destroy();
      view.current = null;
    };
  }, [dark]);

  useEffect(() => {
    const editor = view.current;
    if (editor && editor.state.doc.toString() !== value) {
      editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value } });
    }
  }, [value]);

  return <div ref={box} className="code-editor" data-testid="script-code" />;
}
