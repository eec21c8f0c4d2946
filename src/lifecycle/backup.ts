/**
 * Backup and restore of the whole service: every KV entry and every blob of an external blob
 * store, in one file (the format: ./backup_format.ts; the guarantees: docs/lifecycle.md
 * "Backup and restore").
 *
 * Consistency. A Deno KV `list` reads page by page, each page its own snapshot, so a single
 * listing of a KV being written is not a snapshot. The backup therefore lists the KV again
 * after the first pass, comparing every entry's versionstamp with the one recorded, re-reads
 * what changed (new, changed or deleted entries), and repeats until one full listing sees no
 * change at all (at most `maxPasses` listings, then it fails rather than write a file that is
 * not a snapshot). When a listing sees no change, every entry recorded was unchanged from
 * before that listing began until its page was read, so the file holds the KV as it was at
 * the moment that listing began — except an entry created and deleted again in between
 * without touching any entry that remains, which no listing can see.
 *
 * Atomicity. The file is written under a temporary name beside the target, fsynced and
 * renamed only when complete; its trailer holds the SHA-256 of everything before it, and
 * restore checks it (and every frame) before it writes anything.
 */
import { createHash } from "node:crypto";
import { Buffer } from "node:buffer";
import type { BlobStore } from "../blobs/mod.ts";
import { parseBlobKey } from "../blobs/mod.ts";
import { sha256HexSync } from "../lib/hash.ts";
import {
  BACKUP_FORMAT,
  BACKUP_MAGIC,
  BackupFormatError,
  type BackupHeader,
  blobPayload,
  BufferedWriter,
  decodeBlob,
  decodeEntry,
  encodeKey,
  entryKeyBytes,
  entryPayload,
  frame,
  FrameReader,
  headerFrame,
} from "./backup_format.ts";

/** Entries per page of a listing (Deno KV reads at most 1,000 entries at once). */
const LIST_BATCH = 500;
/** Default number of full listings before the backup gives up on a KV that keeps changing. */
export const DEFAULT_MAX_PASSES = 5;
// Restore batches stay well under Deno KV's 1,000 mutations, 800 KiB per atomic and 80 KiB of
// keys per atomic.
const BATCH_MUTATIONS = 500;
const BATCH_BYTES = 600 * 1024;
const BATCH_KEY_BYTES = 60 * 1024;

export interface BackupOptions {
  kv: Deno.Kv;
  /** The blob store, read for the keys `blobKeys` yields; null when blobs live in the KV. */
  blobs: { store: BlobStore; keys: () => AsyncIterable<string> } | null;
  /** Where the file goes; written as `<path>.partial-…` and renamed when complete. */
  path: string;
  /** How the KV was opened (header `kv`). */
  kvLabel: string;
  maxPasses?: number;
  now?: () => Date;
  /** Called between listings with what the last one saw (operator progress). */
  onPass?: (pass: { pass: number; entries: number; changed: number }) => void | Promise<void>;
}

export interface BackupResult extends BackupHeader {
  path: string;
  bytes: number;
  sha256: string;
}

/** The KV would not hold still: every allowed listing saw changes. Nothing was written. */
export class BackupNotConsistentError extends Error {
  override name = "BackupNotConsistentError";
}

/** A restore that must not start (target not empty, blob stores that do not match). */
export class RestoreRefusedError extends Error {
  override name = "RestoreRefusedError";
}

/** Every blob key of `store`, a page of 1,000 at a time, in key order. */
export async function* listBlobKeys(store: BlobStore): AsyncGenerator<string> {
  let after: string | undefined;
  for (;;) {
    const page = await store.list({ after, limit: 1000 });
    if (page.length === 0) return;
    for (const blob of page) yield blob.key;
    after = page[page.length - 1].key;
  }
}

/** Writes the backup file; resolves with its header, size and digest once it is in place. */
export async function writeBackup(options: BackupOptions): Promise<BackupResult> {
  const suffix = crypto.randomUUID().slice(0, 8);
  const spoolPath = `${options.path}.spool-${suffix}`;
  const blobSpoolPath = `${options.path}.blobs-${suffix}`;
  const partialPath = `${options.path}.partial-${suffix}`;
  try {
    const snapshot = await snapshotKv(options, spoolPath);
    const blobs = await spoolBlobs(options, blobSpoolPath);
    const header: BackupHeader = {
      format: BACKUP_FORMAT,
      createdAt: (options.now?.() ?? new Date()).toISOString(),
      kv: options.kvLabel,
      blobStore: options.blobs ? "s3" : "kv",
      kvEntries: snapshot.stamps.size,
      blobs: blobs.count,
      blobBytes: blobs.bytes,
      passes: snapshot.passes,
      changedDuringBackup: snapshot.changed,
    };
    const written = await assemble(partialPath, header, spoolPath, snapshot.patch, blobs.path);
    await Deno.rename(partialPath, options.path);
    await syncDirectory(options.path);
    return { ...header, path: options.path, bytes: written.bytes, sha256: written.sha256 };
  } finally {
    for (const path of [spoolPath, blobSpoolPath, partialPath]) {
      await Deno.remove(path).catch(() => {});
    }
  }
}

interface Snapshot {
  /** Versionstamp per entry (by serialized key, base64) as of the consistent listing. */
  stamps: Map<string, string>;
  /** Entries re-read after the first pass (payload), or deleted since (null). */
  patch: Map<string, Uint8Array | null>;
  passes: number;
  changed: number;
}

/** Lists the KV into `spoolPath`, then again until a listing sees no change. */
async function snapshotKv(options: BackupOptions, spoolPath: string): Promise<Snapshot> {
  const stamps = new Map<string, string>();
  const patch = new Map<string, Uint8Array | null>();
  const file = await Deno.open(spoolPath, { write: true, createNew: true });
  try {
    const out = new BufferedWriter(file);
    for await (const entry of options.kv.list({ prefix: [] }, { batchSize: LIST_BATCH })) {
      const keyBytes = encodeKey(entry.key);
      stamps.set(keyId(keyBytes), entry.versionstamp);
      await out.write(frame("K", entryPayload(keyBytes, entry.value)));
    }
    await out.flush();
  } finally {
    file.close();
  }
  await options.onPass?.({ pass: 1, entries: stamps.size, changed: 0 });

  const maxPasses = options.maxPasses ?? DEFAULT_MAX_PASSES;
  let changedTotal = 0;
  for (let pass = 2; pass <= maxPasses; pass++) {
    const changes = await changesSince(options.kv, stamps);
    await options.onPass?.({ pass, entries: stamps.size, changed: changes.size });
    if (changes.size === 0) return { stamps, patch, passes: pass, changed: changedTotal };
    changedTotal += changes.size;
    for (const [id, change] of changes) {
      patch.set(id, change?.payload ?? null);
      if (change) stamps.set(id, change.versionstamp);
      else stamps.delete(id);
    }
  }
  throw new BackupNotConsistentError(
    `the KV kept changing through ${maxPasses} listings; stop the writers (or retry when quieter)`,
  );
}

/** One full listing compared with `stamps`: what is new or changed (payload), or gone (null). */
async function changesSince(kv: Deno.Kv, stamps: Map<string, string>) {
  const changes = new Map<string, { payload: Uint8Array; versionstamp: string } | null>();
  const seen = new Set<string>();
  for await (const entry of kv.list({ prefix: [] }, { batchSize: LIST_BATCH })) {
    const keyBytes = encodeKey(entry.key);
    const id = keyId(keyBytes);
    seen.add(id);
    if (stamps.get(id) === entry.versionstamp) continue;
    changes.set(id, {
      payload: entryPayload(keyBytes, entry.value),
      versionstamp: entry.versionstamp,
    });
  }
  for (const id of stamps.keys()) if (!seen.has(id)) changes.set(id, null);
  return changes;
}

function keyId(keyBytes: Uint8Array): string {
  return Buffer.from(keyBytes.buffer, keyBytes.byteOffset, keyBytes.byteLength).toString("base64");
}

/**
 * Reads every blob the external store lists into `path` as `B` frames. Blobs are immutable
 * (content-addressed) and written before the KV entries that reference them, so listing them
 * after the KV snapshot finds every blob the snapshot references; one removed in between (by
 * pruning) is skipped.
 */
async function spoolBlobs(options: BackupOptions, path: string) {
  const result = { path, count: 0, bytes: 0 };
  const file = await Deno.open(path, { write: true, createNew: true });
  try {
    if (!options.blobs) return result;
    const out = new BufferedWriter(file);
    for await (const key of options.blobs.keys()) {
      const bytes = await options.blobs.store.get(key);
      if (bytes === null) continue;
      await out.write(frame("B", blobPayload(key, bytes)));
      result.count++;
      result.bytes += bytes.length;
    }
    await out.flush();
    return result;
  } finally {
    file.close();
  }
}

/** The final file: header, entries (the first listing with the changes applied), blobs, trailer. */
async function assemble(
  path: string,
  header: BackupHeader,
  spoolPath: string,
  patch: Map<string, Uint8Array | null>,
  blobSpoolPath: string,
): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash("sha256");
  const file = await Deno.open(path, { write: true, createNew: true });
  try {
    let hashing = true;
    const out = new BufferedWriter(file, (bytes) => hashing && hash.update(bytes));
    await out.write(BACKUP_MAGIC);
    await out.write(headerFrame(header));
    let entries = 0;
    await copyFrames(spoolPath, async (f) => {
      if (patch.has(keyId(entryKeyBytes(f.payload)))) return;
      entries++;
      await out.write(f.raw);
    });
    for (const payload of patch.values()) {
      if (payload === null) continue;
      entries++;
      await out.write(frame("K", payload));
    }
    if (entries !== header.kvEntries) {
      throw new Error(`assembled ${entries} entries, expected ${header.kvEntries}`);
    }
    await copyFrames(blobSpoolPath, (f) => out.write(f.raw));
    const digest = new Uint8Array(hash.digest());
    hashing = false;
    await out.write(frame("E", digest));
    await out.flush();
    await file.sync();
    return { bytes: out.written, sha256: Buffer.from(digest).toString("hex") };
  } finally {
    file.close();
  }
}

async function copyFrames(
  path: string,
  each: (f: { payload: Uint8Array; raw: Uint8Array }) => Promise<void>,
) {
  const file = await Deno.open(path, { read: true });
  try {
    const reader = new FrameReader(file);
    for (let f = await reader.next(); f !== null; f = await reader.next()) await each(f);
  } finally {
    file.close();
  }
}

/** Makes the rename durable where the platform lets a directory be fsynced (Linux, macOS). */
async function syncDirectory(path: string): Promise<void> {
  const dir = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) || "/" : ".";
  try {
    const handle = await Deno.open(dir, { read: true });
    try {
      await handle.sync();
    } finally {
      handle.close();
    }
  } catch {
    // Windows cannot open a directory; the rename is then as durable as the OS makes it.
  }
}

/**
 * Reads the whole file and checks it: magic, header, every frame decodes, every blob matches
 * its key, the counts match the header, and the trailer's SHA-256 matches everything before
 * it, with nothing after it. Resolves with the header; throws a BackupFormatError otherwise.
 */
export async function verifyBackup(path: string): Promise<BackupHeader> {
  const file = await Deno.open(path, { read: true });
  try {
    const reader = new FrameReader(file);
    const hash = createHash("sha256");
    hash.update(await reader.readMagic());
    const first = await reader.next();
    if (!first || first.type !== "H") throw new BackupFormatError("the header is missing");
    const header = parseHeader(first.payload);
    hash.update(first.raw);
    let entries = 0;
    let blobs = 0;
    for (let f = await reader.next(); f !== null; f = await reader.next()) {
      if (f.type === "E") {
        const digest = new Uint8Array(hash.digest());
        if (f.payload.length !== 32 || !digest.every((b, i) => b === f.payload[i])) {
          throw new BackupFormatError("the trailer's SHA-256 does not match the file (corrupted)");
        }
        if (!(await reader.atEnd())) throw new BackupFormatError("bytes follow the trailer");
        if (entries !== header.kvEntries || blobs !== header.blobs) {
          throw new BackupFormatError(
            `the file holds ${entries} entries and ${blobs} blobs, its header says ${header.kvEntries} and ${header.blobs}`,
          );
        }
        return header;
      }
      hash.update(f.raw);
      if (f.type === "K") {
        decodeEntry(f.payload);
        entries++;
      } else if (f.type === "B") {
        checkBlob(f.payload);
        blobs++;
      } else {
        throw new BackupFormatError(`a "${f.type}" frame where entries or blobs belong`);
      }
    }
    throw new BackupFormatError("the trailer is missing (an interrupted or truncated backup)");
  } finally {
    file.close();
  }
}

function parseHeader(payload: Uint8Array): BackupHeader {
  let header: BackupHeader;
  try {
    header = JSON.parse(new TextDecoder().decode(payload));
  } catch {
    throw new BackupFormatError("the header is not JSON");
  }
  if (header?.format !== BACKUP_FORMAT) {
    throw new BackupFormatError(`format ${header?.format} is not ${BACKUP_FORMAT}`);
  }
  if (!Number.isSafeInteger(header.kvEntries) || !Number.isSafeInteger(header.blobs)) {
    throw new BackupFormatError("the header's counts are not numbers");
  }
  return header;
}

function checkBlob(payload: Uint8Array): { key: string; bytes: Uint8Array } {
  const blob = decodeBlob(payload);
  let sha256: string;
  try {
    sha256 = parseBlobKey(blob.key).sha256;
  } catch {
    throw new BackupFormatError(`a blob key is malformed`);
  }
  if (sha256HexSync(blob.bytes) !== sha256) {
    throw new BackupFormatError(`blob "${blob.key}" does not match its SHA-256`);
  }
  return blob;
}

export interface RestoreOptions {
  kv: Deno.Kv;
  /** The target's blob store and where it keeps blobs. */
  blobs: BlobStore;
  blobStore: "kv" | "s3";
  path: string;
}

export interface RestoreResult {
  header: BackupHeader;
  kvEntries: number;
  blobs: number;
  blobBytes: number;
  /** Atomic commits the entries took. */
  commits: number;
}

/** Whether the KV holds any entry at all. */
export async function kvIsEmpty(kv: Deno.Kv): Promise<boolean> {
  for await (const _ of kv.list({ prefix: [] }, { limit: 1 })) return false;
  return true;
}

/**
 * Loads a backup into an empty KV (and its blob store): checks the whole file first, then
 * writes the entries in atomic batches, then the blobs. Refuses a KV holding any entry.
 */
export async function restoreBackup(options: RestoreOptions): Promise<RestoreResult> {
  if (!(await kvIsEmpty(options.kv))) {
    throw new RestoreRefusedError(
      "the target KV is not empty; restore only into an empty database (a new KV_PATH)",
    );
  }
  const header = await verifyBackup(options.path);
  if (header.blobStore === "kv" && options.blobStore === "s3") {
    throw new RestoreRefusedError(
      "the backup keeps its blobs in the KV, the target is configured with BLOB_STORE=s3; restore with BLOB_STORE=kv",
    );
  }
  const result: RestoreResult = { header, kvEntries: 0, blobs: 0, blobBytes: 0, commits: 0 };
  const file = await Deno.open(options.path, { read: true });
  try {
    const reader = new FrameReader(file);
    await reader.readMagic();
    let batch = new EntryBatch();
    for (let f = await reader.next(); f !== null; f = await reader.next()) {
      if (f.type === "K") {
        const entry = decodeEntry(f.payload);
        if (!batch.fits(entry)) {
          result.commits += await batch.commit(options.kv);
          batch = new EntryBatch();
        }
        batch.add(entry);
        result.kvEntries++;
      } else if (f.type === "B") {
        const blob = checkBlob(f.payload);
        const kind = parseBlobKey(blob.key).kind;
        await options.blobs.put(kind, blob.bytes);
        result.blobs++;
        result.blobBytes += blob.bytes.length;
      }
    }
    result.commits += await batch.commit(options.kv);
    return result;
  } finally {
    file.close();
  }
}

/** Entries for one atomic commit, within Deno KV's limits. */
export class EntryBatch {
  #entries: { key: Deno.KvKey; value: unknown }[] = [];
  #bytes = 0;
  #keyBytes = 0;

  fits(entry: { key: Deno.KvKey; bytes: number }): boolean {
    const keyBytes = encodeKey(entry.key).length;
    return this.#entries.length === 0 ||
      (this.#entries.length < BATCH_MUTATIONS && this.#bytes + entry.bytes <= BATCH_BYTES &&
        this.#keyBytes + keyBytes <= BATCH_KEY_BYTES);
  }

  add(entry: { key: Deno.KvKey; value: unknown; bytes: number }): void {
    this.#entries.push(entry);
    this.#bytes += entry.bytes;
    this.#keyBytes += encodeKey(entry.key).length;
  }

  /** Commits the batch; resolves with the number of commits (0 or 1). */
  async commit(kv: Deno.Kv): Promise<number> {
    if (this.#entries.length === 0) return 0;
    const op = kv.atomic();
    for (const { key, value } of this.#entries) op.set(key, value);
    const result = await op.commit();
    if (!result.ok) throw new Error("a restore batch was not committed");
    return 1;
  }
}
