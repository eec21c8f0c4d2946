/**
 * A throwaway certificate authority for tests, made at test time with the system's
 * `openssl` (EC P-256 keys, valid for two days): its root, to pass as a webhook delivery's
 * `caCerts`, and server certificates it signs for the names and IP addresses a test asks for.
 * Nothing is committed: every run has fresh keys.
 */

export interface TestCertificate {
  /** PEM certificate and private key, as `Deno.serve({ cert, key })` takes them. */
  cert: string;
  key: string;
}

export interface TestCa {
  /** The root certificate (PEM). */
  cert: string;
  /** A server certificate signed by this CA, its subjectAltName listing `names`. */
  issue(names: { dns?: string[]; ip?: string[] }): Promise<TestCertificate>;
}

const OPENSSL = "/usr/bin/openssl";
const EC_KEY = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];

async function openssl(dir: string, args: string[]): Promise<void> {
  const { code, stderr } = await new Deno.Command(OPENSSL, { args, cwd: dir, stdout: "null" })
    .output();
  if (code !== 0) {
    throw new Error(`openssl ${args[0]} failed: ${new TextDecoder().decode(stderr)}`);
  }
}

/** Makes a new CA in a temporary directory, removed when the process exits. */
export async function createTestCa(): Promise<TestCa> {
  const dir = await Deno.makeTempDir({ prefix: "test-ca-" });
  await openssl(dir, [
    "req",
    "-x509",
    ...EC_KEY,
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
    "-days",
    "2",
    "-subj",
    "/CN=Trust Profile test CA",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  ]);
  const cert = await Deno.readTextFile(`${dir}/ca.pem`);
  let serial = 0;
  const issue = async (names: { dns?: string[]; ip?: string[] }) => {
    const n = ++serial;
    const alt = [
      ...(names.dns ?? []).map((name) => `DNS:${name}`),
      ...(names.ip ?? []).map((ip) => `IP:${ip}`),
    ];
    await Deno.writeTextFile(
      `${dir}/leaf${n}.ext`,
      [
        `subjectAltName=${alt.join(",")}`,
        "basicConstraints=critical,CA:FALSE",
        "keyUsage=critical,digitalSignature",
        "extendedKeyUsage=serverAuth",
      ].join("\n"),
    );
    const subject = `/CN=${names.dns?.[0] ?? names.ip?.[0] ?? "test"}`;
    await openssl(dir, [
      "req",
      ...EC_KEY,
      "-keyout",
      `leaf${n}.key`,
      "-out",
      `leaf${n}.csr`,
      "-subj",
      subject,
    ]);
    await openssl(dir, [
      "x509",
      "-req",
      "-in",
      `leaf${n}.csr`,
      "-CA",
      "ca.pem",
      "-CAkey",
      "ca.key",
      "-set_serial",
      String(1000 + n),
      "-days",
      "2",
      "-extfile",
      `leaf${n}.ext`,
      "-out",
      `leaf${n}.pem`,
    ]);
    return {
      cert: await Deno.readTextFile(`${dir}/leaf${n}.pem`),
      key: await Deno.readTextFile(`${dir}/leaf${n}.key`),
    };
  };
  globalThis.addEventListener("unload", () => {
    try {
      Deno.removeSync(dir, { recursive: true });
    } catch { /* already gone */ }
  });
  return { cert, issue };
}
