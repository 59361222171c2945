import { z } from "zod";

/**
 * Header a worker opens `/ws/worker` with instead of its token: a fresh random nonce. The token
 * itself never crosses the wire, so a fake master at `--master` learns nothing it can use.
 */
export const WORKER_NONCE_HEADER = "x-volley-worker-nonce";
export const NONCE_RE = /^[A-Za-z0-9_-]{22,128}$/;

/**
 * Worker join tokens (`POST /api/worker-tokens`): "vol_wjt_<id>.<secret>". A worker joining with
 * one names its id in this header (never the secret), so the master knows which key to prove.
 */
export const WORKER_TOKEN_PREFIX = "vol_wjt_";
export const WORKER_TOKEN_ID_HEADER = "x-volley-worker-token-id";
export const TOKEN_ID_RE = /^[A-Za-z0-9_-]{8,40}$/;

/**
 * Master → worker, the first message on a socket opened with a nonce: the master's own nonce and
 * its proof that it knows the token (HMAC over both nonces; null when it has no token). The
 * worker checks it before it sends anything else or takes any run, and proves itself in `hello`.
 */
export const masterAuthSchema = z.strictObject({
  type: z.literal("auth"),
  nonce: z.string().regex(NONCE_RE),
  proof: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullable(),
});
export type MasterAuth = z.infer<typeof masterAuthSchema>;
