/**
 * The verifier kit: checks a project's published trust profile without
 * trusting the service that serves it. One module with no imports, served at
 * /verify.ts, so anyone with Deno runs
 *
 *   deno run --allow-net https://trust.example.com/verify.ts acme
 *   deno run --allow-net --allow-read https://trust.example.com/verify.ts \
 *     https://trust.example.com/trust/acme --checkpoint pinned.checkpoint
 *
 * It fetches the JWKS and every listed version's trust.json and JWS, checks
 * each signature (EdDSA, WebCrypto) over the exact bytes, walks the hash chain
 * (`prev` of version n is the digest of version n−1), verifies the log's
 * latest checkpoint (C2SP signed note) with the log's verifier key, checks
 * each version's inclusion proof (RFC 9162 §2.1.3.2) against it, and, with a
 * pinned checkpoint, a consistency proof (§2.1.4.2) that the log only grew
 * since. Any failure exits 1.
 *
 * @module
 */

export function usage(moduleUrl: string): string {
  const module = servedFrom(moduleUrl) ? moduleUrl : "<server>/verify.ts";
  return `Usage: deno run --allow-net ${module} <trust page URL or slug> [options]

Verifies every listed version of a trust profile: JWS signatures against the
service's JWKS, the hash chain between versions, each version's inclusion in
the publication log, and (with --checkpoint) that the log only grew since a
checkpoint you pinned earlier.

Options:
  --server <url>             the service (default: from the URL, else where this file was loaded from)
  --checkpoint <file>        a checkpoint saved earlier (needs --allow-read)
  --save-checkpoint <file>   write the verified latest checkpoint, to pin next time (needs --allow-write)
  --vkey <key>               the log's verifier key, when pinned out of band
                             (default: the one the service publishes at /log)
  help, --help               print this text

Exit status: 0 verified; 1 a check failed; 2 usage error; 3 the service could not be read.`;
}

/** A mistake in the command line: exit status 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** The service could not be read: exit status 3. */
export class FetchError extends Error {
  override name = "FetchError";
}

export interface Options {
  server: string;
  slug: string;
  checkpoint?: string;
  saveCheckpoint?: string;
  vkey?: string;
}

function servedFrom(moduleUrl: string): string | undefined {
  const url = new URL(moduleUrl);
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  return new URL(".", url).href.replace(/\/$/, "");
}

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** Parses the command line; `null` asks for the usage text. */
export function parseArgs(args: string[], moduleUrl: string): Options | null {
  const values = new Map<string, string>();
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "help" || arg === "--help" || arg === "-h") return null;
    if (arg.startsWith("--")) {
      const name = arg.slice(2);
      if (!["server", "checkpoint", "save-checkpoint", "vkey"].includes(name)) {
        throw new UsageError(`Unknown option "${arg}"`);
      }
      const value = args[++i];
      if (value === undefined) throw new UsageError(`${arg} needs a value`);
      values.set(name, value);
    } else positional.push(arg);
  }
  if (positional.length !== 1) throw new UsageError("Name one trust page URL or slug");
  const target = positional[0];
  let server = values.get("server");
  let slug: string;
  if (/^https?:\/\//.test(target)) {
    const url = new URL(target);
    const match = url.pathname.match(/^(.*?)\/trust\/([^/.]+)/);
    if (!match) throw new UsageError(`"${target}" is not a /trust/<slug> page`);
    slug = match[2];
    server ??= `${url.origin}${match[1]}`;
  } else {
    slug = target;
    server ??= servedFrom(moduleUrl);
  }
  if (!SLUG.test(slug)) throw new UsageError(`"${slug}" is not a project slug`);
  if (!server) throw new UsageError("Give a trust page URL or --server");
  return {
    server: server.replace(/\/+$/, ""),
    slug,
    checkpoint: values.get("checkpoint"),
    saveCheckpoint: values.get("save-checkpoint"),
    vkey: values.get("vkey"),
  };
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const standard = text.replace(/-/g, "+").replace(/_/g, "/");
  const padded = standard.padEnd(Math.ceil(standard.length / 4) * 4, "=");
  return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

async function sha256(...parts: Uint8Array[]): Promise<Uint8Array<ArrayBuffer>> {
  const joined = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return new Uint8Array(await crypto.subtle.digest("SHA-256", joined));
}

function hex(bytes: Uint8Array): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

const node = (left: Uint8Array, right: Uint8Array) => sha256(Uint8Array.of(1), left, right);

/** RFC 9162 §2.1.3.2: whether `path` proves `leaf` at `index` in the tree of `size` with `root`. */
export async function verifyInclusion(
  index: number,
  size: number,
  path: Uint8Array[],
  leaf: Uint8Array,
  root: Uint8Array,
): Promise<boolean> {
  if (index >= size) return false;
  let fn = index, sn = size - 1, r = leaf;
  for (const p of path) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = await node(p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else r = await node(r, p);
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && equal(r, root);
}

/** RFC 9162 §2.1.4.2: whether `proof` shows the tree of `m` (`first`) is a prefix of `n` (`second`). */
export async function verifyConsistency(
  m: number,
  n: number,
  proof: Uint8Array[],
  first: Uint8Array,
  second: Uint8Array,
): Promise<boolean> {
  if (m < 1 || m > n) return false;
  if (m === n) return proof.length === 0 && equal(first, second);
  if (proof.length === 0) return false;
  const path = (m & (m - 1)) === 0 ? [first, ...proof] : proof;
  let fn = m - 1, sn = n - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr = path[0], sr = path[0];
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = await node(c, fr);
      sr = await node(c, sr);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else sr = await node(sr, c);
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && equal(fr, first) && equal(sr, second);
}

export interface Checkpoint {
  origin: string;
  size: number;
  root: Uint8Array;
  note: string;
}

/**
 * Verifies a C2SP signed note with an Ed25519 verifier key
 * (`name+hex(key hash)+base64(0x01 || key)`) and reads it as a tlog checkpoint.
 */
export async function verifyCheckpoint(note: string, vkey: string): Promise<Checkpoint> {
  const parts = vkey.trim().match(/^([^+\s]+)\+([0-9a-f]{8})\+([A-Za-z0-9+/]+=*)$/);
  if (!parts) throw new Error("the log's verifier key is malformed");
  const [, name, keyHashHex, keyBase64] = parts;
  const key = fromBase64(keyBase64);
  if (key.length !== 33 || key[0] !== 1) throw new Error("the verifier key is not Ed25519");
  const publicKey = key.slice(1);
  const keyHash = (await sha256(encoder.encode(name), Uint8Array.of(0x0a, 1), publicKey)).slice(
    0,
    4,
  );
  if (hex(keyHash) !== keyHashHex) throw new Error("the verifier key's hash does not match");
  const blank = note.indexOf("\n\n");
  if (blank < 0 || !note.endsWith("\n")) throw new Error("the checkpoint is not a signed note");
  const text = note.slice(0, blank + 1);
  const verifier = await crypto.subtle.importKey("raw", publicKey, "Ed25519", false, ["verify"]);
  let signed = false;
  for (const line of note.slice(blank + 2, -1).split("\n")) {
    const match = line.match(/^\u2014 (\S+) ([A-Za-z0-9+/]+=*)$/);
    if (!match || match[1] !== name) continue;
    const blob = fromBase64(match[2]);
    if (blob.length !== 68 || !equal(blob.slice(0, 4), keyHash)) continue;
    if (await crypto.subtle.verify("Ed25519", verifier, blob.slice(4), encoder.encode(text))) {
      signed = true;
    }
  }
  if (!signed) throw new Error("the checkpoint carries no valid signature by the log's key");
  const [origin, size, root] = text.split("\n");
  if (origin !== name) throw new Error("the checkpoint's origin is not the key's name");
  if (!/^(0|[1-9][0-9]*)$/.test(size)) throw new Error("the checkpoint's tree size is malformed");
  const rootBytes = fromBase64(root);
  if (rootBytes.length !== 32) throw new Error("the checkpoint's root hash is malformed");
  return { origin, size: Number(size), root: rootBytes, note };
}

interface JwsHeader {
  alg?: string;
  kid?: string;
  ver?: number;
  prev?: string | null;
}

/** Verifies a compact JWS with an attached payload; returns its header and payload bytes. */
async function verifyJws(
  jws: string,
  keys: Map<string, CryptoKey>,
): Promise<{ header: JwsHeader; payload: Uint8Array }> {
  const segments = jws.trim().split(".");
  if (segments.length !== 3) throw new Error("the signature is not a compact JWS");
  const header = JSON.parse(decoder.decode(fromBase64(segments[0]))) as JwsHeader;
  if (header.alg !== "EdDSA") throw new Error(`unexpected JWS algorithm "${header.alg}"`);
  const key = keys.get(header.kid ?? "");
  if (!key) throw new Error(`no key "${header.kid}" in the JWKS`);
  const ok = await crypto.subtle.verify(
    "Ed25519",
    key,
    fromBase64(segments[2]),
    encoder.encode(`${segments[0]}.${segments[1]}`),
  );
  if (!ok) throw new Error("the JWS signature does not verify");
  return { header, payload: fromBase64(segments[1]) };
}

/** What the verification reads over the network. */
export interface Io {
  fetch: typeof fetch;
  readTextFile(path: string): Promise<string>;
  writeTextFile(path: string, text: string): Promise<void>;
  out(line: string): void;
}

async function get(io: Io, url: string): Promise<Response> {
  let res: Response;
  try {
    res = await io.fetch(url, { signal: AbortSignal.timeout(30_000) });
  } catch (error) {
    throw new FetchError(`${url}: ${(error as Error).message}`);
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new FetchError(`${url} answered ${res.status}`);
  }
  return res;
}

const getJson = async <T>(io: Io, url: string) => (await (await get(io, url)).json()) as T;
const getBytes = async (io: Io, url: string) =>
  new Uint8Array(await (await get(io, url)).arrayBuffer());

/**
 * Runs every check and prints one line each; returns the number of failures. Throws a
 * FetchError when a document the checks need cannot be read at all.
 */
export async function verify(options: Options, io: Io): Promise<number> {
  const { server, slug } = options;
  let failures = 0;
  const pass = (line: string) => io.out(`ok    ${line}`);
  const fail = (line: string) => {
    failures++;
    io.out(`FAIL  ${line}`);
  };

  const jwks = await getJson<{ keys: Array<{ kty: string; crv: string; x: string; kid: string }> }>(
    io,
    `${server}/.well-known/jwks.json`,
  );
  const keys = new Map<string, CryptoKey>();
  for (const jwk of jwks.keys ?? []) {
    if (jwk.kty !== "OKP" || jwk.crv !== "Ed25519") continue;
    const key = await crypto.subtle.importKey(
      "jwk",
      { kty: jwk.kty, crv: jwk.crv, x: jwk.x },
      "Ed25519",
      false,
      ["verify"],
    );
    keys.set(jwk.kid, key);
  }
  pass(`JWKS: ${keys.size} Ed25519 key(s) from ${server}/.well-known/jwks.json`);

  const page = `${server}/trust/${slug}`;
  const { versions } = await getJson<{ versions: Array<{ version: number; digest: string }> }>(
    io,
    `${page}/versions`,
  );
  const ordered = [...versions].sort((a, b) => a.version - b.version);
  if (ordered.length === 0) throw new FetchError(`${page} has no published version`);
  if (ordered[0].version !== 1) {
    io.out(`note  only versions ${ordered[0].version}..${ordered.at(-1)!.version} are listed`);
  }

  const log = await getJson<{ origin: string; verifierKey: string }>(io, `${server}/log`);
  const vkey = options.vkey ?? log.verifierKey;
  let latest: Checkpoint;
  try {
    latest = await verifyCheckpoint(await (await get(io, `${server}/log/checkpoint`)).text(), vkey);
    pass(
      `log checkpoint: ${latest.origin}, ${latest.size} entries, signed by ${vkey.split("+")[0]}`,
    );
  } catch (error) {
    if (error instanceof FetchError) throw error;
    fail(`log checkpoint: ${(error as Error).message}`);
    return failures;
  }

  if (options.checkpoint) {
    try {
      const pinned = await verifyCheckpoint(await io.readTextFile(options.checkpoint), vkey);
      if (pinned.origin !== latest.origin) {
        throw new Error("the pinned checkpoint is of another log");
      }
      if (pinned.size > latest.size) {
        throw new Error(`the log shrank from ${pinned.size} to ${latest.size} entries`);
      }
      const proof = await getJson<{ proof: string[] }>(
        io,
        `${server}/log/consistency?from=${pinned.size}&to=${latest.size}`,
      );
      const ok = pinned.size === 0 || await verifyConsistency(
        pinned.size,
        latest.size,
        proof.proof.map(fromBase64),
        pinned.root,
        latest.root,
      );
      if (!ok) throw new Error("the consistency proof does not verify: the log was rewritten");
      pass(`log only grew since the pinned checkpoint (${pinned.size} → ${latest.size} entries)`);
    } catch (error) {
      if (error instanceof FetchError) throw error;
      fail(`pinned checkpoint: ${(error as Error).message}`);
    }
  }

  let previous: { version: number; digest: string } | null = null;
  for (const listed of ordered) {
    const n = listed.version;
    const label = `version ${n}`;
    const problems: string[] = [];
    const bytes = await getBytes(io, `${page}/versions/${n}/trust.json`);
    const jws = decoder.decode(await getBytes(io, `${page}/versions/${n}/trust.json.jws`));
    const digest = `sha256:${hex(await sha256(bytes))}`;
    try {
      const { header, payload } = await verifyJws(jws, keys);
      if (!equal(payload, bytes)) problems.push("the JWS signs other bytes than trust.json");
      if (header.ver !== n) problems.push(`the JWS names version ${header.ver}`);
      const expectedPrev = n === 1
        ? null
        : previous?.version === n - 1
        ? previous.digest
        : undefined;
      if (expectedPrev !== undefined && header.prev !== expectedPrev) {
        problems.push(`prev is ${header.prev}, but version ${n - 1} hashes to ${expectedPrev}`);
      }
    } catch (error) {
      problems.push((error as Error).message);
    }
    if (digest !== listed.digest) problems.push(`listed digest ${listed.digest} is not ${digest}`);
    let profile: { project?: { slug?: string }; version?: number; publishedAt?: string } = {};
    try {
      profile = JSON.parse(decoder.decode(bytes));
    } catch {
      problems.push("trust.json is not JSON");
    }
    if (profile.project?.slug !== slug) {
      problems.push(`trust.json names "${profile.project?.slug}"`);
    }
    if (profile.version !== n) problems.push(`trust.json names version ${profile.version}`);

    const entry =
      `trust-profile-publication/v1\n${profile.project?.slug}\n${profile.version}\n${digest}\n${profile.publishedAt}\n`;
    const res = await io.fetch(
      `${server}/log/publications/${slug}/${n}/inclusion?treeSize=${latest.size}`,
    ).catch((error) => {
      throw new FetchError((error as Error).message);
    });
    if (res.status === 404) {
      await res.body?.cancel();
      problems.push("not in the publication log");
    } else if (!res.ok) {
      await res.body?.cancel();
      throw new FetchError(`inclusion proof of ${label} answered ${res.status}`);
    } else {
      const proof = await res.json() as { leafIndex: number; proof: string[] };
      const leaf = await sha256(Uint8Array.of(0), encoder.encode(entry));
      const included = await verifyInclusion(
        proof.leafIndex,
        latest.size,
        proof.proof.map(fromBase64),
        leaf,
        latest.root,
      );
      if (!included) problems.push("its inclusion proof does not verify against the checkpoint");
    }
    if (problems.length) fail(`${label}: ${problems.join("; ")}`);
    else pass(`${label}: signature, chain and log inclusion (${digest.slice(0, 19)}…)`);
    previous = { version: n, digest };
  }

  if (options.saveCheckpoint && failures === 0) {
    await io.writeTextFile(options.saveCheckpoint, latest.note);
    io.out(`saved the checkpoint (${latest.size} entries) to ${options.saveCheckpoint}`);
  }
  return failures;
}

if (import.meta.main) {
  let options: Options | null;
  try {
    options = parseArgs(Deno.args, import.meta.url);
  } catch (error) {
    console.error(`error: ${(error as Error).message}`);
    console.error("Run with --help for usage.");
    Deno.exit(2);
  }
  if (!options) {
    console.log(usage(import.meta.url));
    Deno.exit(0);
  }
  try {
    const failures = await verify(options, {
      fetch,
      readTextFile: Deno.readTextFile,
      writeTextFile: Deno.writeTextFile,
      out: (line) => console.log(line),
    });
    if (failures > 0) {
      console.log(`\nNOT VERIFIED: ${failures} check(s) failed for "${options.slug}"`);
      Deno.exit(1);
    }
    console.log(`\nVERIFIED: "${options.slug}" at ${options.server}`);
  } catch (error) {
    console.error(`error: ${(error as Error).message}`);
    console.log(`\nNOT VERIFIED: the service could not be read`);
    Deno.exit(3);
  }
}
