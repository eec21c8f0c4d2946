/**
 * The verifier kit: checks a project's published trust profile without
 * trusting the service that serves it. Served at /verify.ts, so anyone with Deno runs
 *
 *   deno run --allow-net https://trust.example.com/verify.ts acme
 *   deno run --allow-net --allow-read https://trust.example.com/verify.ts \
 *     https://trust.example.com/trust/acme --checkpoint pinned.checkpoint \
 *     --pin jwks=<kid> --pin log=<verifier key>
 *
 * It reads every page of the version listing and fails on a listing out of
 * order, a repeated version or a missing one; fetches each version's
 * trust.json and JWS and checks the signature (EdDSA, WebCrypto) over the
 * exact bytes with a JWKS key whose id is its RFC 7638 thumbprint; chains
 * each version to the previous verified one (`prev` of version n is the
 * digest of version n−1); verifies the log's latest checkpoint (C2SP signed
 * note) with the log's verifier key and each version's inclusion proof
 * (RFC 9162 §2.1.3.2) against it; checks that the versions it verified are
 * exactly the project's entries in the log up to that checkpoint (count, leaf
 * indexes and leaf hashes) and that the latest trust.json is the newest
 * version; and, with a pinned checkpoint, a consistency proof (§2.1.4.2) that
 * the log only grew since. With `--pin`, only the pinned keys are trusted;
 * without, it prints the keys it trusted on first use. Any failure exits 1.
 * When the log records that the slug changed publisher (a deleted project's
 * slug, released by the service's operator and taken by another project), the
 * kit reports "a different publisher since entry N" and fails, unless that
 * change is pinned (`--pin publisher=N`). Run on a trust center's URL
 * (`/public/trust/<organization>`), it checks the organization slug's change
 * of holder the same way (`--pin organization=N`) and lists the projects to
 * verify one by one.
 *
 * Its source is src/cli/verify/: the entry main.ts (served at /verify/main.ts) and one module
 * a concern, each served at /verify/{module} and imported by relative URL only, with nothing
 * else imported (Deno's WebCrypto and fetch are all it needs). `deno task kit` joins them
 * into src/cli/verify.ts, the one file with no imports served at /verify.ts, so a buyer can
 * keep a single copy, read it once and run it offline.
 *
 * Joined from src/cli/verify/ by `deno task kit` (scripts/verify_kit.ts): edit those
 * modules, not this file.
 *
 * @module
 */

// ----------------------------------------------------------------------------------------------
// bytes.ts
// Bytes for the verifier kit: base64 and base64url, comparison, SHA-256 (WebCrypto) and hex.

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const standard = text.replace(/-/g, "+").replace(/_/g, "/");
  const padded = standard.padEnd(Math.ceil(standard.length / 4) * 4, "=");
  return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
}

function toBase64Url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_")
    .replace(/(?<!=)=+$/, "");
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

// ----------------------------------------------------------------------------------------------
// log_proofs.ts
// The publication log's proofs, checked offline: RFC 9162 inclusion and consistency proofs,
// the leaf hash of an entry, and C2SP signed-note checkpoints with an Ed25519 verifier key.

/** A C2SP signed-note verifier key: name+hex(key hash)+base64(type || key). */
const VKEY = /^([^+\s]+)\+([0-9a-f]{8})\+([A-Za-z0-9+/]+=*)$/;

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
  const parts = vkey.trim().match(VKEY);
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

const leafHashOf = (entry: string) => sha256(Uint8Array.of(0), encoder.encode(entry));

// ----------------------------------------------------------------------------------------------
// args.ts
// The verifier kit's command line: the usage text, the options and the keys a buyer pins.

export function usage(moduleUrl: string): string {
  const module = servedFrom(moduleUrl) ? moduleUrl : "<server>/verify.ts";
  return `Usage: deno run --allow-net ${module} <trust page URL or slug> [options]

A custom domain's URL (https://trust.example.com/) verifies the project that
verified the domain, read through the service (--server, or where this file
was loaded from), and checks the domain's own change of holder.

A trust center's URL (<server>/public/trust/<organization>) checks the
organization slug's change of holder against the log and lists the projects
it publishes, each with the command that verifies it.

Verifies every version of a trust profile: the listing is complete and in
order, each JWS signature verifies against the service's JWKS, each version
is chained to the previous one, each is in the publication log, the log's
entries of the project are exactly the versions verified, and (with
--checkpoint) the log only grew since a checkpoint you pinned earlier.

Options:
  --server <url>             the service (default: from the URL, else where this file was loaded from)
  --pin jwks=<kid>[,<kid>…]  trust only these JWKS keys (their RFC 7638 thumbprints) for the JWS
  --pin log=<verifier key>   check the log's checkpoints with this key, not the one the service
                             publishes at /log (--vkey <key> is the same)
  --pin publisher=<N>        accept the change of publisher the log recorded at entry N (the
                             slug now belongs to the publisher named there; a different change fails)
  --pin domain=<N>           the same for a custom domain's change of holder (a custom domain URL)
  --pin organization=<N>     the same for an organization slug's change of holder (a trust center URL)
  --checkpoint <file>        a checkpoint saved earlier (needs --allow-read)
  --save-checkpoint <file>   write the verified latest checkpoint, to pin next time (needs --allow-write)
  help, --help               print this text

Without --pin, the keys are trusted on first use and printed, with the command
that pins them: run that one from then on, so a server that swaps its keys fails.

An answered questionnaire and its signed manifest are verified offline with
"verify.ts questionnaire --help" (needs --allow-read only).

Exit status: 0 verified; 1 a check failed; 2 usage error; 3 the service could not be read.`;
}

/** A mistake in the command line: exit status 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/**
 * Keys trusted whatever the service says: JWKS key ids and the log's verifier key; and the
 * change of publisher under the slug the buyer accepted (its entry's leaf index).
 */
export interface Pins {
  jwks?: string[];
  log?: string;
  publisher?: number;
  /** The custom domain's change of holder the buyer accepted (its entry's leaf index). */
  domain?: number;
  /** The organization slug's change of holder the buyer accepted (its entry's leaf index). */
  organization?: number;
}

export interface Options {
  server: string;
  /** The project's slug ("" until a custom domain's is read from the service). */
  slug: string;
  /** A custom domain the buyer reads the profile at: its project is the one verified. */
  domain?: string;
  /** A trust center's organization slug: its change of holder is checked, its projects listed. */
  organization?: string;
  checkpoint?: string;
  saveCheckpoint?: string;
  pins: Pins;
  /** How to run this kit again (its URL or path), for the command that pins the keys. */
  kit?: string;
}

function servedFrom(moduleUrl: string): string | undefined {
  const url = new URL(moduleUrl);
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  return new URL(".", url).href.replace(/\/$/, "");
}

/** How to name this module in a command: its URL when served, else its path. */
export function kitReference(moduleUrl: string): string {
  const url = new URL(moduleUrl);
  return url.protocol === "file:" ? decodeURIComponent(url.pathname) : url.href;
}

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** A custom domain: two labels or more, as the service accepts them (lowercased by URL). */
const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]*$/;
/** The paths a custom domain serves its project's pages at (any of them names the domain). */
const DOMAIN_PAGES = ["/", "/trust.json", "/index.html", "/index.md"];
/** An RFC 7638 SHA-256 thumbprint, base64url without padding: how the service names its keys. */
const KID = /^[A-Za-z0-9_-]{43}$/;

function parsePin(value: string, pins: Pins): void {
  const at = value.indexOf("=");
  const [kind, text] = at < 0 ? [value, ""] : [value.slice(0, at), value.slice(at + 1)];
  if (kind === "jwks") {
    const kids = text.split(",").filter((kid) => kid !== "");
    const bad = kids.find((kid) => !KID.test(kid));
    if (kids.length === 0 || bad !== undefined) {
      throw new UsageError(`--pin jwks= takes key ids (RFC 7638 thumbprints), not "${bad ?? ""}"`);
    }
    pins.jwks = [...new Set([...(pins.jwks ?? []), ...kids])];
  } else if (kind === "log") {
    if (!VKEY.test(text)) {
      throw new UsageError(
        `--pin log= takes the log's verifier key (name+hash+key), not "${text}"`,
      );
    }
    if (pins.log !== undefined && pins.log !== text) {
      throw new UsageError("Two different log keys are pinned");
    }
    pins.log = text;
  } else if (kind === "publisher" || kind === "domain" || kind === "organization") {
    if (!/^(0|[1-9][0-9]{0,14})$/.test(text)) {
      throw new UsageError(`--pin ${kind}= takes a log entry's index, not "${text}"`);
    }
    if (pins[kind] !== undefined && pins[kind] !== Number(text)) {
      throw new UsageError(
        kind === "publisher"
          ? "Two different changes of publisher are pinned"
          : kind === "domain"
          ? "Two different changes of the domain's holder are pinned"
          : "Two different changes of the organization slug's holder are pinned",
      );
    }
    pins[kind] = Number(text);
  } else {
    throw new UsageError(
      `--pin takes jwks=<kid>[,<kid>…], log=<verifier key>, publisher=<entry>, domain=<entry> or organization=<entry>`,
    );
  }
}

/** Parses the command line; `null` asks for the usage text. */
export function parseArgs(args: string[], moduleUrl: string): Options | null {
  const values = new Map<string, string>();
  const pins: Pins = {};
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "help" || arg === "--help" || arg === "-h") return null;
    if (arg.startsWith("--")) {
      const name = arg.slice(2);
      if (!["server", "checkpoint", "save-checkpoint", "vkey", "pin"].includes(name)) {
        throw new UsageError(`Unknown option "${arg}"`);
      }
      const value = args[++i];
      if (value === undefined) throw new UsageError(`${arg} needs a value`);
      if (name === "pin") parsePin(value, pins);
      else if (name === "vkey") parsePin(`log=${value}`, pins);
      else values.set(name, value);
    } else positional.push(arg);
  }
  if (positional.length !== 1) throw new UsageError("Name one trust page URL or slug");
  const target = positional[0];
  let server = values.get("server");
  let slug: string;
  let domain: string | undefined;
  let organization: string | undefined;
  if (/^https?:\/\//.test(target)) {
    const url = new URL(target);
    const center = url.pathname.match(/^(.*?)\/public\/trust\/([^/.]+)\/?$/);
    const match = url.pathname.match(/^(.*?)\/trust\/([^/.]+)/);
    if (center) {
      // A trust center: the organization's slug, on the service it is served from.
      organization = center[2];
      slug = "";
      server ??= `${url.origin}${center[1]}`;
    } else if (match) {
      slug = match[2];
      server ??= `${url.origin}${match[1]}`;
    } else if (DOMAIN_PAGES.includes(url.pathname) && DOMAIN.test(url.hostname)) {
      // A custom domain: its project is read from the service that serves it.
      domain = url.hostname;
      slug = "";
      server ??= servedFrom(moduleUrl);
      if (!server) {
        throw new UsageError(`"${target}" is a custom domain: name the service with --server`);
      }
    } else {
      throw new UsageError(`"${target}" is not a /trust/<slug> page nor a custom domain's`);
    }
  } else {
    slug = target;
    server ??= servedFrom(moduleUrl);
  }
  if (organization !== undefined) {
    if (!SLUG.test(organization)) {
      throw new UsageError(`"${organization}" is not an organization slug`);
    }
    if (pins.publisher !== undefined || pins.domain !== undefined || pins.jwks !== undefined) {
      throw new UsageError(
        "A trust center's URL takes --pin organization= and --pin log= only (its projects are verified one by one)",
      );
    }
  } else if (domain === undefined && !SLUG.test(slug)) {
    throw new UsageError(`"${slug}" is not a project slug`);
  }
  if (domain === undefined && pins.domain !== undefined) {
    throw new UsageError("--pin domain= is for a custom domain's URL");
  }
  if (organization === undefined && pins.organization !== undefined) {
    throw new UsageError("--pin organization= is for a trust center's URL");
  }
  if (!server) throw new UsageError("Give a trust page URL or --server");
  return {
    server: server.replace(/(?<!\/)\/+$/, ""),
    slug,
    ...(domain === undefined ? {} : { domain }),
    ...(organization === undefined ? {} : { organization }),
    checkpoint: values.get("checkpoint"),
    saveCheckpoint: values.get("save-checkpoint"),
    pins,
    kit: kitReference(moduleUrl),
  };
}

// ----------------------------------------------------------------------------------------------
// net.ts
// What the verifier kit reads over the network: GETs that fail as FetchError (exit status 3),
// bounded parallel fetching in order, and the check of a count in the service's JSON.

/** The service could not be read: exit status 3. */
export class FetchError extends Error {
  override name = "FetchError";
  constructor(message: string, readonly status?: number) {
    super(message);
  }
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
    throw new FetchError(`${url} answered ${res.status}`, res.status);
  }
  return res;
}

async function getJson<T>(io: Io, url: string): Promise<T> {
  const res = await get(io, url);
  try {
    return await res.json() as T;
  } catch {
    throw new FetchError(`${url} did not answer JSON`);
  }
}

const getBytes = async (io: Io, url: string) =>
  new Uint8Array(await (await get(io, url)).arrayBuffer());

/** The bytes at `url`, or null when it answers 404. */
async function getOptionalBytes(io: Io, url: string): Promise<Uint8Array | null> {
  try {
    return await getBytes(io, url);
  } catch (error) {
    if (error instanceof FetchError && error.status === 404) return null;
    throw error;
  }
}

/** Runs `work` on each item with at most `width` under way; yields the results in order. */
async function* inOrder<T, R>(
  items: readonly T[],
  width: number,
  work: (item: T) => Promise<R>,
): AsyncGenerator<[T, R]> {
  const started: Promise<R>[] = [];
  const start = () => {
    const promise = work(items[started.length]);
    promise.catch(() => {}); // awaited in turn below; not an unhandled rejection meanwhile
    started.push(promise);
  };
  while (started.length < Math.min(width, items.length)) start();
  for (let i = 0; i < items.length; i++) {
    const result = await started[i];
    if (started.length < items.length) start();
    yield [items[i], result];
  }
}

const isCount = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;

// ----------------------------------------------------------------------------------------------
// report.ts
// The verifier kit's output: one line per check (ok, note, FAIL), with the failures counted.

/** `2, 5-7` for [2, 5, 6, 7]. */
function ranges(numbers: number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < numbers.length; i++) {
    let j = i;
    while (j + 1 < numbers.length && numbers[j + 1] === numbers[j] + 1) j++;
    parts.push(i === j ? `${numbers[i]}` : `${numbers[i]}-${numbers[j]}`);
    i = j;
  }
  return parts.join(", ");
}

/** Prints one line per check and counts the failures. */
class Report {
  failures = 0;
  constructor(readonly out: (line: string) => void) {}
  pass(line: string) {
    this.out(`ok    ${line}`);
  }
  note(line: string) {
    this.out(`note  ${line}`);
  }
  fail(line: string) {
    this.failures++;
    this.out(`FAIL  ${line}`);
  }
}

// ----------------------------------------------------------------------------------------------
// jws.ts
// Keys and signatures: the JWKS's Ed25519 keys, each under its RFC 7638 thumbprint (only the
// pinned ones when keys are pinned), and compact JWS verified over the exact bytes.

/** RFC 7638 thumbprint (SHA-256, base64url) of an Ed25519 public JWK: the id it should have. */
async function jwkThumbprint(jwk: { crv: string; kty: string; x: string }): Promise<string> {
  const canonical = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x });
  return toBase64Url(await sha256(encoder.encode(canonical)));
}

interface JwsHeader {
  alg?: string;
  kid?: string;
  ver?: number;
  prev?: string | null;
}

/** The keys a JWS may be verified with, and the served ones that are not pinned. */
interface Keyring {
  keys: Map<string, CryptoKey>;
  unpinned: Set<string>;
}

/** Verifies a compact JWS with an attached payload; returns its header and payload bytes. */
async function verifyJws(
  jws: string,
  ring: Keyring,
): Promise<{ header: JwsHeader; payload: Uint8Array }> {
  const segments = jws.trim().split(".");
  if (segments.length !== 3) throw new Error("the signature is not a compact JWS");
  let header: JwsHeader;
  try {
    header = JSON.parse(decoder.decode(fromBase64(segments[0])));
  } catch {
    throw new Error("the JWS header is not JSON");
  }
  if (header.alg !== "EdDSA") throw new Error(`unexpected JWS algorithm "${header.alg}"`);
  const kid = String(header.kid);
  const key = ring.keys.get(kid);
  if (!key) {
    throw new Error(
      ring.unpinned.has(kid)
        ? `signed by key "${kid}", which is not pinned`
        : `signed by key "${kid}", which the JWKS does not hold`,
    );
  }
  const ok = await crypto.subtle.verify(
    "Ed25519",
    key,
    fromBase64(segments[2]),
    encoder.encode(`${segments[0]}.${segments[1]}`),
  );
  if (!ok) throw new Error(`the JWS signature does not verify with key "${kid}"`);
  return { header, payload: fromBase64(segments[1]) };
}

/**
 * The JWKS's Ed25519 keys that may verify a JWS: each must be served under its own RFC 7638
 * thumbprint, and with pinned key ids only those are used (a pinned one not served fails).
 */
async function readKeys(
  io: Io,
  server: string,
  pins: Pins,
  report: Report,
): Promise<Keyring> {
  const url = `${server}/.well-known/jwks.json`;
  return await keyringOf(await getJson<{ keys?: unknown }>(io, url), url, pins, report);
}

/** The keys of a JWKS document read from `url` (or a file), checked as readKeys says. */
async function keyringOf(
  jwks: { keys?: unknown },
  url: string,
  pins: Pins,
  report: Report,
): Promise<Keyring> {
  const before = report.failures;
  const ring: Keyring = { keys: new Map(), unpinned: new Set() };
  const served = new Set<string>();
  for (const jwk of Array.isArray(jwks.keys) ? jwks.keys : []) {
    const { kty, crv, x, kid } = (jwk ?? {}) as Record<string, unknown>;
    if (kty !== "OKP" || crv !== "Ed25519" || typeof x !== "string") continue;
    const thumbprint = await jwkThumbprint({ kty, crv, x });
    if (kid !== thumbprint) {
      report.fail(
        `JWKS: key "${kid}" is not the key its id names (its RFC 7638 thumbprint differs)`,
      );
      continue;
    }
    served.add(thumbprint);
    if (pins.jwks && !pins.jwks.includes(thumbprint)) {
      ring.unpinned.add(thumbprint);
      continue;
    }
    try {
      ring.keys.set(
        thumbprint,
        await crypto.subtle.importKey("jwk", { kty, crv, x }, "Ed25519", false, ["verify"]),
      );
    } catch {
      report.fail(`JWKS: key "${kid}" is not a valid Ed25519 key`);
    }
  }
  for (const kid of pins.jwks ?? []) {
    if (!served.has(kid)) report.fail(`JWKS: the pinned key "${kid}" is not served`);
  }
  if (report.failures > before) return ring;
  report.pass(
    pins.jwks
      ? `JWKS: ${ring.keys.size} pinned Ed25519 key(s) of ${served.size} from ${url}`
      : `JWKS: ${ring.keys.size} Ed25519 key(s) from ${url}, trusted on first use`,
  );
  return ring;
}

// ----------------------------------------------------------------------------------------------
// versions.ts
// The version chain: every page of the version listing, each version's trust.json and JWS
// (signature, `prev` chained to the version before, its log inclusion), and the latest
// trust.json the service serves.

/** A version as the listing gives it. */
interface Listed {
  version: number;
  digest: string;
}

/** Versions per page the kit asks for (the listing's most). */
const PAGE = 100;

/**
 * Every page of the version listing (newest first), each version once in ascending order.
 * Fails a listing out of order, a version listed twice and every version missing below the
 * newest; null when the listing cannot be walked at all. A page must move back in the
 * history, and the listing may not outgrow the log, so the walk always ends.
 */
async function readListing(
  io: Io,
  page: string,
  logSize: number,
  report: Report,
): Promise<Listed[] | null> {
  const listed: Listed[] = [];
  let disorder: string | undefined;
  const twice = new Set<number>();
  for (let cursor: string | null = null, pages = 1;; pages++) {
    const url: string = `${page}/versions?limit=${PAGE}${cursor ? `&cursor=${cursor}` : ""}`;
    const body = await getJson<{ versions?: unknown; nextCursor?: unknown }>(io, url);
    const items = Array.isArray(body.versions) ? body.versions as Listed[] : null;
    if (!items || items.some((v) => !isCount(v?.version) || typeof v.digest !== "string")) {
      report.fail(`listing: ${url} is not a version listing`);
      return null;
    }
    for (const { version, digest } of items) {
      const last = listed.at(-1);
      if (last && version >= last.version) {
        if (listed.some((l) => l.version === version)) twice.add(version);
        disorder ??= `version ${version} comes after version ${last.version}`;
      }
      listed.push({ version, digest });
    }
    const next = body.nextCursor ?? null;
    if (next === null) break;
    if (
      typeof next !== "string" || !/^[1-9][0-9]*$/.test(next) || items.length === 0 ||
      (cursor !== null && Number(next) >= Number(cursor))
    ) {
      report.fail(`listing: page ${pages} gives a cursor that does not move back ("${next}")`);
      return null;
    }
    if (listed.length > logSize) {
      report.fail(`listing: more versions listed than the log holds entries (${logSize})`);
      return null;
    }
    cursor = next;
  }
  if (disorder) report.fail(`listing: out of order (newest first expected): ${disorder}`);
  if (twice.size) {
    report.fail(`listing: version(s) ${ranges([...twice].sort((a, b) => a - b))} listed twice`);
  }
  const versions = new Map<number, Listed>();
  for (const item of listed) if (!versions.has(item.version)) versions.set(item.version, item);
  const ordered = [...versions.values()].sort((a, b) => a.version - b.version);
  if (ordered.length === 0) {
    report.fail(`listing: ${page}/versions lists no version`);
    return null;
  }
  const newest = ordered.at(-1)!.version;
  const missing: number[] = [];
  for (let n = 1; n <= newest; n++) if (!versions.has(n)) missing.push(n);
  if (missing.length) {
    report.fail(`listing: version(s) ${ranges(missing)} of 1-${newest} missing from the listing`);
  } else if (!disorder && !twice.size) {
    const pages = Math.max(1, Math.ceil(listed.length / PAGE));
    report.pass(`listing: versions 1-${newest}, newest first, on ${pages} page(s)`);
  }
  return ordered;
}

/** What the kit knows of the log while it checks the versions. */
interface LogContext {
  server: string;
  slug: string;
  page: string;
  latest: Checkpoint;
  ring: Keyring;
  /** The change of publisher the buyer accepted (`--pin publisher=`), if any. */
  publisher?: number;
  /** The custom domain's change of holder the buyer accepted (`--pin domain=`), if any. */
  domainPin?: number;
}

/** A version's documents: trust.json and JWS (null when 404) and its inclusion proof. */
interface Fetched {
  bytes: Uint8Array | null;
  jws: Uint8Array | null;
  inclusion: { leafIndex: unknown; proof: unknown } | null;
}

/** Version `n`'s documents; a 404 (or 400: beyond the checkpoint) proof is null. */
async function fetchVersion(io: Io, ctx: LogContext, n: number): Promise<Fetched> {
  const proofUrl =
    `${ctx.server}/log/publications/${ctx.slug}/${n}/inclusion?treeSize=${ctx.latest.size}`;
  const inclusion = async () => {
    if (ctx.latest.size === 0) return null;
    let res: Response;
    try {
      res = await io.fetch(proofUrl, { signal: AbortSignal.timeout(30_000) });
    } catch (error) {
      throw new FetchError(`${proofUrl}: ${(error as Error).message}`);
    }
    if (res.status === 404 || res.status === 400) {
      await res.body?.cancel();
      return null;
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw new FetchError(`${proofUrl} answered ${res.status}`, res.status);
    }
    return await res.json() as Fetched["inclusion"];
  };
  const [bytes, jws, proof] = await Promise.all([
    getOptionalBytes(io, `${ctx.page}/versions/${n}/trust.json`),
    getOptionalBytes(io, `${ctx.page}/versions/${n}/trust.json.jws`),
    inclusion(),
  ]);
  return { bytes, jws, inclusion: proof };
}

type Profile = { project?: { slug?: string }; version?: number; publishedAt?: string };

/** The log entry a trust.json makes (see GET /log's entryFormat). */
function entryOf(profile: Profile, digest: string): string {
  return `trust-profile-publication/v1\n${profile.project?.slug}\n${profile.version}\n${digest}\n${profile.publishedAt}\n`;
}

/** A version that passed every check: where it is in the log, and its leaf hash. */
interface Verified {
  leafIndex: number;
  leafHash: Uint8Array;
}

/** What the versions checked before tell the next one: each digest, and whether it verified. */
type Chain = Map<number, { digest: string; verified: boolean }>;

/** The problems of version `listed` (none: it verified), given the versions before it. */
async function versionProblems(
  ctx: LogContext,
  listed: Listed,
  fetched: Fetched & { bytes: Uint8Array; jws: Uint8Array },
  chain: Chain,
  signers: Set<string>,
): Promise<{ problems: string[]; digest: string; verified?: Verified }> {
  const n = listed.version;
  const problems: string[] = [];
  const { bytes } = fetched;
  const digest = `sha256:${hex(await sha256(bytes))}`;
  try {
    const { header, payload } = await verifyJws(decoder.decode(fetched.jws), ctx.ring);
    signers.add(String(header.kid));
    if (!equal(payload, bytes)) problems.push("the JWS signs other bytes than trust.json");
    if (header.ver !== n) problems.push(`the JWS names version ${header.ver}`);
    const before = chain.get(n - 1);
    if (n === 1) {
      if (header.prev !== null) problems.push(`prev is ${header.prev}, but version 1 has none`);
    } else if (!before) {
      problems.push(`version ${n - 1} is missing, so its prev ${header.prev} is unchecked`);
    } else if (header.prev !== before.digest) {
      problems.push(`prev is ${header.prev}, but version ${n - 1} hashes to ${before.digest}`);
    } else if (!before.verified) {
      problems.push(`it follows version ${n - 1}, which did not verify`);
    }
  } catch (error) {
    problems.push((error as Error).message);
  }
  if (digest !== listed.digest) problems.push(`listed digest ${listed.digest} is not ${digest}`);
  let profile: Profile = {};
  try {
    profile = JSON.parse(decoder.decode(bytes));
  } catch {
    problems.push("trust.json is not JSON");
  }
  if (profile.project?.slug !== ctx.slug) {
    problems.push(`trust.json names "${profile.project?.slug}"`);
  }
  if (profile.version !== n) problems.push(`trust.json names version ${profile.version}`);

  const { latest } = ctx;
  const proof = fetched.inclusion;
  const leafHash = await leafHashOf(entryOf(profile, digest));
  if (!proof) {
    problems.push(`not in the publication log up to the checkpoint (${latest.size} entries)`);
    return { problems, digest };
  }
  const included = isCount(proof.leafIndex) && Array.isArray(proof.proof) &&
    await verifyInclusion(
      proof.leafIndex,
      latest.size,
      (proof.proof as string[]).map(fromBase64),
      leafHash,
      latest.root,
    );
  if (!included) problems.push("its inclusion proof does not verify against the checkpoint");
  if (problems.length) return { problems, digest };
  return { problems, digest, verified: { leafIndex: proof.leafIndex as number, leafHash } };
}

/** Documents fetched at once. */
const WIDTH = 8;

/**
 * Checks every listed version in ascending order, each chained to the verified version
 * before it. Returns the versions that verified and the keys that signed them.
 */
async function checkVersions(io: Io, ctx: LogContext, ordered: Listed[], report: Report) {
  const chain: Chain = new Map();
  const verified = new Map<number, Verified>();
  const signers = new Set<string>();
  for await (
    const [listed, fetched] of inOrder(ordered, WIDTH, (l) => fetchVersion(io, ctx, l.version))
  ) {
    const n = listed.version;
    const { bytes, jws } = fetched;
    if (!bytes || !jws) {
      report.fail(`version ${n}: listed, but its ${bytes ? "JWS" : "trust.json"} answers 404`);
      continue;
    }
    const result = await versionProblems(ctx, listed, { ...fetched, bytes, jws }, chain, signers);
    chain.set(n, { digest: result.digest, verified: result.verified !== undefined });
    if (result.verified) {
      verified.set(n, result.verified);
      report.pass(
        `version ${n}: signature, chain and log inclusion (${result.digest.slice(0, 19)}…)`,
      );
    } else report.fail(`version ${n}: ${result.problems.join("; ")}`);
  }
  return { verified, signers: [...signers] };
}

/** The latest trust.json the service serves must be the newest version listed. */
async function checkLatest(io: Io, page: string, newest: Listed, report: Report) {
  const url = `${page}/trust.json`;
  const bytes = await getBytes(io, url);
  let version: unknown;
  try {
    version = JSON.parse(decoder.decode(bytes)).version;
  } catch {
    version = undefined;
  }
  if (version !== newest.version) {
    report.fail(`latest: ${url} is version ${version}, but the listing ends at ${newest.version}`);
  } else if (`sha256:${hex(await sha256(bytes))}` !== newest.digest) {
    report.fail(`latest: ${url} differs from version ${newest.version} as listed`);
  } else report.pass(`latest: ${url} is version ${newest.version}`);
}

// ----------------------------------------------------------------------------------------------
// publisher.ts
// The change of publisher under a slug: the log entry recording that a deleted project's
// slug was taken by another project, verified, and failed unless the buyer pinned it. The same
// for a custom domain the buyer reads the profile at (a deleted project's verified domain,
// verified by another project after the operator released it).

/** The first line of the log entry that records a change of publisher under a slug. */
const PUBLISHER_CHANGE = "trust-profile-publisher-change/v1";
/** The first line of the one that records a custom domain's change of holder. */
const DOMAIN_CHANGE = "trust-profile-domain-publisher-change/v1";
/** The first line of the one that records an organization slug's change of holder. */
const ORGANIZATION_CHANGE = "trust-profile-organization-publisher-change/v1";

/**
 * The change of publisher the log recorded under the slug, if any: a deleted project's slug
 * that the service's operator released and another project took. The entry must hash to its
 * leaf, be included in the checkpoint, name this slug, and come before every version listed.
 * A verified change fails the run ("a different publisher since entry N") unless it is the one
 * pinned with `--pin publisher=N`; a pinned change the log no longer shows fails too.
 */
async function checkPublisher(
  io: Io,
  ctx: LogContext,
  read: { logged: LoggedEntry[]; change: unknown },
  report: Report,
) {
  await checkChange(io, ctx, read, report, {
    header: PUBLISHER_CHANGE,
    name: ctx.slug,
    pinned: ctx.publisher,
    flag: "publisher",
    what: "",
    given: `The slug "${ctx.slug}" belonged to a deleted project and was given to another`,
  });
}

/**
 * The same for the custom domain the buyer reads the profile at: the service shows, beside the
 * domain's profile (`/trust/domains/{domain}`), the entry that recorded this project verifying
 * a domain a deleted project had left, released by the operator. Failed unless pinned with
 * `--pin domain=N`; a pinned change the service no longer shows fails too.
 */
async function checkDomainHolder(
  io: Io,
  ctx: LogContext,
  read: { logged: LoggedEntry[]; change: unknown; domain: string; projectId: unknown },
  report: Report,
) {
  await checkChange(io, ctx, read, report, {
    header: DOMAIN_CHANGE,
    name: read.domain,
    pinned: ctx.domainPin,
    flag: "domain",
    what: ` of the custom domain "${read.domain}"`,
    given:
      `The custom domain "${read.domain}" belonged to a deleted project and was given to another`,
    projectId: typeof read.projectId === "string" ? read.projectId : undefined,
  });
}

/**
 * The same for a trust center's organization slug: the service shows, in the trust center's
 * JSON (`/public/trust/{orgSlug}`), the entry that recorded this organization taking a slug a
 * deleted organization had left, released by the operator. Failed unless pinned with
 * `--pin organization=N`; a pinned change the service no longer shows fails too.
 */
async function checkOrganizationHolder(
  io: Io,
  ctx: Pick<LogContext, "server" | "latest">,
  read: { change: unknown; organization: string },
  report: Report,
  pinned: number | undefined,
) {
  await checkChange(io, ctx, { logged: [], change: read.change }, report, {
    header: ORGANIZATION_CHANGE,
    name: read.organization,
    pinned,
    flag: "organization",
    what: ` of the organization slug "${read.organization}"`,
    given:
      `The organization slug "${read.organization}" belonged to a deleted organization and was given to another`,
  });
}

/** What `checkChange` checks the entry against, and how it words the result. */
interface Subject {
  header: string;
  /** The name the entry must record: the slug, the custom domain or the organization slug. */
  name: string;
  pinned: number | undefined;
  flag: "publisher" | "domain" | "organization";
  /** Inserted after "a different publisher" (which name changed), or "". */
  what: string;
  /** The sentence saying what happened. */
  given: string;
  /** The project the entry must name (a domain's: the project that serves it), if known. */
  projectId?: string;
}

async function checkChange(
  io: Io,
  ctx: Pick<LogContext, "server" | "latest">,
  read: { logged: LoggedEntry[]; change: unknown },
  report: Report,
  subject: Subject,
) {
  const { flag, pinned, name, what } = subject;
  const label = flag;
  const change = read.change as { leafIndex?: unknown; leafHash?: unknown; entry?: unknown };
  if (change === null || typeof change !== "object") {
    if (change !== null) return report.fail(`${label}: the change of publisher is malformed`);
    if (pinned !== undefined) {
      return report.fail(
        `${label}: the pinned change of publisher (entry ${pinned}) is not what the log shows for "${name}"`,
      );
    }
    return report.pass(
      flag === "publisher"
        ? `publisher: the log records no change of publisher under "${name}"`
        : flag === "domain"
        ? `domain: the service shows no change of holder of the custom domain "${name}"`
        : `organization: the service shows no change of holder of the organization slug "${name}"`,
    );
  }
  const { leafIndex: at, leafHash, entry } = change;
  if (!isCount(at) || typeof leafHash !== "string" || typeof entry !== "string") {
    return report.fail(`${label}: the change of publisher is malformed`);
  }
  const lines = entry.split("\n");
  const [header, entryName, previous, projectId, orgSlug, orgId, takenAt] = lines;
  const leaf = await leafHashOf(entry);
  const { latest } = ctx;
  const ID = /^[0-9a-f-]{36}$/;
  let problem = !equal(leaf, fromBase64(leafHash))
    ? "its text does not hash to its leaf hash"
    : lines.length !== 8 || header !== subject.header || lines[7] !== "" ||
        !(flag === "organization" ? projectId === "-" : ID.test(projectId)) ||
        !SLUG.test(orgSlug) || !ID.test(orgId) ||
        !/^\d{4}-\d\d-\d\dT[\d:.]+Z$/.test(takenAt)
    ? "it is not a change-of-publisher entry"
    : entryName !== name
    ? `it names ${
      flag === "publisher" ? "the slug" : flag === "domain" ? "the domain" : "the organization slug"
    } "${entryName}"`
    : subject.projectId !== undefined && projectId !== subject.projectId
    ? `it names another project (${projectId})`
    : !(previous === "unknown" || (/^[0-9]{1,15}$/.test(previous) && Number(previous) <= at))
    ? "its previous holder's log size is not before it"
    : flag === "publisher" && read.logged.some((e) => e.leafIndex <= at)
    ? "a version of this publisher is logged before it"
    : at >= latest.size
    ? "it is beyond the checkpoint"
    : null;
  if (!problem) {
    const proof = await getJson<{ proof?: unknown }>(
      io,
      `${ctx.server}/log/entries/${at}/inclusion?treeSize=${latest.size}`,
    );
    const included = Array.isArray(proof.proof) && await verifyInclusion(
      at,
      latest.size,
      (proof.proof as string[]).map(fromBase64),
      leaf,
      latest.root,
    );
    if (!included) problem = "its inclusion proof does not verify";
  }
  if (problem) {
    return report.fail(`${label}: the change of publisher${what} (entry ${at}): ${problem}`);
  }
  const who = `organization "${orgSlug}" (${orgId})${
    flag === "organization" ? "" : `, project ${projectId}`
  }, since ${takenAt}`;
  const before = previous === "unknown"
    ? ""
    : ` Entries below ${previous} were the previous holder's.`;
  if (pinned === at) {
    return report.pass(
      `${label}: a different publisher${what} since entry ${at} (${who}), accepted with --pin ${flag}=${at}`,
    );
  }
  report.fail(
    `${label}: a different publisher${what} since entry ${at}: ${who}.${before} ` +
      `${subject.given}; ` +
      (pinned === undefined
        ? `if you know and accept this publisher, verify with --pin ${flag}=${at}`
        : `you pinned the change at entry ${pinned}`),
  );
}

// ----------------------------------------------------------------------------------------------
// log.ts
// The publication log as the service serves it: its latest checkpoint (and, with a pinned
// checkpoint, the proof that the log only grew), and the project's entries, which must be
// exactly the versions verified.

/**
 * The log's latest checkpoint, verified with the pinned log key (else the one /log names),
 * and with a pinned checkpoint the proof that the log only grew since. Null when the latest
 * checkpoint does not verify: nothing else can be checked.
 */
async function readCheckpoint(
  io: Io,
  options: Options,
  report: Report,
): Promise<{ latest: Checkpoint; vkey: string } | null> {
  const { server, pins } = options;
  const vkey = pins.log ??
    (await getJson<{ verifierKey?: string }>(io, `${server}/log`)).verifierKey ?? "";
  const byKey = pins.log ? "the pinned log key" : "the log key the service publishes";
  let latest: Checkpoint;
  try {
    latest = await verifyCheckpoint(await (await get(io, `${server}/log/checkpoint`)).text(), vkey);
    report.pass(`log checkpoint: ${latest.origin}, ${latest.size} entries, signed by ${byKey}`);
  } catch (error) {
    if (error instanceof FetchError) throw error;
    report.fail(`log checkpoint: ${(error as Error).message} (checked with ${byKey})`);
    return null;
  }
  if (!options.checkpoint) return { latest, vkey };
  try {
    const pinned = await verifyCheckpoint(await io.readTextFile(options.checkpoint), vkey);
    if (pinned.origin !== latest.origin) throw new Error("the pinned checkpoint is of another log");
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
    report.pass(
      `log only grew since the pinned checkpoint (${pinned.size} → ${latest.size} entries)`,
    );
  } catch (error) {
    if (error instanceof FetchError) throw error;
    report.fail(`pinned checkpoint: ${(error as Error).message}`);
  }
  return { latest, vkey };
}

/** A project's entry as the log lists it. */
interface LoggedEntry {
  version: number;
  leafIndex: number;
  leafHash: string;
  entry: string;
}

/**
 * Every page of the project's entries in the log up to the checkpoint, in version and leaf
 * order; a string says why the list is unusable.
 */
async function readProjectEntries(
  io: Io,
  ctx: LogContext,
): Promise<{ logged: LoggedEntry[]; change: unknown } | string> {
  const logged: LoggedEntry[] = [];
  let change: unknown = null;
  const size = ctx.latest.size;
  for (let cursor: string | null = null; size > 0;) {
    const url: string = `${ctx.server}/log/publications/${ctx.slug}?treeSize=${size}${
      cursor ? `&cursor=${cursor}` : ""
    }`;
    const body = await getJson<
      { entries?: unknown; nextCursor?: unknown; publisherChange?: unknown }
    >(io, url);
    if (cursor === null) change = body.publisherChange ?? null;
    const items = Array.isArray(body.entries) ? body.entries as LoggedEntry[] : null;
    const malformed = (e: LoggedEntry) =>
      !isCount(e?.version) || !isCount(e.leafIndex) || typeof e.leafHash !== "string" ||
      typeof e.entry !== "string";
    if (!items || items.some(malformed)) return `${url} is not a list of log entries`;
    for (const item of items) {
      const last = logged.at(-1);
      if (
        item.leafIndex >= size ||
        (last && (item.version <= last.version || item.leafIndex <= last.leafIndex))
      ) {
        return `entry ${item.leafIndex} (version ${item.version}) is out of order or beyond the checkpoint`;
      }
      logged.push(item);
    }
    const next = body.nextCursor ?? null;
    if (next === null) break;
    if (items.length === 0 || next !== String(logged.at(-1)!.version)) {
      return `the page after version ${cursor ?? 0} gives the cursor "${next}"`;
    }
    cursor = next;
  }
  return { logged, change };
}

/**
 * The versions verified must be exactly the project's entries in the log up to the
 * checkpoint: the same count, leaf indexes and leaf hashes. An entry that is not listed is
 * a hidden version; its inclusion is checked so the message says whether the log holds it.
 */
async function checkLogEntries(
  io: Io,
  ctx: LogContext,
  listed: ReadonlySet<number>,
  verified: ReadonlyMap<number, Verified>,
  report: Report,
): Promise<LoggedEntry[] | null> {
  const read = await readProjectEntries(io, ctx);
  if (typeof read === "string") {
    report.fail(`log: the project's entries: ${read}`);
    return null;
  }
  const { logged } = read;
  await checkPublisher(io, ctx, read, report);
  const before = report.failures;
  const inLog = new Set<number>();
  for (const item of logged) {
    inLog.add(item.version);
    const leaf = await leafHashOf(item.entry);
    const mine = verified.get(item.version);
    if (!equal(leaf, fromBase64(item.leafHash))) {
      report.fail(`log: entry ${item.leafIndex}'s text does not hash to its leaf hash`);
    } else if (!listed.has(item.version)) {
      const { latest } = ctx;
      const proof = await getJson<{ proof?: unknown }>(
        io,
        `${ctx.server}/log/entries/${item.leafIndex}/inclusion?treeSize=${latest.size}`,
      );
      const included = Array.isArray(proof.proof) && await verifyInclusion(
        item.leafIndex,
        latest.size,
        (proof.proof as string[]).map(fromBase64),
        leaf,
        latest.root,
      );
      report.fail(
        `log: version ${item.version} is in the log (entry ${item.leafIndex}, ${
          included ? "inclusion verified" : "its inclusion proof does not verify"
        }) but not listed`,
      );
    } else if (mine && (mine.leafIndex !== item.leafIndex || !equal(mine.leafHash, leaf))) {
      report.fail(
        `log: version ${item.version}'s entry in the project's list is not the one proven`,
      );
    }
  }
  for (const [n, mine] of verified) {
    if (!inLog.has(n)) {
      report.fail(`log: the project's entries omit version ${n} (entry ${mine.leafIndex})`);
    }
  }
  if (report.failures > before) return logged;
  if (logged.length === verified.size && verified.size === listed.size) {
    report.pass(
      `log: the project's ${logged.length} entries up to the checkpoint are exactly the ` +
        `${verified.size} versions verified`,
    );
  } else if (report.failures === 0) {
    report.fail(`log: ${logged.length} entries for ${verified.size} verified version(s)`);
  }
  return logged;
}

// ----------------------------------------------------------------------------------------------
// profile.ts
// A trust profile's whole check, in order: (for a custom domain, the project that verified it)
// keys, checkpoint, listing, versions, latest, log entries and publisher (and the domain's
// change of holder); then the keys to pin.

/** After a clean run: the pins used, or the keys trusted on first use and how to pin them. */
function reportPins(
  options: Options,
  trusted: { signers: string[]; vkey: string },
  report: Report,
) {
  const { pins, server, slug } = options;
  const publisher = (pins.publisher === undefined ? "" : ` --pin publisher=${pins.publisher}`) +
    (pins.domain === undefined ? "" : ` --pin domain=${pins.domain}`);
  if (pins.jwks || pins.log) {
    report.pass(
      `pinned: ${pins.jwks ? `key(s) ${pins.jwks.join(", ")}` : "no JWKS key"}; ${
        pins.log ? `log key ${pins.log}` : "the log key the service publishes"
      }${
        pins.publisher !== undefined ? `; the change of publisher at entry ${pins.publisher}` : ""
      }${
        pins.domain !== undefined ? `; the domain's change of holder at entry ${pins.domain}` : ""
      }`,
    );
    return;
  }
  const kit = options.kit ?? `${server}/verify.ts`;
  report.note(`trusted on first use: the publication key(s) ${trusted.signers.join(", ")}`);
  report.out(`      and the log key ${trusted.vkey}`);
  report.out(`      Pin them, to verify from now on without trusting this server's keys:`);
  report.out(
    `      deno run --allow-net ${kit} ${
      options.domain === undefined
        ? `${server}/trust/${slug}`
        : `https://${options.domain}/ --server ${server}`
    } ` +
      `--pin jwks=${trusted.signers.join(",")} --pin log=${trusted.vkey}${publisher}`,
  );
  if (/^https?:/.test(kit)) {
    report.out(
      `      (from a copy of this kit you keep, so the server cannot change the kit either)`,
    );
  }
}

/**
 * Runs every check and prints one line each; returns the number of failures. Throws a
 * FetchError when a document the checks need cannot be read at all.
 */
export async function verify(options: Options, io: Io): Promise<number> {
  const { server } = options;
  const report = new Report(io.out);
  // A custom domain: the project that verified it, and the domain's change of holder, as the
  // service shows them; the project's profile is then verified as any other.
  let domain: { name: string; change: unknown; projectId: unknown } | null = null;
  let slug = options.slug;
  if (options.domain !== undefined) {
    const url = `${server}/trust/domains/${options.domain}`;
    const body = await getJson<
      { profile?: { project?: { slug?: unknown; id?: unknown } }; publisherChange?: unknown }
    >(io, url);
    const project = body.profile?.project;
    if (typeof project?.slug !== "string" || !SLUG.test(project.slug)) {
      report.fail(`domain: ${url} names no project`);
      return report.failures;
    }
    slug = project.slug;
    domain = {
      name: options.domain,
      change: body.publisherChange ?? null,
      projectId: project.id,
    };
    report.pass(`domain: the service serves "${options.domain}" from the project "${slug}"`);
  }
  const ring = await readKeys(io, server, options.pins, report);
  const log = await readCheckpoint(io, options, report);
  if (!log) return report.failures;
  const page = `${server}/trust/${slug}`;
  const ordered = await readListing(io, page, log.latest.size, report);
  if (!ordered) return report.failures;
  const ctx: LogContext = {
    server,
    slug,
    page,
    latest: log.latest,
    ring,
    publisher: options.pins.publisher,
    domainPin: options.pins.domain,
  };
  const { verified, signers } = await checkVersions(io, ctx, ordered, report);
  await checkLatest(io, page, ordered.at(-1)!, report);
  const listed = new Set(ordered.map((l) => l.version));
  const logged = await checkLogEntries(io, ctx, listed, verified, report);
  if (domain) {
    await checkDomainHolder(
      io,
      ctx,
      { logged: logged ?? [], ...domain, domain: domain.name },
      report,
    );
  }
  if (report.failures === 0) {
    reportPins({ ...options, slug }, { signers, vkey: log.vkey }, report);
  }
  if (options.saveCheckpoint && report.failures === 0) {
    await io.writeTextFile(options.saveCheckpoint, log.latest.note);
    io.out(`saved the checkpoint (${log.latest.size} entries) to ${options.saveCheckpoint}`);
  }
  return report.failures;
}

// ----------------------------------------------------------------------------------------------
// organization.ts
// A trust center's check: the log's checkpoint, the organization slug's change of holder the
// service shows (verified against the log, failed unless pinned), and the projects the trust
// center lists, each with the command that verifies its profile (signatures, chain and log
// entries are per project: this kit verifies one project a run).

/** The trust center's JSON as far as this check reads it. */
interface Center {
  organization?: { slug?: unknown };
  projects?: unknown;
  publisherChange?: unknown;
}

/**
 * Runs the trust center's checks and prints one line each; returns the number of failures.
 * Throws a FetchError when the trust center or the log cannot be read at all.
 */
export async function verifyOrganization(options: Options, io: Io): Promise<number> {
  const { server, pins } = options;
  const organization = options.organization!;
  const report = new Report(io.out);
  const url = `${server}/public/trust/${organization}`;
  const center = await getJson<Center>(io, url);
  const projects = Array.isArray(center.projects) ? center.projects : null;
  if (center.organization?.slug !== organization || projects === null) {
    report.fail(`organization: ${url} is not the trust center of "${organization}"`);
    return report.failures;
  }
  const log = await readCheckpoint(io, options, report);
  if (!log) return report.failures;
  await checkOrganizationHolder(
    io,
    { server, latest: log.latest },
    { change: center.publisherChange ?? null, organization },
    report,
    pins.organization,
  );
  const slugs = projects.map((p) => (p as { slug?: unknown })?.slug);
  if (!slugs.every((slug): slug is string => typeof slug === "string" && SLUG.test(slug))) {
    report.fail(`organization: ${url} lists a project without a valid slug`);
    return report.failures;
  }
  if (report.failures > 0) return report.failures;
  const kit = options.kit ?? `${server}/verify.ts`;
  report.note(
    `the trust center lists ${slugs.length} project(s); verify each one's profile with:`,
  );
  for (const slug of slugs) report.out(`      deno run --allow-net ${kit} ${server}/trust/${slug}`);
  const pinned = pins.log ? "" : ` --pin log=${log.vkey}`;
  const change = pins.organization === undefined ? "" : ` --pin organization=${pins.organization}`;
  if (pinned !== "") {
    report.note(`trusted on first use: the log key ${log.vkey}; pin it to check this again:`);
    report.out(`      deno run --allow-net ${kit} ${url}${pinned}${change}`);
  }
  if (options.saveCheckpoint) {
    await io.writeTextFile(options.saveCheckpoint, log.latest.note);
    io.out(`saved the checkpoint (${log.latest.size} entries) to ${options.saveCheckpoint}`);
  }
  return report.failures;
}

// ----------------------------------------------------------------------------------------------
// questionnaire.ts
// An answered questionnaire, offline (docs/verifier_kit.md, "Answered questionnaires"): the
// signed manifest, the file's digest and the published versions the answers rest on.

/** `cty` of a questionnaire manifest's protected header. */
const MANIFEST_CTY = "application/vnd.trust-profile.questionnaire-manifest+json";

export interface QuestionnaireOptions {
  manifest: string;
  file: string;
  jwks: string;
  /** Published versions' trust.json or trust.json.jws files the answers rest on. */
  versions: string[];
  pins: Pins;
}

/** Reads the bytes of a file the command line names. */
export interface FileIo {
  readFile(path: string): Promise<Uint8Array>;
  out(line: string): void;
}

const QUESTIONNAIRE_USAGE =
  `Usage: deno run --allow-read verify.ts questionnaire <manifest.jws> <answered file> \\
         --jwks <jwks.json> [--version <trust.json or trust.json.jws>]… [--pin jwks=<kid>]

Verifies, without the network, an answered questionnaire a vendor gave you: the manifest's
signature with the publication key of the JWKS you saved from the vendor's service
(/.well-known/jwks.json), that the file is exactly the one the manifest signs (SHA-256),
and, for each published version document you give (…/versions/N/trust.json or its .jws), that it
is the version the answers rest on (its digest, project and version number).`;

/** Parses `questionnaire …` arguments; null asks for the usage text. */
export function parseQuestionnaireArgs(args: string[]): QuestionnaireOptions | null {
  const positional: string[] = [];
  const versions: string[] = [];
  const pins: Pins = {};
  let jwks: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "help" || arg === "--help" || arg === "-h") return null;
    if (!arg.startsWith("--")) {
      positional.push(arg);
      continue;
    }
    const value = args[++i];
    if (value === undefined) throw new UsageError(`${arg} needs a value`);
    if (arg === "--jwks") jwks = value;
    else if (arg === "--version") versions.push(value);
    else if (arg === "--pin") parsePin(value, pins);
    else throw new UsageError(`Unknown option "${arg}"`);
  }
  if (pins.publisher !== undefined) {
    throw new UsageError("--pin publisher= is for a trust profile's check, not a questionnaire's");
  }
  if (positional.length !== 2) throw new UsageError("Name the manifest and the answered file");
  if (!jwks) throw new UsageError("Give the JWKS you saved with --jwks <file>");
  return { manifest: positional[0], file: positional[1], jwks, versions, pins };
}

interface PinnedVersion {
  projectSlug: string;
  version: number;
  trustJsonDigest: string | null;
  trustJsonUrl: string;
}

interface ManifestPayload {
  type?: string;
  organization?: { slug?: string; name?: string };
  questionnaire?: { id?: string; name?: string };
  file?: { sha256?: string; bytes?: number };
  createdAt?: string;
  rows?: { key?: string; versions?: PinnedVersion[] }[];
  versions?: PinnedVersion[];
}

/** The manifest's payload after its signature verified, or null (the failure reported). */
async function readManifest(
  io: FileIo,
  options: QuestionnaireOptions,
  report: Report,
): Promise<{ manifest: ManifestPayload; ring: Keyring } | null> {
  const jwks = JSON.parse(decoder.decode(await io.readFile(options.jwks)));
  const ring = await keyringOf(jwks, options.jwks, options.pins, report);
  const jws = decoder.decode(await io.readFile(options.manifest));
  let verified: { header: JwsHeader & { cty?: string }; payload: Uint8Array };
  try {
    verified = await verifyJws(jws, ring);
  } catch (error) {
    report.fail(`manifest: ${(error as Error).message}`);
    return null;
  }
  if (verified.header.cty !== MANIFEST_CTY) {
    report.fail(`manifest: its content type is "${verified.header.cty}", not ${MANIFEST_CTY}`);
    return null;
  }
  let manifest: ManifestPayload;
  try {
    manifest = JSON.parse(decoder.decode(verified.payload));
  } catch {
    report.fail("manifest: the signed payload is not JSON");
    return null;
  }
  if (manifest.type !== "questionnaire-manifest") {
    report.fail("manifest: the signed payload is not a questionnaire manifest");
    return null;
  }
  report.pass(
    `manifest: signed by key ${verified.header.kid} for "${manifest.organization?.slug}", ` +
      `questionnaire "${manifest.questionnaire?.name}" (${
        manifest.rows?.length ?? 0
      } answered rows, ${manifest.createdAt})`,
  );
  return { manifest, ring };
}

/** A version document given on the command line: its trust.json bytes (a JWS verified first). */
async function versionDocument(
  io: FileIo,
  path: string,
  ring: Keyring,
  report: Report,
): Promise<Uint8Array | null> {
  const bytes = await io.readFile(path);
  const text = decoder.decode(bytes).trim();
  if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+$/.test(text)) return bytes;
  try {
    const { header, payload } = await verifyJws(text, ring);
    const profile = JSON.parse(decoder.decode(payload));
    if (header.ver !== profile.version) {
      report.fail(`${path}: signed as version ${header.ver} but holds version ${profile.version}`);
      return null;
    }
    return payload;
  } catch (error) {
    report.fail(`${path}: ${(error as Error).message}`);
    return null;
  }
}

/** Checks each given version document against the versions the manifest pins. */
async function checkPinnedVersions(
  io: FileIo,
  options: QuestionnaireOptions,
  manifest: ManifestPayload,
  ring: Keyring,
  report: Report,
): Promise<void> {
  const pinned = manifest.versions ?? [];
  const byDigest = new Map(pinned.map((v) => [v.trustJsonDigest, v]));
  for (const row of manifest.rows ?? []) {
    for (const v of row.versions ?? []) {
      if (byDigest.get(v.trustJsonDigest) !== undefined) continue;
      report.fail(`manifest: row ${row.key} rests on ${v.projectSlug} v${v.version}, not listed`);
    }
  }
  const checked = new Set<PinnedVersion>();
  for (const path of options.versions) {
    const bytes = await versionDocument(io, path, ring, report);
    if (!bytes) continue;
    const digest = `sha256:${hex(await sha256(bytes))}`;
    let profile: { project?: { slug?: string }; version?: number };
    try {
      profile = JSON.parse(decoder.decode(bytes));
    } catch {
      report.fail(`${path}: not a trust.json document`);
      continue;
    }
    const slug = profile.project?.slug;
    const named = pinned.find((v) => v.projectSlug === slug && v.version === profile.version);
    const match = byDigest.get(digest);
    if (!match && !pinned.some((v) => v.projectSlug === slug)) {
      // Nothing to compare it with: no answer rests on this project (none cites its controls),
      // so the document is not needed; it is not evidence against the file either.
      report.note(
        `${path}: not needed, no answer rests on ${
          slug ?? "this project"
        } (none cites its controls)`,
      );
      continue;
    }
    if (!match) {
      report.fail(
        named
          ? `${path}: ${slug} v${profile.version} is not the version the answers rest on (its digest ${digest} differs from ${named.trustJsonDigest})`
          : `${path}: ${slug} v${profile.version} (${digest}) is not a version the manifest pins`,
      );
      continue;
    }
    if (match.projectSlug !== slug || match.version !== profile.version) {
      report.fail(
        `${path}: holds ${slug} v${profile.version}, but the manifest names it ${match.projectSlug} v${match.version}`,
      );
      continue;
    }
    checked.add(match);
    report.pass(
      `${match.projectSlug} v${match.version}: the trust.json the answers rest on (${digest})`,
    );
  }
  for (const v of pinned) {
    if (!checked.has(v)) {
      report.note(
        `${v.projectSlug} v${v.version} not checked: give ${v.trustJsonUrl} with --version`,
      );
    }
  }
}

/**
 * Verifies an answered questionnaire offline: the manifest's signature, the file's digest and
 * the published versions given; returns the number of failures.
 */
export async function verifyQuestionnaire(
  options: QuestionnaireOptions,
  io: FileIo,
): Promise<number> {
  const report = new Report(io.out);
  const read = await readManifest(io, options, report);
  if (!read) return report.failures;
  const { manifest, ring } = read;
  const file = await io.readFile(options.file);
  const digest = hex(await sha256(file));
  if (digest === manifest.file?.sha256 && file.length === manifest.file?.bytes) {
    report.pass(`file: ${options.file} is the answered file the manifest signs (sha256 ${digest})`);
  } else {
    report.fail(
      `file: ${options.file} is not the file the manifest signs (sha256 ${digest}, expected ${manifest.file?.sha256}): an answer or evidence cell changed, or it is another file`,
    );
  }
  await checkPinnedVersions(io, options, manifest, ring, report);
  return report.failures;
}

/** `verify.ts questionnaire …`: exits 0 verified, 1 a check failed, 2 usage, 3 unreadable. */
async function runQuestionnaire(args: string[]): Promise<never> {
  let options: QuestionnaireOptions | null;
  try {
    options = parseQuestionnaireArgs(args);
  } catch (error) {
    console.error(`error: ${(error as Error).message}`);
    console.error(QUESTIONNAIRE_USAGE);
    Deno.exit(2);
  }
  if (!options) {
    console.log(QUESTIONNAIRE_USAGE);
    Deno.exit(0);
  }
  try {
    const failures = await verifyQuestionnaire(options, {
      readFile: Deno.readFile,
      out: (line) => console.log(line),
    });
    if (failures > 0) {
      console.log(`\nNOT VERIFIED: ${failures} check(s) failed for ${options.file}`);
      Deno.exit(1);
    }
    console.log(`\nVERIFIED: ${options.file} as answered and signed`);
    Deno.exit(0);
  } catch (error) {
    console.error(`error: ${(error as Error).message}`);
    console.log("\nNOT VERIFIED: a file could not be read");
    Deno.exit(3);
  }
}

// ----------------------------------------------------------------------------------------------
// main.ts
// The command line: the check of a trust profile, or of a questionnaire.

/** Where the kit is served from: /verify.ts (the joined file; this module's URL there). */
const KIT = import.meta.url.replace(/\/verify\/main\.ts$/, "/verify.ts");

if (import.meta.main && Deno.args[0] === "questionnaire") {
  await runQuestionnaire(Deno.args.slice(1));
}

if (import.meta.main) {
  let options: Options | null;
  try {
    options = parseArgs(Deno.args, KIT);
  } catch (error) {
    console.error(`error: ${(error as Error).message}`);
    console.error("Run with --help for usage.");
    Deno.exit(2);
  }
  if (!options) {
    console.log(usage(KIT));
    Deno.exit(0);
  }
  try {
    const io = {
      fetch,
      readTextFile: Deno.readTextFile,
      writeTextFile: Deno.writeTextFile,
      out: (line: string) => console.log(line),
    };
    const failures = options.organization === undefined
      ? await verify(options, io)
      : await verifyOrganization(options, io);
    const what = options.organization !== undefined
      ? `the trust center "${options.organization}"`
      : options.domain === undefined
      ? `"${options.slug}"`
      : `the custom domain "${options.domain}"`;
    if (failures > 0) {
      console.log(`\nNOT VERIFIED: ${failures} check(s) failed for ${what}`);
      Deno.exit(1);
    }
    console.log(`\nVERIFIED: ${what} at ${options.server}`);
  } catch (error) {
    console.error(`error: ${(error as Error).message}`);
    console.log(`\nNOT VERIFIED: the service could not be read`);
    Deno.exit(3);
  }
}
