import { z } from "zod";
import { positiveDurationSchema } from "../duration.js";

// `http.tls`, `http.origins`, `http.hosts` and `http.dns`: how connections are made. Certificate
// files travel with the run as attachments (like multipart files); the master parses them when
// the run is created, so a bad file is a 400 naming its field, never a stream of failed connects.

/** Largest certificate, key, CA bundle or PKCS#12 file. */
export const MAX_TLS_FILE_BYTES = 1024 * 1024;

const fileName = z
  .string()
  .min(1)
  .max(500)
  .refine((name) => !name.includes("\0"), { error: "must be a file name" });

/** A passphrase written in the scenario, or `{{env.NAME}}` (kept out of the stored scenario). */
const ENV_PASSPHRASE_RE = /^\{\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$/;

export const tlsSettingsSchema = z
  .strictObject({
    /** Client certificate (PEM file; with its chain after it). */
    cert: fileName.optional(),
    /** The client certificate's private key (PEM file). */
    key: fileName.optional(),
    /** CA bundle(s) (PEM) that replace the system's trust for this target. */
    ca: z.union([fileName, z.array(fileName).min(1).max(20)]).optional(),
    /** Client certificate and key as PKCS#12 (instead of cert and key). */
    pfx: fileName.optional(),
    /** Of `key` or `pfx`: a string, or `{{env.NAME}}` (read from the run's env). */
    passphrase: z.string().min(1).max(1024).optional(),
    minVersion: z
      .enum(["TLSv1.2", "TLSv1.3"], { error: 'minVersion must be "TLSv1.2" or "TLSv1.3"' })
      .optional(),
    /** The name sent in SNI and checked against the certificate (default: the URL's host). */
    servername: z
      .string()
      .min(1)
      .max(253)
      .regex(/^[A-Za-z0-9.-]+$/, { error: "servername must be a host name" })
      .optional(),
  })
  .superRefine((tls, ctx) => {
    if ((tls.cert === undefined) !== (tls.key === undefined)) {
      ctx.addIssue({
        code: "custom",
        path: [tls.cert === undefined ? "cert" : "key"],
        message: "cert and key go together (a client certificate needs its key)",
      });
    }
    if (tls.pfx !== undefined && tls.cert !== undefined) {
      ctx.addIssue({ code: "custom", path: ["pfx"], message: "give pfx or cert and key, not both" });
    }
  });
export type TlsSettings = z.output<typeof tlsSettingsSchema>;

const ORIGIN_KEY_RE = /^(https|wss|grpcs):\/\/(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?\/?$/;

/** An origin as `http.origins` keys it: `https://host[:port]` (or wss://, grpcs://). */
const originKeySchema = z.string().max(300).regex(ORIGIN_KEY_RE, {
  error: "an origin key is https://host[:port] (or wss://, grpcs://), nothing after it",
});

/** `host:port` of a TLS origin, whatever its scheme (https, wss and grpcs to one server share it). */
export function tlsOriginKey(host: string, port: number | string): string {
  const bare = host.startsWith("[") ? host.slice(1, -1) : host;
  return `${bare.toLowerCase()}:${Number(port) || 443}`;
}

function originKeyOf(key: string): string {
  const match = ORIGIN_KEY_RE.exec(key) as RegExpExecArray;
  return tlsOriginKey(match[2], match[3] ?? 443);
}

/** Settings for one origin; for now its TLS (replacing `http.tls` there, not merged). */
export const originSettingsSchema = z.strictObject({ tls: tlsSettingsSchema });

const IPV4 = z.ipv4();
const IPV6 = z.ipv6();
const ipSchema = z
  .string()
  .max(64)
  .refine((value) => IPV4.safeParse(value).success || IPV6.safeParse(value).success, {
    error: "must be an IPv4 or IPv6 address",
  });

/** `name` or `*.suffix`: what `http.hosts` maps. */
const hostPatternSchema = z
  .string()
  .max(253)
  .regex(/^(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*$/, {
    error: "a hosts entry is a host name or *.domain (a wildcard covers its subdomains)",
  });

export const hostsSchema = z
  .record(hostPatternSchema, z.union([ipSchema, z.array(ipSchema).min(1).max(64)]))
  .refine((hosts) => Object.keys(hosts).length <= 1000, { error: "at most 1000 hosts entries" })
  .transform((hosts) =>
    Object.fromEntries(
      Object.entries(hosts).map(([name, to]) => [name.toLowerCase(), Array.isArray(to) ? to : [to]]),
    ),
  );

export const dnsSettingsSchema = z.strictObject({
  /** How long a resolved name is reused before it is resolved again. @defaultValue "5m" */
  ttl: positiveDurationSchema.default(300_000),
  /**
   * Name servers to ask instead of the system's resolver (`ip` or `ip:port`, IPv6 as `[ip]:port`):
   * a test DNS, or one that answers differently from the machine's.
   */
  servers: z
    .array(
      z
        .string()
        .max(60)
        .refine(
          (server) => {
            const match = /^\[([^\]]+)\](?::(\d{1,5}))?$|^([^:]+)(?::(\d{1,5}))?$|^([0-9a-fA-F:]+)$/.exec(
              server,
            );
            if (!match) return false;
            const address = match[1] ?? match[3] ?? match[5];
            const port = Number(match[2] ?? match[4] ?? 53);
            return (
              (IPV4.safeParse(address).success || IPV6.safeParse(address).success) &&
              port >= 1 &&
              port <= 65535
            );
          },
          { error: "a DNS server is an IP address, with :port if not 53 ([v6]:port for IPv6)" },
        ),
    )
    .min(1)
    .max(4)
    .optional(),
  /** Which of a name's addresses a new connection takes. @defaultValue "round-robin" */
  select: z
    .enum(["round-robin", "first", "random"], { error: 'select must be "round-robin", "first" or "random"' })
    .default("round-robin"),
});
export type DnsSettings = z.output<typeof dnsSettingsSchema>;

/** Most source addresses `http.localAddresses` may expand to. */
export const MAX_LOCAL_ADDRESSES = 1024;

const ipv4ToInt = (ip: string) => ip.split(".").reduce((n, part) => n * 256 + Number(part), 0);
const intToIpv4 = (n: number) => [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join(".");

/** `["127.0.0.2", "127.0.0.10-127.0.0.40"]` as the addresses it names, in order, once each. */
export function expandLocalAddresses(entries: readonly string[]): string[] {
  const out = new Set<string>();
  for (const entry of entries) {
    const [from, to] = entry.split("-");
    if (to === undefined) {
      out.add(from);
      continue;
    }
    for (let n = ipv4ToInt(from); n <= ipv4ToInt(to) && out.size <= MAX_LOCAL_ADDRESSES; n++)
      out.add(intToIpv4(n));
  }
  return [...out];
}

const localAddressEntrySchema = z
  .string()
  .max(100)
  .superRefine((entry, ctx) => {
    const [from, to, more] = entry.split("-");
    if (to === undefined) {
      if (!IPV4.safeParse(from).success && !IPV6.safeParse(from).success) {
        ctx.addIssue({ code: "custom", message: `"${entry}" is not an IP address (or an IPv4 range a-b)` });
      }
      return;
    }
    if (more !== undefined || !IPV4.safeParse(from).success || !IPV4.safeParse(to).success) {
      ctx.addIssue({ code: "custom", message: `"${entry}" is not an IPv4 range (first-last)` });
    } else if (ipv4ToInt(to) < ipv4ToInt(from)) {
      ctx.addIssue({ code: "custom", message: `"${entry}": the range ends before it starts` });
    }
  });

/** The `http` fields about connections, spread into the http settings schema. */
export const networkSettingsShape = {
  /** TLS for every https/wss/grpcs origin: client certificate, CA, min version, SNI name. */
  tls: tlsSettingsSchema.optional(),
  /** Per-origin settings: `{ "https://host:8443": { tls } }`. */
  origins: z
    .record(originKeySchema, originSettingsSchema)
    .refine((origins) => Object.keys(origins).length <= 100, { error: "at most 100 origins" })
    .optional(),
  /** Host name overrides: `{ "api.example.com": "127.0.0.2", "*.example.com": [...] }`. */
  hosts: hostsSchema.optional(),
  /**
   * Source addresses new connections are spread over (round-robin): one machine may then hold
   * more connections to one target ip:port than one address has ephemeral ports.
   */
  localAddresses: z
    .array(localAddressEntrySchema)
    .min(1)
    .max(64)
    .refine((entries) => expandLocalAddresses(entries).length <= MAX_LOCAL_ADDRESSES, {
      error: `localAddresses name more than ${MAX_LOCAL_ADDRESSES} addresses`,
    })
    .refine((entries) => new Set(entries.map((entry) => entry.includes(":"))).size === 1, {
      error: "localAddresses mix IPv4 and IPv6: a connection's source and target are of one family",
    })
    .optional(),
  /**
   * An HTTP forward proxy for every connection (`http://[user:pass@]host:port`): plain HTTP in
   * absolute form, HTTPS, WebSocket and gRPC through CONNECT. Absent: the worker's
   * `HTTPS_PROXY`/`HTTP_PROXY` and `NO_PROXY` when set; `false`: none, whatever they say.
   */
  proxy: z
    .union([
      z.literal(false),
      z
        .string()
        .max(2000)
        .refine(
          (value) => {
            try {
              const url = new URL(value);
              return url.protocol === "http:" && (url.pathname === "/" || url.pathname === "") && !url.search;
            } catch {
              return false;
            }
          },
          { error: "proxy is http://[user:password@]host:port (an HTTP forward proxy), or false" },
        ),
    ])
    .optional(),
  /** How names are resolved (off the request path, cached per engine thread). */
  dns: dnsSettingsSchema.prefault({}),
};

/** The http settings' TLS blocks with where each is written: `http.tls`, then each origin's. */
export function tlsSettings(http: {
  tls?: TlsSettings;
  origins?: Record<string, { tls?: TlsSettings }>;
}): Array<{ tls: TlsSettings; path: Array<string | number> }> {
  const out: Array<{ tls: TlsSettings; path: Array<string | number> }> = [];
  if (http.tls) out.push({ tls: http.tls, path: ["http", "tls"] });
  for (const [origin, settings] of Object.entries(http.origins ?? {})) {
    if (settings.tls) out.push({ tls: settings.tls, path: ["http", "origins", origin, "tls"] });
  }
  return out;
}

/** Every certificate file the http settings name, with the field that names it. */
export function tlsFiles(
  http: Parameters<typeof tlsSettings>[0],
): Array<{ file: string; path: Array<string | number>; role: "cert" | "key" | "ca" | "pfx" }> {
  const out: Array<{ file: string; path: Array<string | number>; role: "cert" | "key" | "ca" | "pfx" }> = [];
  for (const { tls, path: at } of tlsSettings(http)) {
    for (const role of ["cert", "key", "pfx"] as const) {
      const file = tls[role];
      if (file !== undefined) out.push({ file, path: [...at, role], role });
    }
    const cas = tls.ca === undefined ? [] : Array.isArray(tls.ca) ? tls.ca : [tls.ca];
    for (const [i, file] of cas.entries()) {
      out.push({ file, path: Array.isArray(tls.ca) ? [...at, "ca", i] : [...at, "ca"], role: "ca" });
    }
  }
  return out;
}

/** The env name a `{{env.NAME}}` passphrase reads, or null for a written one. */
export function passphraseEnvName(passphrase: string | undefined): string | null {
  return passphrase === undefined ? null : (ENV_PASSPHRASE_RE.exec(passphrase)?.[1] ?? null);
}

/** The passphrase to use: the env value a `{{env.NAME}}` names, else as written. */
export function resolvePassphrase(
  passphrase: string | undefined,
  env: Readonly<Record<string, string>>,
): string | undefined {
  const name = passphraseEnvName(passphrase);
  return name === null ? passphrase : env[name];
}

/** The TLS settings that apply to a server: its own under `http.origins`, else `http.tls`. */
export function tlsFor(
  http: { tls?: TlsSettings; origins?: Record<string, { tls: TlsSettings }> },
  host: string,
  port: number | string,
): TlsSettings | undefined {
  const key = tlsOriginKey(host, port);
  for (const [origin, settings] of Object.entries(http.origins ?? {})) {
    if (originKeyOf(origin) === key) return settings.tls;
  }
  return http.tls;
}
