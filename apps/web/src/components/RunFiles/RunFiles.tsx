import { type KeptRunFile, multipartFiles, type Scenario, tlsFiles } from "@volley/protocol";
import { useState } from "react";
import { formatBytes } from "../../format/format.js";

/**
 * A file a scenario names: a feeder's (sent as text), a multipart body's or a TLS certificate,
 * key or CA (sent as base64).
 */
export interface NeededFile {
  name: string;
  kind: "feeder" | "attachment" | "certificate";
}

export interface RunFileContents {
  /** Feeder files' text, by name. */
  files: Record<string, string>;
  /** Multipart files, base64, by name. */
  attachments: Record<string, string>;
}

/** The files kept with the run being run again: sent again unless another is chosen. */
export interface KeptFiles {
  runId: string;
  files: KeptRunFile[];
}

interface RunFilesProps {
  needed: NeededFile[];
  contents: RunFileContents;
  kept?: KeptFiles | null;
  onChange: (contents: RunFileContents) => void;
}

const FILE_KIND_LABELS: Record<NeededFile["kind"], string> = {
  feeder: "(test data)",
  attachment: "(multipart file)",
  certificate: "(certificate)",
};

/** Whether the file was chosen here. */
export function isChosen(file: NeededFile, contents: RunFileContents): boolean {
  return file.kind === "feeder" ? file.name in contents.files : file.name in contents.attachments;
}

/** The kept file that stands in for a needed one not chosen here, if any. */
export function keptFile(file: NeededFile, kept: KeptFiles | null | undefined): KeptRunFile | undefined {
  return kept?.files.find((k) => k.kind === file.kind && k.name === file.name);
}

/** The files a scenario names (`data.*.file`, multipart files), chosen from this computer. */
export function RunFiles({ needed, contents, kept, onChange }: RunFilesProps) {
  const [error, setError] = useState<string | null>(null);
  if (needed.length === 0) return null;
  const choose = async (file: NeededFile, chosen: File | undefined) => {
    if (!chosen) return;
    setError(null);
    if (chosen.size > 50 * 1024 * 1024) {
      setError(`${chosen.name} is larger than 50 MiB`);
      return;
    }
    if (file.kind === "feeder") {
      onChange({ ...contents, files: { ...contents.files, [file.name]: await chosen.text() } });
    } else {
      const bytes = new Uint8Array(await chosen.arrayBuffer());
      let binary = "";
      for (let i = 0; i < bytes.length; i += 0x8000) {
        binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
      }
      onChange({ ...contents, attachments: { ...contents.attachments, [file.name]: btoa(binary) } });
    }
  };
  return (
    <fieldset className="run-files" data-testid="run-files">
      <legend>Files</legend>
      <p className="field-note">The scenario names these files: choose each one to send it with the run.</p>
      {needed.map((file) => {
        const chosen = isChosen(file, contents);
        const stored = chosen ? undefined : keptFile(file, kept);
        const state = chosen
          ? " ready"
          : stored
            ? ` kept with the earlier run (${formatBytes(stored.bytes)}): sent again unless you choose another`
            : " not chosen yet";
        return (
          <label key={`${file.kind}-${file.name}`} className="run-file">
            <span>
              <code>{file.name}</code> {FILE_KIND_LABELS[file.kind]}
              <span className={chosen || stored ? "good" : "bad"}>{state}</span>
            </span>
            <input
              type="file"
              aria-label={`Choose ${file.name}`}
              onChange={(e) => void choose(file, e.target.files?.[0])}
            />
          </label>
        );
      })}
      {error && <span className="field-error">{error}</span>}
    </fieldset>
  );
}

/**
 * The files a valid scenario names, for the upload list: feeders' and multipart bodies', from the
 * same layout the master reads (every part, flow, group and repeat).
 */
export function neededFiles(scenario: Scenario | null): NeededFile[] {
  if (!scenario) return [];
  const out: NeededFile[] = [];
  const add = (name: string, kind: NeededFile["kind"]) => {
    if (!out.some((f) => f.name === name && f.kind === kind)) out.push({ name, kind });
  };
  for (const feeder of Object.values(scenario.data)) if (feeder.file) add(feeder.file, "feeder");
  for (const request of scenario.requests)
    for (const file of multipartFiles(request)) add(file, "attachment");
  for (const { file } of tlsFiles(scenario.http)) add(file, "certificate");
  return out;
}
