/**
 * Backup of the whole service: every KV entry and every blob of an external blob store, in one
 * file (the format: ./backup_format.ts; checking and loading it: ./restore.ts, re-exported
 * here; the guarantees: docs/lifecycle.md "Backup and restore").
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
import {
  BACKUP_FORMAT,
  BACKUP_MAGIC,
  type BackupHeader,
  blobPayload,
  BufferedWriter,
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

export {
  EntryBatch,
  kvIsEmpty,
  restoreBackup,
  type RestoreOptions,
  RestoreRefusedError,
  type RestoreResult,
  verifyBackup,
} from "./restore.ts";
