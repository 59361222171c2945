import { MAX_WORKER_LABELS, parseLabel } from "@volley/protocol";
import { startWorker } from "@volley/worker";
import { intFlag, parseFlags, readFlagFile, TOKEN_FLAGS, tokenFlag } from "../args.js";
import { UsageError } from "../cli-error.js";
import { waitForSignal } from "../wait-for-signal.js";

export const WORKER_HELP = `Usage: volley worker --master URL [options]

Joins a master and runs the load it is given. Reconnects by itself.

Options:
  --master URL   the master, e.g. http://10.0.0.5:8089 (required)
  --token T      the master's token (default VOLLEY_TOKEN)
  --token-file F read the token from F's first line (not shown in ps)
  --master-ca F  an https:// master's CA certificate (PEM file) to trust
  --master-fingerprint SHA256
                 pin an https:// master's certificate by its SHA-256 fingerprint
                 (default VOLLEY_MASTER_FINGERPRINT)
  --threads N    engine threads (default: cores)
  --name NAME    name shown on the dashboard (default: hostname-pid)
  --label K=V    a label scenarios pick workers by (workers: { selector: { K: V } });
                 repeat for more (default VOLLEY_LABELS, e.g. "pool=eu,tier=big")
  -h, --help     this help

Environment: REDIS_URL (where stats go; by default the one the master names, else 127.0.0.1:6379).`;

export async function workerCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, {
    master: { type: "string" },
    ...TOKEN_FLAGS,
    threads: { type: "string" },
    "master-ca": { type: "string" },
    "master-fingerprint": { type: "string" },
    name: { type: "string" },
    label: { type: "string", multiple: true },
    local: { type: "boolean" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    console.log(WORKER_HELP);
    return 0;
  }
  if (!values.master) throw new UsageError("--master URL is required");
  const node = startWorker({
    masterUrl: values.master,
    token: tokenFlag(values),
    masterTls: masterTls(
      values["master-ca"],
      values["master-fingerprint"] ?? (process.env.VOLLEY_MASTER_FINGERPRINT || undefined),
    ),
    threads: intFlag("threads", values.threads, 1, 1024),
    name: values.name,
    labels: values.label ? labelFlags(values.label) : undefined,
    local: values.local,
  });
  const signal = waitForSignal().then(() => node.shutdown());
  // A local worker (started by a master with an IPC channel) ends with its master.
  const orphaned = new Promise<void>((resolve) => {
    if (process.send) process.once("disconnect", () => resolve(node.shutdown(5000)));
  });
  await Promise.race([signal, orphaned, node.whenStopped()]);
  return 0;
}

/** `--label K=V`, repeated: the labels, or exit 2 naming the bad one. */
function labelFlags(flags: string[]): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const flag of flags) {
    const pair = parseLabel(flag);
    if (typeof pair === "string") throw new UsageError(`--label: ${pair}`);
    labels[pair[0]] = pair[1];
  }
  if (Object.keys(labels).length > MAX_WORKER_LABELS)
    throw new UsageError(`--label: at most ${MAX_WORKER_LABELS} labels`);
  return labels;
}

/** The TLS of an https:// master's link, from the flags; the CA file read here (exit 2 when it cannot be). */
function masterTls(caFile: string | undefined, fingerprint: string | undefined) {
  if (caFile === undefined && fingerprint === undefined) return undefined;
  const ca = caFile === undefined ? undefined : readFlagFile("master-ca", caFile);
  return { ca, fingerprint };
}
