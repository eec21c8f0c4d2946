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
 * Memory (docs/lifecycle.md "Export and import", docs/bounded-work.md "Organization export
 * memory", tests/lifecycle/org_export_memory_test.ts): the archive is produced as it is read.
 * `kv/entries.bin` is written as the organization's keys are walked (`organizationKeys`
 * streams), 128 entries a frame (`EntryList`); the JSON documents follow, each from the keys
 * the walk kept for it (at most `DOCUMENT_SPOOL_KEYS`) or, for a larger one, from a walk of its
 * own: nothing is kept per record for them. Text entries are deflated in 64 KiB pieces by one
 * streaming compressor each; blobs under 16 KiB are stored and larger ones deflated in one
 * call, one at a time. What still grows with the organization: the walk's seen-set (in
 * src/store/tenant_keys.ts), the blob keys (a `CompactStringSet`, to carry each blob once),
 * their sizes for the manifest and the ZIP's central directory (46 bytes and the name per
 * file, ./zip_writer.ts). At most `MAX_CONCURRENT_EXPORTS` run at once per instance; another
 * is refused with 503 and Retry-After.
 */
import { createHash } from "node:crypto";
import { Buffer } from "node:buffer";
import type { BlobStore } from "../blobs/mod.ts";
import { parseBlobKey } from "../blobs/mod.ts";
import { unavailable } from "../domain/errors.ts";
import { BLOB_REFERENCE_SOURCES, type BlobReferenceSource } from "../store/blob_references.ts";
import { KEY_COLLECTIONS, organizationKeys } from "../store/tenant_keys.ts";
import { serialize } from "node:v8";
import { ZipWriter } from "./zip_writer.ts";
import { CompactStringSet } from "../lib/compact_set.ts";

export const EXPORT_FORMAT = "trust-profile-organization-export";
/** 2: entries travel in `L` frames of many entries (1: one `K` frame each; still imported). */
export const EXPORT_VERSION = 2;
export const ENTRIES_PATH = "kv/entries.bin";
export const MANIFEST_PATH = "manifest.json";

/** Said in the response and the archive when private keys travel. */
export const KEYS_WARNING =
  "This archive holds the service's private publication and log signing keys. Anyone holding it can sign trust profiles and log checkpoints as this service: keep it secret, move it only to the instance that replaces this one, and delete it afterwards.";

/**
 * Collections never exported: secrets of webhooks and personal access tokens, and transient
 * work, rebuilt or re-created.
 */
export const SKIPPED: ReadonlySet<string> = new Set([
  "access_tokens",
  "access_tokens_by_hash",
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
  "log_name_changes",
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
  /** Keys kept per JSON document before it gets a walk of its own (`DOCUMENT_SPOOL_KEYS`). */
  documentSpoolKeys?: number;
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

/** The document (index in DOCUMENTS, plus one) a collection's records go to; 0 for none. */
const DOCUMENT_OF: ReadonlyMap<string, number> = new Map(
  Object.values(DOCUMENTS).flatMap((collections, i) => collections.map((c) => [c, i + 1])),
);

/**
 * Keys a document keeps from the first walk while it has at most this many; past it, the
 * document is written from a walk of its own instead (`DocumentSpool`), so what an export holds
 * for the JSON documents is bounded, not a key per record.
 */
export const DOCUMENT_SPOOL_KEYS = 1000;

/**
 * Every key the export carries, in order, as it is found (the organization's keys as the
 * tenant key register yields them, then its members' user records, then with `log` the
 * instance's public keys and the log's head and nodes, with `keys` the moved private keys).
 * With `only`, just the keys of those collections (a document's second walk), without the
 * instance's keys and the log.
 */
async function* exportedKeys(
  options: ExportOptions,
  only?: ReadonlySet<string>,
): AsyncGenerator<Deno.KvKey> {
  const { kv, organizationId } = options;
  const wanted = (collection: string) => only === undefined || only.has(collection);
  const members: string[] = [];
  for await (const key of organizationKeys(kv, organizationId)) {
    const collection = String(key[0]);
    if (SKIPPED.has(collection)) continue;
    // Visitors' throttling counters (an address that asked for documents) reset by themselves,
    // belong to no tenant, and the import writes only tenants' keys: they stay behind.
    if (KEY_COLLECTIONS[collection]?.owner === "visitor") continue;
    if (!withLog(options) && LOG_COLLECTIONS.has(collection)) continue;
    if (wanted(collection)) yield key;
    if (collection === "memberships" && (wanted("users") || wanted("users_by_idp_sub"))) {
      members.push(String(key[2]));
    }
  }
  for (const userId of members) {
    const user = await kv.get<{ idpSub?: string }>(["users", userId]);
    if (!user.value) continue;
    if (wanted("users")) yield user.key;
    if (user.value.idpSub && wanted("users_by_idp_sub")) {
      yield ["users_by_idp_sub", user.value.idpSub];
    }
  }
  if (only !== undefined) return;
  // Public keys are the instance's: they travel with the log, which an import writes only when
  // its operator says so (`--include log`).
  if (withLog(options)) {
    for await (const entry of kv.list({ prefix: ["signing_public_keys"] })) yield entry.key;
  }
  if (options.keys) {
    for (const purpose of MOVED_KEY_PURPOSES) yield ["signing_keys", purpose];
  }
  if (withLog(options)) {
    yield ["log_head"];
    for await (const entry of kv.list({ prefix: ["log_nodes"] }, { batchSize: 500 })) {
      yield entry.key;
    }
  }
}

/**
 * The JSON documents' keys seen by the first walk: up to DOCUMENT_SPOOL_KEYS per document,
 * `null` for a document that had more (written from a walk of its own).
 */
class DocumentSpool {
  #keys = new Map<number, Deno.KvKey[] | null>();
  constructor(private readonly limit: number) {}

  add(key: Deno.KvKey): void {
    const document = DOCUMENT_OF.get(String(key[0]));
    if (document === undefined) return;
    let held = this.#keys.get(document);
    if (held === null) return;
    if (held === undefined) this.#keys.set(document, held = []);
    if (held.length >= this.limit) this.#keys.set(document, null);
    else held.push(key);
  }

  /**
   * The document's keys (its collections in the order DOCUMENTS lists them, each in the order
   * walked): from what was kept, or, past the limit, from one filtered walk per collection.
   */
  async *keys(options: ExportOptions, document: number): AsyncGenerator<Deno.KvKey> {
    const collections = Object.values(DOCUMENTS)[document - 1];
    const held = this.#keys.get(document);
    if (held === undefined) return;
    for (const collection of collections) {
      if (held === null) yield* exportedKeys(options, new Set([collection]));
      else yield* held.filter((key) => key[0] === collection);
    }
  }
}

/** Reads `keys` ten at a time (the KV's getMany limit), skipping absent ones. */
async function* entriesOf(
  kv: Deno.Kv,
  keys: Iterable<Deno.KvKey> | AsyncIterable<Deno.KvKey>,
): AsyncGenerator<Deno.KvEntry<unknown>> {
  let group: Deno.KvKey[] = [];
  const read = async function* () {
    for (const entry of await kv.getMany(group)) {
      if (entry.versionstamp !== null) yield entry as Deno.KvEntry<unknown>;
    }
    group = [];
  };
  for await (const key of keys) {
    group.push(key);
    if (group.length === 10) yield* read();
  }
  if (group.length > 0) yield* read();
}

async function* archiveChunks(options: ExportOptions): AsyncGenerator<Uint8Array> {
  const fflate = await import("fflate");
  const out: Uint8Array[] = [];
  const zip = new ZipWriter((data) => out.push(data), fflate, options.now);
  /** The manifest's lines of the text entries; the blobs' are made from their keys at the end. */
  const manifest: ManifestEntry[] = [];
  /**
   * Starts an entry; its bytes go through `push` (gathered into pieces of PIECE_BYTES before
   * they reach the compressor, which otherwise works on every few bytes), then `end` records
   * its digest.
   */
  const open = (path: string, level: 1 | 6) => {
    const file = zip.stream(path, level);
    const hash = createHash("sha256");
    let bytes = 0;
    let piece: Uint8Array[] = [];
    let pieceBytes = 0;
    const flush = () => {
      if (pieceBytes > 0) file.push(piece.length === 1 ? piece[0] : concatBytes(piece, pieceBytes));
      piece = [];
      pieceBytes = 0;
    };
    return {
      push(data: Uint8Array) {
        hash.update(data);
        bytes += data.length;
        piece.push(data);
        pieceBytes += data.length;
        if (pieceBytes >= PIECE_BYTES) flush();
      },
      end() {
        flush();
        file.end();
        manifest.push({ path, sha256: hash.digest("hex"), bytes });
      },
    };
  };
  function* drain(): Generator<Uint8Array> {
    while (out.length > 0) yield out.shift()!;
  }

  const encoder = new TextEncoder();

  if (options.keys) {
    const warning = open("WARNING.txt", 6);
    warning.push(encoder.encode(`${KEYS_WARNING}\n`));
    warning.end();
  }

  // The entries themselves as the walk finds them, and the blobs they reference; the JSON
  // documents after them (from the few keys kept per document, or a walk of their own).
  const documents = new DocumentSpool(options.documentSpoolKeys ?? DOCUMENT_SPOOL_KEYS);
  const blobKeys = new CompactStringSet();
  const ownLog = new Set<number>();
  const entries = open(ENTRIES_PATH, 6);
  let kvEntries = 0;
  const list = new EntryList((bytes) => entries.push(bytes));
  const add = (key: Deno.KvKey, value: unknown) => {
    list.add(key, value);
    kvEntries++;
  };
  for await (const entry of entriesOf(options.kv, exportedKeys(options))) {
    for (const key of declaredBlobRefs(entry)) blobKeys.add(key);
    if (entry.key[0] === "log_entries") ownLog.add(Number(entry.key[1]));
    documents.add(entry.key);
    add(entry.key, entry.value);
    yield* drain();
  }
  // Other tenants' log entries travel as erased entries (their leaf hashes are in log_nodes),
  // the form deletion leaves: the imported log answers every index, texts only for this tenant.
  if (withLog(options)) {
    const size = (await options.kv.get<{ size: number }>(["log_head"])).value?.size ?? 0;
    for (let index = 0; index < size; index++) {
      if (ownLog.has(index)) continue;
      add(["log_entries", index], { erased: true });
      if (index % 1000 === 999) yield* drain();
    }
  }
  // An uploaded logo answers at its public URL through its record in the service's `logos`.
  const logoKeys = function* (): Generator<Deno.KvKey> {
    for (const key of blobKeys) {
      if (key.startsWith("logo/")) yield ["logos", parseBlobKey(key).sha256];
    }
  };
  for await (const entry of entriesOf(options.kv, logoKeys())) {
    add(entry.key, entry.value);
  }
  list.flush();
  entries.end();
  yield* drain();

  // The JSON documents, one entity after another.
  let document = 0;
  for (const name of Object.keys(DOCUMENTS)) {
    document++;
    const file = open(`${name}.jsonl`, 6);
    const own = name === "webhooks"
      ? webhookKeys(options.kv, documents.keys(options, DOCUMENT_OF.get("projects")!))
      : documents.keys(options, document);
    for await (const entry of entriesOf(options.kv, own)) {
      file.push(encoder.encode(`${jsonLine(entry.key, entry.value)}\n`));
      yield* drain();
    }
    file.end();
    yield* drain();
  }
  // Each blob's bytes are read, written and let go one at a time, in the order the entries
  // name them; what stays per blob is its key (in the set) and its size, for the manifest.
  const sizes: number[] = [];
  let blobs = 0;
  for (const key of blobKeys) {
    const bytes = await options.blobs.get(key);
    sizes.push(bytes === null ? -1 : bytes.length);
    if (bytes === null) continue;
    const { kind, sha256 } = parseBlobKey(key);
    const digest = createHash("sha256").update(bytes).digest("hex");
    if (digest !== sha256) throw new Error(`blob ${key} does not match its digest`);
    zip.whole(`blobs/${kind}/${sha256}`, bytes, bytes.length >= STORED_BELOW);
    blobs++;
    yield* drain();
  }

  const summary: Omit<ExportManifest, "entries"> = {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    organizationId: options.organizationId,
    exportedAt: options.now.toISOString(),
    log: withLog(options),
    keys: options.keys,
    ...(options.keys ? { warning: KEYS_WARNING } : {}),
    kvEntries,
    blobs,
  };
  // manifest.json as JSON.stringify(…, null, 2) would lay it out, written line by line.
  const last = zip.stream(MANIFEST_PATH, 6);
  const head = JSON.stringify(summary, null, 2);
  const lines: string[] = [`${head.slice(0, -2)},\n  "entries": [`];
  const line = (entry: ManifestEntry, first: boolean) =>
    `${first ? "" : ","}\n    ${JSON.stringify(entry, null, 2).replaceAll("\n", "\n    ")}`;
  let first = true;
  for (const entry of manifest) {
    lines.push(line(entry, first));
    first = false;
  }
  let index = 0;
  for (const key of blobKeys) {
    const bytes = sizes[index++];
    if (bytes < 0) continue;
    const { kind, sha256 } = parseBlobKey(key);
    lines.push(line({ path: `blobs/${kind}/${sha256}`, sha256, bytes }, first));
    first = false;
    if (lines.length >= 256) {
      last.push(encoder.encode(lines.join("")));
      lines.length = 0;
      yield* drain();
    }
  }
  lines.push("\n  ]\n}");
  last.push(encoder.encode(lines.join("")));
  last.end();
  zip.end();
  yield* drain();
}

/** The webhooks of the organization's projects (for the JSON document only). */
async function* webhookKeys(
  kv: Deno.Kv,
  keys: AsyncIterable<Deno.KvKey>,
): AsyncGenerator<Deno.KvKey> {
  for await (const key of keys) {
    if (key[0] !== "projects" || key.length !== 2) continue;
    for await (const entry of kv.list({ prefix: ["webhooks", key[1]] })) yield entry.key;
  }
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
