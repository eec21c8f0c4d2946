/**
 * The export of one organization (docs/lifecycle.md "Export and import"): one ZIP archive,
 * streamed entry by entry (memory bounded by the largest blob, not the organization), with
 *
 * - `<entity>.jsonl`: JSON documents per entity (organization, members, projects, controls,
 *   evidence records, publications, answers, documents, certifications, subprocessors, updates,
 *   webhooks without their secrets, …), one `{"key", "value"}` line per record, for people and
 *   other tools (bytes as `{"$bytes": base64}`, bigints and u64s as strings);
 * - `kv/entries.bin`: every KV entry of the organization (src/store/tenant_keys.ts) and its
 *   members' user records (with `log`, also the public keys that signed), as backup frames
 *   (./backup_format.ts): what `deno task import` writes, value for value;
 * - `blobs/<kind>/<sha256>`: every blob those entries reference (evidence payloads, published
 *   artifacts, logos, documents);
 * - with `log`: the publication log (its head and every node hash, this organization's entry
 *   texts; other tenants' entries erased, as deletion leaves them: their leaf hash only), so
 *   every version keeps its inclusion proof on the new instance;
 * - with `keys` (implies `log`): the private publication and log signing keys too, so the new
 *   instance signs and logs as this one (pinned verifiers keep working), and `WARNING.txt`;
 * - `manifest.json` last: the SHA-256 and size of every other entry.
 *
 * Memory (docs/lifecycle.md "Export and import", tests/lifecycle/org_export_memory_test.ts):
 * the archive is produced as it is read; the text entries are deflated in 64 KiB pieces by one
 * streaming compressor each, entries are serialized 128 at a time (`EntryList`), blobs under
 * 16 KiB are stored and larger ones deflated by the native zlib in one call; what stays is the list of the organization's keys, the set of its
 * blob keys and the ZIP's central directory (one line per entry). At most
 * `MAX_CONCURRENT_EXPORTS` run at once per instance; another is refused with 503 and
 * Retry-After.
 */
import { createHash } from "node:crypto";
import { Buffer } from "node:buffer";
import { deflateRawSync } from "node:zlib";
import type { BlobStore } from "../blobs/mod.ts";
import { parseBlobKey } from "../blobs/mod.ts";
import { unavailable } from "../domain/errors.ts";
import { BLOB_REFERENCE_SOURCES, type BlobReferenceSource } from "../store/blob_references.ts";
import { KEY_COLLECTIONS, organizationKeys } from "../store/tenant_keys.ts";
import { serialize } from "node:v8";

export const EXPORT_FORMAT = "trust-profile-organization-export";
/** 2: entries travel in `L` frames of many entries (1: one `K` frame each; still imported). */
export const EXPORT_VERSION = 2;
export const ENTRIES_PATH = "kv/entries.bin";
export const MANIFEST_PATH = "manifest.json";

/** Said in the response and the archive when private keys travel. */
export const KEYS_WARNING =
  "This archive holds the service's private publication and log signing keys. Anyone holding it can sign trust profiles and log checkpoints as this service: keep it secret, move it only to the instance that replaces this one, and delete it afterwards.";

/** Collections never exported: secrets of webhooks and transient work, rebuilt or re-created. */
export const SKIPPED: ReadonlySet<string> = new Set([
  "webhooks",
  "webhooks_by_user",
  "webhook_writes",
  "webhook_deliveries",
  "webhook_deliveries_by_event",
  "webhook_circuits",
  "webhook_in_flight",
  "webhook_ping_counts",
  "jobs",
  "jobs_due",
  "jobs_due_by_tenant",
  "jobs_backlog",
  "jobs_dead",
  "leases",
]);

/** The log's collections, exported only with `log` (without the tree they would dangle). */
export const LOG_COLLECTIONS: ReadonlySet<string> = new Set([
  "log_entries",
  "log_entries_by_publication",
]);

/** Private keys that move with `keys` (tokens and webhook keys stay with their instance). */
export const MOVED_KEY_PURPOSES: readonly string[] = ["publications", "log"];

/** The JSON documents: file name → collections whose records it holds. */
export const DOCUMENTS: Readonly<Record<string, string[]>> = {
  organization: ["organizations", "organization_profiles"],
  members: ["memberships", "users"],
  projects: ["projects"],
  controls: ["controls"],
  evidence: ["evidence"],
  publications: ["publications"],
  answers: ["answers"],
  questionnaires: ["questionnaires"],
  documents: ["documents", "nda_versions", "document_settings"],
  certifications: ["certifications"],
  subprocessors: ["subprocessors"],
  updates: ["updates"],
  webhooks: ["webhooks"],
  collectors: ["collectors"],
  domains: ["domains"],
  subscriptions: ["subscriptions"],
  access_requests: ["access_requests"],
};

/** Fields left out of the JSON documents (secrets and secret hashes). */
const SECRET_FIELDS = new Set(["secret", "secretHash", "signingSecret", "passwordHash"]);

/**
 * The reference sources whose records are a tenant's own (organization- or project-owned in
 * the tenant key register): the service-wide `logos` metadata names a blob for whoever asks,
 * so it never decides what an organization's archive holds.
 */
const OWN_REFERENCE_SOURCES: readonly BlobReferenceSource[] = BLOB_REFERENCE_SOURCES.filter(
  (source) => isTenantCollection(String(source.prefix[0])),
);

/** Exports running at once per instance at most; one more is answered 503 + Retry-After. */
export const MAX_CONCURRENT_EXPORTS = 3;
/** What a refused export is told to wait, in seconds. */
export const EXPORT_RETRY_AFTER_SECONDS = 30;
/** Blobs smaller than this are stored in the archive uncompressed. */
const STORED_BELOW = 16 * 1024;
/** Bytes of text gathered before they go to an entry's compressor. */
const PIECE_BYTES = 64 * 1024;

let runningExports = 0;

/** How many exports run now (for tests and the usage report). */
export function runningExportCount(): number {
  return runningExports;
}

export interface ExportOptions {
  kv: Deno.Kv;
  blobs: BlobStore;
  organizationId: string;
  /** Carry the publication log (hashes, this organization's entries). */
  log: boolean;
  /** Carry the private publication and log signing keys (and the log). */
  keys: boolean;
  now: Date;
}

/** One manifest line. */
export interface ManifestEntry {
  path: string;
  sha256: string;
  bytes: number;
}

export interface ExportManifest {
  format: typeof EXPORT_FORMAT;
  version: number;
  organizationId: string;
  exportedAt: string;
  log: boolean;
  keys: boolean;
  warning?: string;
  kvEntries: number;
  blobs: number;
  entries: ManifestEntry[];
}

function withLog(options: ExportOptions): boolean {
  return options.log || options.keys;
}

/**
 * The archive as a byte stream, produced as it is read (nothing is produced ahead of the
 * reader). Throws the 503 `unavailable` error when `MAX_CONCURRENT_EXPORTS` exports run
 * already; the slot is given back when the stream ends, fails or is cancelled.
 */
export function exportOrganization(options: ExportOptions): ReadableStream<Uint8Array> {
  if (runningExports >= MAX_CONCURRENT_EXPORTS) {
    throw unavailable(
      `${MAX_CONCURRENT_EXPORTS} organization exports are running on this instance; retry later`,
      EXPORT_RETRY_AFTER_SECONDS,
    );
  }
  runningExports++;
  let held = true;
  const release = () => {
    if (held) runningExports--;
    held = false;
  };
  const chunks = archiveChunks(options);
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await chunks.next();
        if (next.done) {
          release();
          controller.close();
        } else controller.enqueue(next.value);
      } catch (error) {
        release();
        controller.error(error);
      }
    },
    async cancel() {
      release();
      await chunks.return(undefined);
    },
  }, { highWaterMark: 0 });
}

/** Whether a collection holds one tenant's records (the tenant key register says so). */
function isTenantCollection(collection: string): boolean {
  const owner = KEY_COLLECTIONS[collection]?.owner;
  return owner === "organization" || owner === "project";
}

/**
 * The blob keys `entry` references through a declared reference field, when it is one of the
 * organization's own records; nothing for members' user records, public keys or the log.
 */
export function declaredBlobRefs(entry: Deno.KvEntry<unknown>): string[] {
  if (!isTenantCollection(String(entry.key[0]))) return [];
  const found: string[] = [];
  for (const source of OWN_REFERENCE_SOURCES) {
    if (!source.prefix.every((part, i) => entry.key[i] === part)) continue;
    let keys: string[];
    try {
      keys = source.keysOf(entry);
    } catch {
      continue;
    }
    for (const key of keys) {
      if (typeof key !== "string") continue;
      try {
        parseBlobKey(key);
        found.push(key);
      } catch {
        // Not a well-formed blob key: nothing to carry.
      }
    }
  }
  return found;
}

/** Every key the export carries, in order, found before any byte is written. */
async function exportedKeys(options: ExportOptions): Promise<Deno.KvKey[]> {
  const { kv, organizationId } = options;
  const keys: Deno.KvKey[] = [];
  const members: string[] = [];
  for await (const key of organizationKeys(kv, organizationId)) {
    const collection = String(key[0]);
    if (SKIPPED.has(collection)) continue;
    if (!withLog(options) && LOG_COLLECTIONS.has(collection)) continue;
    keys.push(key);
    if (collection === "memberships") members.push(String(key[2]));
  }
  for (const userId of members) {
    const user = await kv.get<{ idpSub?: string }>(["users", userId]);
    if (!user.value) continue;
    keys.push(user.key);
    if (user.value.idpSub) keys.push(["users_by_idp_sub", user.value.idpSub]);
  }
  // Public keys are the instance's: they travel with the log, which an import writes only when
  // its operator says so (`--include log`).
  if (withLog(options)) {
    for await (const entry of kv.list({ prefix: ["signing_public_keys"] })) keys.push(entry.key);
  }
  if (options.keys) {
    for (const purpose of MOVED_KEY_PURPOSES) keys.push(["signing_keys", purpose]);
  }
  if (withLog(options)) {
    keys.push(["log_head"]);
    for await (const entry of kv.list({ prefix: ["log_nodes"] })) keys.push(entry.key);
  }
  return keys;
}

/** Reads `keys` ten at a time (the KV's getMany limit), skipping absent ones. */
async function* entriesOf(kv: Deno.Kv, keys: Deno.KvKey[]): AsyncGenerator<Deno.KvEntry<unknown>> {
  for (let i = 0; i < keys.length; i += 10) {
    for (const entry of await kv.getMany(keys.slice(i, i + 10))) {
      if (entry.versionstamp !== null) yield entry as Deno.KvEntry<unknown>;
    }
  }
}

async function* archiveChunks(options: ExportOptions): AsyncGenerator<Uint8Array> {
  const { Zip, ZipDeflate, ZipPassThrough } = await import("fflate");
  /** A whole entry deflated by the native zlib in one call (no compressor state is kept). */
  class WholeDeflate extends ZipPassThrough {
    constructor(path: string) {
      super(path);
      this.compression = 8;
    }
    override process(chunk: Uint8Array, final: boolean): void {
      this.ondata(null, new Uint8Array(deflateRawSync(chunk, { level: 1 })), final);
    }
  }
  const out: Uint8Array[] = [];
  let failure: Error | null = null;
  const zip = new Zip((error, data) => {
    if (error) failure = error;
    else out.push(data);
  });
  const manifest: ManifestEntry[] = [];
  /**
   * Starts an entry; its bytes go through `push` (gathered into pieces of PIECE_BYTES before
   * they reach the compressor, which otherwise allocates its work buffers for every few
   * kilobytes), then `end` records its digest.
   */
  const open = (path: string, level: 1 | 6) => {
    const file = new ZipDeflate(path, { level });
    zip.add(file);
    const hash = createHash("sha256");
    let bytes = 0;
    let piece: Uint8Array[] = [];
    let pieceBytes = 0;
    const flush = (final: boolean) => {
      const data = piece.length === 1 ? piece[0] : concatBytes(piece, pieceBytes);
      piece = [];
      pieceBytes = 0;
      file.push(data, final);
    };
    return {
      push(data: Uint8Array) {
        hash.update(data);
        bytes += data.length;
        piece.push(data);
        pieceBytes += data.length;
        if (pieceBytes >= PIECE_BYTES) flush(false);
      },
      end() {
        flush(true);
        manifest.push({ path, sha256: hash.digest("hex"), bytes });
      },
    };
  };
  /**
   * Adds a whole entry (a blob) at once: stored as it is below STORED_BELOW bytes (a compressor
   * per small blob costs native memory that only a full collection frees, for little gain),
   * deflated by the native zlib above.
   */
  const whole = (path: string, data: Uint8Array) => {
    const file = data.length < STORED_BELOW ? new ZipPassThrough(path) : new WholeDeflate(path);
    zip.add(file);
    file.push(data, true);
    manifest.push({
      path,
      sha256: createHash("sha256").update(data).digest("hex"),
      bytes: data.length,
    });
  };
  function* drain(): Generator<Uint8Array> {
    if (failure) throw failure;
    while (out.length > 0) yield out.shift()!;
  }

  const keys = await exportedKeys(options);
  const encoder = new TextEncoder();

  if (options.keys) {
    const warning = open("WARNING.txt", 6);
    warning.push(encoder.encode(`${KEYS_WARNING}\n`));
    warning.end();
  }

  // The JSON documents, one entity after another.
  const byCollection = new Map<string, Deno.KvKey[]>();
  for (const key of keys) {
    const collection = String(key[0]);
    if (!byCollection.has(collection)) byCollection.set(collection, []);
    byCollection.get(collection)!.push(key);
  }
  for (const [name, collections] of Object.entries(DOCUMENTS)) {
    const document = open(`${name}.jsonl`, 6);
    for (const collection of collections) {
      const own = collection === "webhooks"
        ? await webhookKeys(options.kv, keys)
        : byCollection.get(collection) ?? [];
      for await (const entry of entriesOf(options.kv, own)) {
        document.push(encoder.encode(`${jsonLine(entry.key, entry.value)}\n`));
        yield* drain();
      }
    }
    document.end();
    yield* drain();
  }

  // The entries themselves, and the blobs they reference.
  const blobKeys = new Set<string>();
  const entries = open(ENTRIES_PATH, 6);
  let kvEntries = 0;
  const list = new EntryList((bytes) => entries.push(bytes));
  const add = (key: Deno.KvKey, value: unknown) => {
    list.add(key, value);
    kvEntries++;
  };
  for await (const entry of entriesOf(options.kv, keys)) {
    for (const key of declaredBlobRefs(entry)) blobKeys.add(key);
    add(entry.key, entry.value);
    yield* drain();
  }
  // Other tenants' log entries travel as erased entries (their leaf hashes are in log_nodes),
  // the form deletion leaves: the imported log answers every index, texts only for this tenant.
  if (withLog(options)) {
    const own = new Set(keys.filter((k) => k[0] === "log_entries").map((k) => Number(k[1])));
    const size = (await options.kv.get<{ size: number }>(["log_head"])).value?.size ?? 0;
    for (let index = 0; index < size; index++) {
      if (own.has(index)) continue;
      add(["log_entries", index], { erased: true });
      if (index % 1000 === 999) yield* drain();
    }
  }
  // An uploaded logo answers at its public URL through its record in the service's `logos`.
  const logos = [...blobKeys].filter((key) => key.startsWith("logo/"));
  const logoKeys = logos.map((key): Deno.KvKey => ["logos", parseBlobKey(key).sha256]);
  for await (const entry of entriesOf(options.kv, logoKeys)) {
    add(entry.key, entry.value);
  }
  list.flush();
  entries.end();
  yield* drain();
  let blobs = 0;
  for (const key of [...blobKeys].sort()) {
    const bytes = await options.blobs.get(key);
    if (bytes === null) continue;
    const { kind, sha256 } = parseBlobKey(key);
    whole(`blobs/${kind}/${sha256}`, bytes);
    blobs++;
    yield* drain();
  }

  const summary: ExportManifest = {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    organizationId: options.organizationId,
    exportedAt: options.now.toISOString(),
    log: withLog(options),
    keys: options.keys,
    ...(options.keys ? { warning: KEYS_WARNING } : {}),
    kvEntries,
    blobs,
    entries: manifest,
  };
  const last = new ZipDeflate(MANIFEST_PATH, { level: 6 });
  zip.add(last);
  last.push(encoder.encode(JSON.stringify(summary, null, 2)), true);
  zip.end();
  yield* drain();
}

/** The webhooks of the organization's projects (for the JSON document only). */
async function webhookKeys(kv: Deno.Kv, keys: Deno.KvKey[]): Promise<Deno.KvKey[]> {
  const found: Deno.KvKey[] = [];
  for (const key of keys) {
    if (key[0] !== "projects" || key.length !== 2) continue;
    for await (const entry of kv.list({ prefix: ["webhooks", key[1]] })) found.push(entry.key);
  }
  return found;
}

/** A record as one JSON line, secrets left out and non-JSON values spelled out. */
function jsonLine(key: Deno.KvKey, value: unknown): string {
  return JSON.stringify({ key, value }, (field, v) => {
    if (SECRET_FIELDS.has(field)) return undefined;
    if (typeof v === "bigint") return v.toString();
    if (v instanceof Deno.KvU64) return v.value.toString();
    if (v instanceof Uint8Array) return { $bytes: Buffer.from(v).toString("base64") };
    if (v instanceof Map) return Object.fromEntries(v);
    if (v instanceof Set) return [...v];
    return v;
  });
}

/** Entries per `L` frame. */
const LIST_ENTRIES = 128;

/**
 * Gathers entries into `L` frames: `[type "L"][length: u32][payload]`, the payload one
 * V8-serialized `{ keys, values, u64 }` (`u64`: the indexes whose value is a `Deno.KvU64`,
 * carried as its bigint). One serialization per 128 entries, not two per entry: node:v8's
 * serializer holds native memory that only a full garbage collection frees, which an export
 * of small records would otherwise pile up by the hundred megabytes.
 */
class EntryList {
  #keys: Deno.KvKey[] = [];
  #values: unknown[] = [];
  #u64: number[] = [];
  constructor(private readonly emit: (bytes: Uint8Array) => void) {}

  add(key: Deno.KvKey, value: unknown): void {
    if (value instanceof Deno.KvU64) {
      this.#u64.push(this.#keys.length);
      value = value.value;
    }
    this.#keys.push(key);
    this.#values.push(value);
    if (this.#keys.length >= LIST_ENTRIES) this.flush();
  }

  flush(): void {
    if (this.#keys.length === 0) return;
    const payload = serialize({ keys: this.#keys, values: this.#values, u64: this.#u64 });
    const out = new Uint8Array(5 + payload.length);
    out[0] = "L".charCodeAt(0);
    new DataView(out.buffer).setUint32(1, payload.length);
    out.set(payload, 5);
    this.#keys = [];
    this.#values = [];
    this.#u64 = [];
    this.emit(out);
  }
}

function concatBytes(chunks: Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}
