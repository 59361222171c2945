import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A private CA, a server certificate it signed, and a client certificate it signed (PEM and PKCS#12). */
export interface TestPki {
  caCert: Buffer;
  serverCert: Buffer;
  serverKey: Buffer;
  clientCert: Buffer;
  clientKey: Buffer;
  /** The client certificate and key as PKCS#12, opened by `pfxPassphrase`. */
  clientPfx: Buffer;
  pfxPassphrase: string;
  /** A key that belongs to no certificate here. */
  strayKey: Buffer;
}

/**
 * Makes a throwaway PKI with openssl: the server certificate names `serverNames` (DNS names and
 * IP addresses) and the client certificate's subject is CN=`clientName`.
 */
export function makeTestPki(serverNames: string[], clientName = "volley-client"): TestPki {
  const dir = mkdtempSync(join(tmpdir(), "volley-pki-"));
  const at = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync("openssl", args, { stdio: "ignore" });
  try {
    openssl(
      ...["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=Volley Test CA"],
      ...["-keyout", at("ca.key"), "-out", at("ca.pem")],
    );
    const san = serverNames.map((n) => (/^[\d.]+$|:/.test(n) ? `IP:${n}` : `DNS:${n}`)).join(",");
    writeFileSync(at("server.ext"), `subjectAltName=${san}\n`);
    writeFileSync(at("client.ext"), "extendedKeyUsage=clientAuth\n");
    for (const [who, subject] of [
      ["server", `/CN=${serverNames[0]}`],
      ["client", `/CN=${clientName}`],
    ]) {
      openssl(
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        subject,
        "-keyout",
        at(`${who}.key`),
        "-out",
        at(`${who}.csr`),
      );
      openssl(
        ...["x509", "-req", "-in", at(`${who}.csr`), "-CA", at("ca.pem"), "-CAkey", at("ca.key")],
        ...["-CAcreateserial", "-days", "2", "-extfile", at(`${who}.ext`), "-out", at(`${who}.pem`)],
      );
    }
    const pfxPassphrase = "pfx-secret";
    openssl(
      ...["pkcs12", "-export", "-inkey", at("client.key"), "-in", at("client.pem")],
      ...["-passout", `pass:${pfxPassphrase}`, "-out", at("client.p12")],
    );
    openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", at("stray.key"));
    return {
      caCert: readFileSync(at("ca.pem")),
      serverCert: readFileSync(at("server.pem")),
      serverKey: readFileSync(at("server.key")),
      clientCert: readFileSync(at("client.pem")),
      clientKey: readFileSync(at("client.key")),
      clientPfx: readFileSync(at("client.p12")),
      pfxPassphrase,
      strayKey: readFileSync(at("stray.key")),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
