import type { OidcOptions } from "@volley/master";
import { intFlag, parseFlags, readFlagFile, TOKEN_FLAGS, tokenFlag } from "../args.js";
import { UsageError } from "../cli-error.js";
import { waitForSignal } from "../wait-for-signal.js";
import { localWorkerCommand } from "../worker-command.js";

export const MASTER_HELP = `Usage: volley master [options]

Starts the master: API and dashboard, worker socket, stats consumer.

Options:
  --port N               API and dashboard port (default 8089)
  --host H               address to listen on (default 127.0.0.1)
  --local-workers N      worker processes to start on this machine (default 0)
  --threads N            threads of each local worker (default 1)
  --max-local-workers N  most local workers at once (default: cores)
  --token T              shared secret of workers and API clients (default VOLLEY_TOKEN);
                         required when listening beyond loopback; once set, every API
                         call needs it, on loopback too
  --tls-cert F           serve HTTPS/WSS with this certificate (PEM); with --tls-key
  --tls-key F            workers join with https:// and --master-ca or --master-fingerprint
  --token-file F         read the token from F's first line (a --token shows in ps)
  --env-from-master NAME a run's env may read NAME from this master's environment when
                         the run does not send it (repeatable; default VOLLEY_ENV_FROM_MASTER);
                         nothing else of the master's environment reaches a run
  --allowed-hosts LIST   host names (Host header) to answer besides loopback names, comma-
                         separated (default VOLLEY_ALLOWED_HOSTS); a loopback master answers
                         only its loopback names, so a rebound DNS name cannot reach it
  --worker-host H        a second listener for workers only (e.g. 0.0.0.0), so the
  --worker-port N          dashboard can stay on loopback
  --heartbeat-timeout S  seconds of silence before a worker is lost (default 5)
  --keep-seconds-days N  keep finished runs' per-second statistics (exact windows) N days;
                         totals and time series stay (default 0: forever)
  --webhook URL          POST run.finished to URL when a run ends (repeatable); signed with
                         x-volley-signature: sha256=HMAC(token, body) when a token is set
  --otlp URL             push the running run's metrics over OTLP/HTTP every 10 s
                         (http://collector:4318 or a full .../v1/metrics URL)
  --oidc-issuer URL      sign-in through this OpenID Connect provider (authorization code +
  --oidc-client-id ID      PKCE), with --oidc-client-secret; needs --token. Register
  --oidc-client-secret S   <master URL>/api/session/oidc/callback as the redirect URI
  --oidc-client-secret-file F  read the client secret from F's first line
  --oidc-role-claim NAME the claim holding the role(s) (default roles; a.b reaches into
                         an object claim, as Keycloak's realm_access.roles)
  --oidc-role VALUE=ROLE a claim value and the role it gives (repeatable; default: the
                         values viewer, tester, admin); a user with none is refused
  --oidc-redirect-url U  the callback URL as the provider knows it (behind a proxy)
  -h, --help             this help

Environment: REDIS_URL, DATABASE_URL (file:... SQLite, postgresql://... PostgreSQL), VOLLEY_TOKEN,
VOLLEY_OTLP_URL (as --otlp; OTEL_EXPORTER_OTLP_HEADERS adds headers to the push), VOLLEY_OIDC_ISSUER,
VOLLEY_OIDC_CLIENT_ID, VOLLEY_OIDC_CLIENT_SECRET, VOLLEY_OIDC_ROLE_CLAIM, VOLLEY_OIDC_ROLES (as --oidc-role,
comma-separated), VOLLEY_OIDC_REDIRECT_URL.`;

export async function masterCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, {
    port: { type: "string" },
    host: { type: "string" },
    "local-workers": { type: "string" },
    threads: { type: "string" },
    "max-local-workers": { type: "string" },
    ...TOKEN_FLAGS,
    "worker-host": { type: "string" },
    "allowed-hosts": { type: "string" },
    "worker-port": { type: "string" },
    "heartbeat-timeout": { type: "string" },
    webhook: { type: "string", multiple: true },
    "env-from-master": { type: "string", multiple: true },
    "tls-cert": { type: "string" },
    "tls-key": { type: "string" },
    otlp: { type: "string" },
    "keep-seconds-days": { type: "string" },
    "oidc-issuer": { type: "string" },
    "oidc-client-id": { type: "string" },
    "oidc-client-secret": { type: "string" },
    "oidc-client-secret-file": { type: "string" },
    "oidc-role-claim": { type: "string" },
    "oidc-role": { type: "string", multiple: true },
    "oidc-redirect-url": { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    console.log(MASTER_HELP);
    return 0;
  }
  // Loaded past --help: `volley master --help` stays instant (the master is most of the CLI).
  const { parseRoleMap, startMaster } = await import("@volley/master");
  const workerPort = intFlag("worker-port", values["worker-port"], 1, 65535);
  if ((values["worker-host"] === undefined) !== (workerPort === undefined)) {
    throw new UsageError("--worker-host and --worker-port go together");
  }
  const master = await startMaster({
    port: intFlag("port", values.port, 0, 65535),
    host: values.host,
    localWorkers: intFlag("local-workers", values["local-workers"], 0, 256),
    localWorkerThreads: intFlag("threads", values.threads, 1, 256),
    maxLocalWorkers: intFlag("max-local-workers", values["max-local-workers"], 0, 1024),
    token: tokenFlag(values),
    allowedHosts: values["allowed-hosts"]
      ?.split(",")
      .map((h) => h.trim())
      .filter(Boolean),
    workerListener: values["worker-host"]
      ? { host: values["worker-host"], port: workerPort as number }
      : undefined,
    heartbeatTimeoutMs: (intFlag("heartbeat-timeout", values["heartbeat-timeout"], 1, 3600) ?? 5) * 1000,
    workerCommand: localWorkerCommand(),
    webhooks: values.webhook,
    envFromMaster: values["env-from-master"],
    tls: tlsFiles(values["tls-cert"], values["tls-key"]),
    otlpUrl: values.otlp,
    keepSecondsDays: intFlag("keep-seconds-days", values["keep-seconds-days"], 0, 36_500),
    oidc: oidcFlags(values, parseRoleMap),
  });
  console.log(`Volley master on ${master.url}`);
  await waitForSignal();
  await master.close();
  return 0;
}

/** The `--oidc-*` flags; what they leave out comes from `VOLLEY_OIDC_*` (resolveOidc). */
function oidcFlags(
  values: Record<string, string | string[] | boolean | undefined>,
  parseRoleMap: (entries: string[]) => OidcOptions["roles"],
): OidcOptions | undefined {
  const flag = (name: string) => values[`oidc-${name}`] as string | undefined;
  if (flag("client-secret") !== undefined && flag("client-secret-file") !== undefined) {
    throw new UsageError("--oidc-client-secret and --oidc-client-secret-file: give one");
  }
  const file = flag("client-secret-file");
  const secret =
    file === undefined
      ? flag("client-secret")
      : readFlagFile("oidc-client-secret-file", file).split("\n")[0].trim();
  const roles = values["oidc-role"] as string[] | undefined;
  const given = {
    issuer: flag("issuer"),
    clientId: flag("client-id"),
    clientSecret: secret,
    roleClaim: flag("role-claim"),
    roles: roles ? parseRoleMap(roles) : undefined,
    redirectUrl: flag("redirect-url"),
  };
  return Object.values(given).some((value) => value !== undefined) ? (given as OidcOptions) : undefined;
}

/** The master's certificate and key files, read (exit 2 when either is missing or unreadable). */
function tlsFiles(cert: string | undefined, key: string | undefined) {
  if (cert === undefined && key === undefined) return undefined;
  if (cert === undefined || key === undefined) throw new UsageError("--tls-cert and --tls-key go together");
  return { cert: readFlagFile("tls-cert", cert), key: readFlagFile("tls-key", key) };
}
