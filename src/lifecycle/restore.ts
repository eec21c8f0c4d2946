/**
 * Checking and loading a backup written by ./backup.ts: `verifyBackup` reads the whole file and
 * checks every frame and the trailer's SHA-256; `restoreBackup` does that first, then writes
 * the entries in atomic batches (`EntryBatch`, shared with the organization import) and the
 * blobs, into an empty KV only.
 */
import { createHash } from "node:crypto";
import type { BlobStore } from "../blobs/mod.ts";
import { parseBlobKey } from "../blobs/mod.ts";
import { sha256HexSync } from "../lib/hash.ts";
import {
  BACKUP_FORMAT,
  BackupFormatError,
  type BackupHeader,
  decodeBlob,
  decodeEntry,
  encodeKey,
  FrameReader,
} from "./backup_format.ts";

// Restore batches stay well under Deno KV's 1,000 mutations, 800 KiB per atomic and 80 KiB of
// keys per atomic.
const BATCH_MUTATIONS = 500;
const BATCH_BYTES = 600 * 1024;
const BATCH_KEY_BYTES = 60 * 1024;

/** A restore that must not start (target not empty, blob stores that do not match). */
export class RestoreRefusedError extends Error {
  override name = "RestoreRefusedError";
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
