/**
 * The import of an organization archive (./org_export.ts) into an empty instance, run by the
 * operator (`deno task import <archive>`) before the service starts on the target. Two passes
 * over the archive, each streamed: the first computes the SHA-256 of every entry and checks them
 * all against `manifest.json` (a missing, extra or changed entry refuses the archive before
 * anything is written); the second writes the KV entries in atomic batches and the blobs through
 * the target's blob store.
 */
import { createHash } from "node:crypto";
import type { BlobStore } from "../blobs/mod.ts";
import { parseBlobKey } from "../blobs/mod.ts";
import { decodeEntry, FRAME_HEAD_BYTES } from "./backup_format.ts";
import { EntryBatch, RestoreRefusedError } from "./backup.ts";
import {
  ENTRIES_PATH,
  EXPORT_FORMAT,
  EXPORT_VERSION,
  type ExportManifest,
  MANIFEST_PATH,
} from "./org_export.ts";

/** The archive is not an intact export of this service. Nothing was written. */
export class ImportRefusedError extends Error {
  override name = "ImportRefusedError";
}

export interface ImportResult {
  manifest: ExportManifest;
  kvEntries: number;
  blobs: number;
  commits: number;
}

/** Collections whose presence means the target already serves someone. */
const OCCUPIED = ["organizations", "projects", "users", "log_head"];

/**
 * Refuses a target that holds an organization, a project, a user or a publication log (an
 * instance started once but never used is fine: its setup token, upgrade markers and generated
 * keys do not conflict), and one whose own signing keys would be replaced by the archive's.
 */
async function checkEmpty(kv: Deno.Kv, manifest: ExportManifest): Promise<void> {
  for (const collection of OCCUPIED) {
    for await (const _ of kv.list({ prefix: [collection] }, { limit: 1 })) {
      throw new RestoreRefusedError(
        `the target is not empty (it holds ${collection}); import only into a new instance`,
      );
    }
  }
  if (!manifest.keys) return;
  for (const purpose of ["publications", "log"]) {
    if ((await kv.get(["signing_keys", purpose])).versionstamp !== null) {
      throw new RestoreRefusedError(
        `the target has its own ${purpose} signing key already; import an archive with keys before the service first starts`,
      );
    }
  }
}

type FileHandler = (name: string) => {
  data(chunk: Uint8Array): void;
  end(): void;
} | null;

/** Streams `path` through fflate's Unzip, calling `handler` per file with its bytes. */
async function unzipFile(
  path: string,
  handler: FileHandler,
  afterChunk: () => Promise<void> = () => Promise.resolve(),
): Promise<void> {
  const { Unzip, UnzipInflate } = await import("fflate");
  let failure: unknown = null;
  const unzip = new Unzip((file) => {
    const sink = handler(file.name);
    file.ondata = (error, data, final) => {
      if (error) failure ??= error;
      else if (sink) {
        sink.data(data);
        if (final) sink.end();
      }
    };
    file.start();
  });
  unzip.register(UnzipInflate);
  const input = await Deno.open(path, { read: true });
  try {
    const buffer = new Uint8Array(256 * 1024);
    for (;;) {
      const read = await input.read(buffer);
      if (read === null) break;
      try {
        unzip.push(buffer.slice(0, read), false);
      } catch (error) {
        failure ??= error;
      }
      if (failure) break;
      await afterChunk();
    }
    if (!failure) {
      try {
        unzip.push(new Uint8Array(0), true);
      } catch (error) {
        failure ??= error;
      }
    }
  } finally {
    input.close();
  }
  if (failure) {
    throw new ImportRefusedError(`the archive does not unzip: ${(failure as Error).message}`);
  }
}

/** Pass 1: every entry's digest against the manifest. Resolves with the manifest. */
export async function verifyArchive(path: string): Promise<ExportManifest> {
  const digests = new Map<string, { sha256: string; bytes: number }>();
  let manifestBytes: Uint8Array[] | null = null;
  await unzipFile(path, (name) => {
    if (digests.has(name) || (name === MANIFEST_PATH && manifestBytes)) {
      throw new ImportRefusedError(`"${name}" appears twice in the archive`);
    }
    if (name === MANIFEST_PATH) {
      const chunks: Uint8Array[] = [];
      manifestBytes = chunks;
      return { data: (chunk) => chunks.push(chunk), end() {} };
    }
    const hash = createHash("sha256");
    let bytes = 0;
    return {
      data(chunk) {
        hash.update(chunk);
        bytes += chunk.length;
      },
      end: () => digests.set(name, { sha256: hash.digest("hex"), bytes }),
    };
  });
  if (!manifestBytes) throw new ImportRefusedError("the archive has no manifest.json");
  let manifest: ExportManifest;
  try {
    manifest = JSON.parse(new TextDecoder().decode(concat(manifestBytes)));
  } catch {
    throw new ImportRefusedError("manifest.json is not JSON");
  }
  if (manifest?.format !== EXPORT_FORMAT || manifest.version !== EXPORT_VERSION) {
    throw new ImportRefusedError(`not an organization export of format ${EXPORT_VERSION}`);
  }
  const listed = new Set<string>();
  for (const entry of manifest.entries ?? []) {
    listed.add(entry.path);
    const found = digests.get(entry.path);
    if (!found) throw new ImportRefusedError(`"${entry.path}" is in the manifest, not the archive`);
    if (found.sha256 !== entry.sha256 || found.bytes !== entry.bytes) {
      throw new ImportRefusedError(`"${entry.path}" does not match its SHA-256 in the manifest`);
    }
  }
  for (const name of digests.keys()) {
    if (!listed.has(name)) throw new ImportRefusedError(`"${name}" is not in the manifest`);
  }
  if (!listed.has(ENTRIES_PATH)) throw new ImportRefusedError(`the archive has no ${ENTRIES_PATH}`);
  return manifest;
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

/** Splits a byte stream into backup frames as chunks arrive. */
class FrameSplitter {
  #pending: Uint8Array[] = [];
  #size = 0;

  push(chunk: Uint8Array): Uint8Array[] {
    this.#pending.push(chunk);
    this.#size += chunk.length;
    const frames: Uint8Array[] = [];
    let all = concat(this.#pending);
    let offset = 0;
    while (all.length - offset >= FRAME_HEAD_BYTES) {
      const length = new DataView(all.buffer, all.byteOffset + offset + 1).getUint32(0);
      if (all.length - offset - FRAME_HEAD_BYTES < length) break;
      if (all[offset] !== "K".charCodeAt(0)) {
        throw new ImportRefusedError(`${ENTRIES_PATH} holds something other than entries`);
      }
      frames.push(all.subarray(offset + FRAME_HEAD_BYTES, offset + FRAME_HEAD_BYTES + length));
      offset += FRAME_HEAD_BYTES + length;
    }
    all = all.slice(offset);
    this.#pending = all.length ? [all] : [];
    this.#size = all.length;
    return frames;
  }

  get leftover(): number {
    return this.#size;
  }
}

export interface ImportOptions {
  kv: Deno.Kv;
  blobs: BlobStore;
  path: string;
}

/** Checks the archive whole, then writes it into the (empty) target. */
export async function importOrganization(options: ImportOptions): Promise<ImportResult> {
  const manifest = await verifyArchive(options.path);
  await checkEmpty(options.kv, manifest);
  const result: ImportResult = { manifest, kvEntries: 0, blobs: 0, commits: 0 };
  const frames: Uint8Array[] = [];
  const blobs: { key: string; bytes: Uint8Array }[] = [];
  const splitter = new FrameSplitter();
  let batch = new EntryBatch();
  const flushFrames = async () => {
    for (const payload of frames.splice(0)) {
      const entry = decodeEntry(payload);
      if (!batch.fits(entry)) {
        result.commits += await batch.commit(options.kv);
        batch = new EntryBatch();
      }
      batch.add(entry);
      result.kvEntries++;
    }
  };
  const flushBlobs = async () => {
    for (const blob of blobs.splice(0)) {
      await options.blobs.put(parseBlobKey(blob.key).kind, blob.bytes);
      result.blobs++;
    }
  };
  // Unzip calls back synchronously: what a chunk of the archive yielded is written before the
  // next chunk is read, so memory holds one chunk's frames and at most one blob.
  await unzipFile(options.path, (name) => {
    if (name === ENTRIES_PATH) {
      return {
        data: (chunk) => frames.push(...splitter.push(chunk)),
        end: () => {
          if (splitter.leftover) throw new ImportRefusedError(`${ENTRIES_PATH} is truncated`);
        },
      };
    }
    const match = name.match(/^blobs\/(evidence|artifact|logo|document)\/([0-9a-f]{64})$/);
    if (!match) return null;
    const chunks: Uint8Array[] = [];
    return {
      data: (chunk) => chunks.push(chunk),
      end: () => blobs.push({ key: `${match[1]}/${match[2]}`, bytes: concat(chunks) }),
    };
  }, async () => {
    await flushFrames();
    await flushBlobs();
  });
  await flushFrames();
  result.commits += await batch.commit(options.kv);
  await flushBlobs();
  if (result.kvEntries !== manifest.kvEntries || result.blobs !== manifest.blobs) {
    throw new Error(
      `imported ${result.kvEntries} entries and ${result.blobs} blobs, the manifest says ${manifest.kvEntries} and ${manifest.blobs}`,
    );
  }
  return result;
}
