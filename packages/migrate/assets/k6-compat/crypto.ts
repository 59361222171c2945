// k6/crypto and k6/encoding over node:crypto and Buffer.
import { createHash, createHmac, randomBytes as nodeRandomBytes } from "node:crypto";

function encode(bytes: Buffer, encoding?: string): string {
  if (encoding === "base64") return bytes.toString("base64");
  if (encoding === "binary") return bytes.toString("latin1");
  return bytes.toString("hex");
}

/** k6/crypto's hasher objects: update() as often as needed, digest() in an encoding. */
function hasher(make: () => ReturnType<typeof createHash> | ReturnType<typeof createHmac>) {
  const hash = make();
  let digest: Buffer | undefined;
  return {
    update(data: string) {
      hash.update(data);
    },
    digest(out?: string) {
      digest ??= hash.digest();
      return encode(digest, out);
    },
  };
}

/** k6/crypto: hashes and HMACs (output "hex", "base64" or "binary"). */
export const crypto = {
  sha384: (data: string, out?: string) => encode(createHash("sha384").update(data).digest(), out),
  createHash: (algorithm: string) => hasher(() => createHash(algorithm)),
  createHMAC: (algorithm: string, key: string) => hasher(() => createHmac(algorithm, key)),
  md5: (data: string, out?: string) => encode(createHash("md5").update(data).digest(), out),
  sha1: (data: string, out?: string) => encode(createHash("sha1").update(data).digest(), out),
  sha256: (data: string, out?: string) => encode(createHash("sha256").update(data).digest(), out),
  sha512: (data: string, out?: string) => encode(createHash("sha512").update(data).digest(), out),
  hmac: (algorithm: string, key: string, data: string, out?: string) =>
    encode(createHmac(algorithm, key).update(data).digest(), out),
  randomBytes: (size: number) => new Uint8Array(nodeRandomBytes(size)).buffer,
};

/** k6/encoding: base64 in its std, rawstd, url and rawurl forms. */
export const encoding = {
  b64encode(input: string | ArrayBuffer, kind?: string): string {
    const bytes = typeof input === "string" ? Buffer.from(input) : Buffer.from(new Uint8Array(input));
    const url = kind === "url" || kind === "rawurl";
    const text = bytes.toString(url ? "base64url" : "base64");
    if (kind === "rawstd" || kind === "rawurl") return text.replace(/=+$/, "");
    return url ? text + "=".repeat((4 - (text.length % 4)) % 4) : text;
  },
  b64decode(input: string, kind?: string | null, format?: string): string | ArrayBuffer {
    const url = kind === "url" || kind === "rawurl";
    const bytes = Buffer.from(input, url ? "base64url" : "base64");
    return format === "s" ? bytes.toString("utf8") : new Uint8Array(bytes).buffer;
  },
};
