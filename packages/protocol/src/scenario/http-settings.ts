import { z } from "zod";
import { durationSchema, positiveDurationSchema } from "../duration.js";
import { tracingSettingsSchema } from "../stats/traces.js";
import { networkSettingsShape } from "./network-settings.js";

/** What a response body may keep for captures and expectations unless `http.maxBodyBytes` says. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
const MAX_BODY_BYTES = 256 * 1024 * 1024;

/** A scenario's `http` block: connections, bodies, cookies, redirects, compression, the client. */
export const httpSettingsSchema = z
  .strictObject({
    /** Idle keep-alive sockets are closed after this long. @defaultValue "4s" */
    keepAliveTimeout: durationSchema.default(4000),
    connectTimeout: positiveDurationSchema.default(10_000),
    /** Most connections per thread; by default one per request its VUs may have in flight. */
    maxConnections: z.int().min(1).max(1_000_000).optional(),
    /**
     * Requests one scripted VU may have in flight at once (`Promise.all`, `vu.http.batch`),
     * each on a connection of its own, like a browser; more wait (`timings.blocked`).
     * @defaultValue 6
     */
    maxConnectionsPerVu: z.int().min(1).max(100).default(6),
    /** Accept any TLS certificate (self-signed test servers). @defaultValue false */
    insecureTls: z.boolean().default(false),
    /**
     * Most bytes of a response body kept for captures and `expect.body`; past it the request
     * fails (kind `expect`) and the rest is read and discarded. @defaultValue 1048576 (1 MiB)
     */
    maxBodyBytes: z.int().min(1).max(MAX_BODY_BYTES).default(DEFAULT_MAX_BODY_BYTES),
    /**
     * One cookie jar per VU: Set-Cookie is kept and sent back (`false`: none). `{ reset:
     * iteration }` empties each VU's jar at every iteration (k6's default); `{ reset: vu }`
     * keeps it for the VU's life. @defaultValue true (kept per VU)
     */
    cookies: z
      .union([z.boolean(), z.strictObject({ reset: z.enum(["vu", "iteration"]) })], {
        error: 'cookies must be true, false, or { reset: "vu" | "iteration" }',
      })
      .default(true),
    /** Redirects followed per request (each hop is a request of the same name); 0 = off. @defaultValue 0 */
    followRedirects: z.int().min(0).max(20).default(0),
    /** Ask for gzip, br or deflate and decode before captures and expectations. @defaultValue false */
    compression: z.boolean().default(false),
    /**
     * "1.1" (default); "2": HTTP/2 over TLS (ALPN); "2c": HTTP/2 over plain TCP with prior
     * knowledge (h2c). With HTTP/2, VUs are multiplexed over a few sessions.
     */
    version: z
      .union([z.literal(1.1), z.literal(2), z.literal("1.1"), z.literal("2"), z.literal("2c")], {
        error: 'version must be 1.1, 2 (HTTP/2 over TLS) or "2c" (HTTP/2 over plain TCP)',
      })
      .transform((v) => String(v) as "1.1" | "2" | "2c")
      .default("1.1"),
    /**
     * The client: Volley's own (default; HTTP/1.1 and HTTP/2 written and parsed by hand), or
     * undici's (HTTP/2 through `allowH2`) for comparison.
     */
    client: z.enum(["volley", "undici"], { error: 'client must be "volley" or "undici"' }).default("volley"),
    /**
     * W3C trace context: `{ propagate: w3c, sample, linkTemplate }` sends a `traceparent` on every
     * request (a new trace id each, the sampled flag on `sample` of them) and keeps the slowest
     * requests' and failures' trace ids. Absent: no header, no trace ids.
     */
    tracing: tracingSettingsSchema.optional(),
    ...networkSettingsShape,
  })
  .superRefine((http, ctx) => {
    if (typeof http.proxy === "string" && http.version === "2c") {
      ctx.addIssue({
        code: "custom",
        path: ["proxy"],
        message: 'a proxy does not carry h2c (version "2c"): use version 2 (HTTP/2 over TLS) or no proxy',
      });
    }
  })
  // `cookies` as the engine reads it: on or off, and when each VU's jar is emptied.
  .transform(({ cookies, ...http }) => ({
    ...http,
    cookies: cookies !== false,
    cookieReset: typeof cookies === "object" ? cookies.reset : ("vu" as const),
  }))
  // Every default above, from the one place each is written.
  .prefault({});

export type HttpSettings = z.output<typeof httpSettingsSchema>;
