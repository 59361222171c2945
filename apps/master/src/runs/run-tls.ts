import { X509Certificate } from "node:crypto";
import { createSecureContext } from "node:tls";
import {
  formatPath,
  MAX_TLS_FILE_BYTES,
  passphraseEnvName,
  resolvePassphrase,
  type Scenario,
  type TlsSettings,
  tlsFiles,
  tlsSettings,
  type ValidationIssue,
} from "@volley/protocol";

/**
 * The certificate files a run takes (base64, by name), each checked here, before anything is
 * written: sent, not too large, and parsed with the settings that name it (a key that does not
 * match its certificate, a wrong passphrase or a file that is not PEM/PKCS#12 is a 400 naming the
 * field, not a stream of failed connects on every worker).
 */
export function runCertificates(
  scenario: Scenario,
  attachments: Readonly<Record<string, string>>,
  env: Readonly<Record<string, string>>,
): { certificates: Record<string, string>; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const certificates: Record<string, string> = {};
  const bytes = new Map<string, Buffer>();
  for (const { file, path } of tlsFiles(scenario.http)) {
    const at = formatPath(path);
    if (!Object.hasOwn(attachments, file)) {
      issues.push({
        path: at,
        message: `${file} was not sent with the scenario (volley run sends it; the API takes it in "attachments", base64)`,
      });
    } else if ((attachments[file].length * 3) / 4 > MAX_TLS_FILE_BYTES + 3) {
      issues.push({ path: at, message: `${file} is larger than ${MAX_TLS_FILE_BYTES / 1024 / 1024} MiB` });
    } else {
      certificates[file] = attachments[file];
      bytes.set(file, Buffer.from(attachments[file], "base64"));
    }
  }
  if (issues.length > 0) return { certificates, issues };
  for (const { tls, path } of tlsSettings(scenario.http)) {
    const at = formatPath(path);
    const name = passphraseEnvName(tls.passphrase);
    if (name !== null && !scenario.env.includes(name)) {
      issues.push({
        path: `${at}.passphrase`,
        message: `{{env.${name}}}: list ${name} in the scenario's env`,
      });
      continue;
    }
    const problem = tlsProblem(
      tls,
      (file) => bytes.get(file) as Buffer,
      resolvePassphrase(tls.passphrase, env),
    );
    if (problem) issues.push({ path: `${at}.${problem.field}`, message: problem.message });
  }
  return { certificates, issues };
}

const PEM_CERTIFICATE_RE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** What is wrong with a TLS setting's files, by the field to name; null when they load. */
function tlsProblem(
  tls: TlsSettings,
  read: (file: string) => Buffer,
  passphrase: string | undefined,
): { field: string; message: string } | null {
  const cas = tls.ca === undefined ? [] : Array.isArray(tls.ca) ? tls.ca : [tls.ca];
  for (const file of cas) {
    const blocks = read(file).toString("latin1").match(PEM_CERTIFICATE_RE) ?? [];
    if (blocks.length === 0) return { field: "ca", message: `${file} holds no PEM certificate` };
    // Each one parsed: a secure context takes a CA bundle with a broken block without a word.
    for (const [i, block] of blocks.entries()) {
      try {
        new X509Certificate(block);
      } catch (error) {
        const which = blocks.length > 1 ? `certificate ${i + 1} of ${file}` : file;
        return { field: "ca", message: `${which} does not parse as a certificate (${reason(error)})` };
      }
    }
  }
  if (tls.pfx !== undefined) {
    try {
      createSecureContext({ pfx: read(tls.pfx), passphrase });
    } catch (error) {
      const wrong = /mac verify|bad decrypt|invalid password/i.test(reason(error));
      return {
        field: wrong ? "passphrase" : "pfx",
        message: wrong
          ? `${tls.pfx}: the passphrase does not open it`
          : `${tls.pfx} does not parse as PKCS#12 (${reason(error)})`,
      };
    }
  }
  if (tls.cert !== undefined && tls.key !== undefined) {
    try {
      createSecureContext({ cert: read(tls.cert) });
    } catch (error) {
      return { field: "cert", message: `${tls.cert} does not parse as a PEM certificate (${reason(error)})` };
    }
    try {
      createSecureContext({ cert: read(tls.cert), key: read(tls.key), passphrase });
    } catch (error) {
      const text = reason(error);
      const message = /mismatch/i.test(text)
        ? `${tls.key} is not the key of ${tls.cert}`
        : /bad decrypt|bad password|passphrase/i.test(text)
          ? `${tls.key} is encrypted: the passphrase is missing or does not open it`
          : `${tls.key} does not parse as a PEM private key (${text})`;
      return { field: /passphrase/.test(message) && tls.passphrase ? "passphrase" : "key", message };
    }
  }
  return null;
}

/** OpenSSL's reason without its error-code prefix. */
function reason(error: unknown): string {
  const message = (error as Error).message ?? String(error);
  return message.replace(/^error:[0-9A-F]+:[^:]*:[^:]*:/i, "").trim();
}
