/**
 * The import of an organization archive (./org_export.ts) into an empty instance, run by the
 * operator (`deno task import <archive> [--include log|keys-and-log]`). Nothing in the archive
 * is trusted: its manifest digests are unsigned (anyone can recompute them), so they only catch
 * damage. Passes over the archive, each streamed:
 *
 * 1. every file's SHA-256 against `manifest.json` (a missing, extra or changed file refuses the
 *    archive), and only the files an export writes (`<entity>.jsonl`, `kv/entries.bin`,
 *    `blobs/<kind>/<sha256>` whose bytes hash to that name, `WARNING.txt`);
 * 2. the KV entries, decoded into a scratch KV beside the target and each one checked: it must
 *    be a key the tenant key register (src/store/tenant_keys.ts, `organizationKeys`) finds for
 *    the archive's organization, a member's user record, the service's metadata of the
 *    organization's own logo, or, only with the operator's `--include`, the publication log
 *    (`log`) and the signing keys (`keys-and-log`, which implies the log; public keys come with
 *    either); no key may exist in the target already; every blob must be one the organization's
 *    own records name through a declared reference field (src/store/blob_references.ts). The
 *    target must hold no organization, project, user or log, and, with `--include`, no signing
 *    key, public key or log entry of its own: checked in the KV, whatever the manifest says;
 * 3. only then the entries are written (from the scratch KV, in atomic batches) and the blobs
 *    through the target's blob store.
 *
 * Anything else refuses the whole archive with an ImportRefusedError before anything is written.
 */
import { createHash } from "node:crypto";
import { deserialize, serialize } from "node:v8";
import type { BlobStore } from "../blobs/mod.ts";
import { parseBlobKey } from "../blobs/mod.ts";
import { KEY_COLLECTIONS, organizationKeys } from "../store/tenant_keys.ts";
import {
  BackupFormatError,
  decodeEntry,
  encodeKey,
  entryPayload,
  FRAME_HEAD_BYTES,
} from "./backup_format.ts";
import { EntryBatch, RestoreRefusedError } from "./backup.ts";
import {
  declaredBlobRefs,
  DOCUMENTS,
  ENTRIES_PATH,
  EXPORT_FORMAT,
  EXPORT_VERSION,
  type ExportManifest,
  LOG_COLLECTIONS,
  MANIFEST_PATH,
  MOVED_KEY_PURPOSES,
  SKIPPED,
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

/** What the operator lets an import write besides the organization's own data. */
export type ImportInclude = "none" | "log" | "keys-and-log";

/** Collections whose presence means the target already serves someone. */
const OCCUPIED = ["organizations", "projects", "users", "log_head"];
/** The instance's keys and log: with `--include`, the target must hold none of them. */
const INSTANCE_COLLECTIONS = [
  "signing_keys",
  "signing_public_keys",
  "log_head",
  "log_nodes",
  "log_entries",
];
/** The log's service-wide collections, written only with `--include log` or more. */
const LOG_SERVICE_COLLECTIONS = new Set(["log_head", "log_nodes", "log_entries"]);

/**
 * Refuses a target that holds an organization, a project, a user or a publication log (an
 * instance started once but never used is fine: its setup token, upgrade markers and generated
 * keys do not conflict), and, when the operator includes the log or the keys, one that has any
 * signing key, public key or log entry of its own (import those before the first start). Read
 * in the KV itself: the manifest's `keys` and `log` say nothing the archive proves.
 */
async function checkEmpty(kv: Deno.Kv, include: ImportInclude): Promise<void> {
  for (const collection of OCCUPIED) {
    for await (const _ of kv.list({ prefix: [collection] }, { limit: 1 })) {
      throw new RestoreRefusedError(
        `the target is not empty (it holds ${collection}); import only into a new instance`,
      );
    }
  }
  if (include === "none") return;
  for (const collection of INSTANCE_COLLECTIONS) {
    for await (const _ of kv.list({ prefix: [collection] }, { limit: 1 })) {
      throw new RestoreRefusedError(
        `the target has its own ${collection} already; --include ${include} imports only into an instance that has never started`,
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
  if (manifest?.format !== EXPORT_FORMAT || ![1, EXPORT_VERSION].includes(manifest.version)) {
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
  for (const [name, found] of digests) {
    if (!listed.has(name)) throw new ImportRefusedError(`"${name}" is not in the manifest`);
    const blob = name.match(BLOB_PATH);
    if (blob && blob[2] !== found.sha256) {
      throw new ImportRefusedError(`"${name}" does not hold the bytes its name is the SHA-256 of`);
    }
    if (!blob && !EXPORT_FILES.has(name)) {
      throw new ImportRefusedError(`"${name}" is not a file an organization export holds`);
    }
  }
  if (!listed.has(ENTRIES_PATH)) throw new ImportRefusedError(`the archive has no ${ENTRIES_PATH}`);
  if (typeof manifest.organizationId !== "string" || manifest.organizationId === "") {
    throw new ImportRefusedError("the manifest names no organization");
  }
  return manifest;
}

const BLOB_PATH = /^blobs\/(evidence|artifact|logo|document)\/([0-9a-f]{64})$/;
/** The files of an export besides its blobs. */
const EXPORT_FILES = new Set([
  ENTRIES_PATH,
  "WARNING.txt",
  ...Object.keys(DOCUMENTS).map((name) => `${name}.jsonl`),
]);

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
      if (all[offset] !== "K".charCodeAt(0) && all[offset] !== "L".charCodeAt(0)) {
        throw new ImportRefusedError(`${ENTRIES_PATH} holds something other than entries`);
      }
      frames.push(all.subarray(offset, offset + FRAME_HEAD_BYTES + length));
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
  /** What the operator lets it write besides the organization's data (default "none"). */
  include?: ImportInclude;
  /** Where the scratch KV goes (default: the system's temporary directory). */
  scratchDir?: string;
}

/** Decodes every entry of the archive's `kv/entries.bin` into `scratch`, streamed. */
async function decodeEntries(path: string, scratch: Deno.Kv): Promise<number> {
  const frames: Uint8Array[] = [];
  const splitter = new FrameSplitter();
  let batch = new EntryBatch();
  let count = 0;
  const flush = async () => {
    for (const bytes of frames.splice(0)) {
      let decoded;
      try {
        decoded = bytes[0] === "L".charCodeAt(0)
          ? decodeList(bytes.subarray(FRAME_HEAD_BYTES))
          : [decodeEntry(bytes.subarray(FRAME_HEAD_BYTES))];
      } catch (error) {
        if (error instanceof BackupFormatError) throw new ImportRefusedError(error.message);
        throw error;
      }
      for (const entry of decoded) {
        if (!batch.fits(entry)) {
          await batch.commit(scratch);
          batch = new EntryBatch();
        }
        batch.add(entry);
        count++;
      }
    }
  };
  await unzipFile(path, (name) => {
    if (name !== ENTRIES_PATH) return null;
    return {
      data: (chunk) => frames.push(...splitter.push(chunk)),
      end: () => {
        if (splitter.leftover) throw new ImportRefusedError(`${ENTRIES_PATH} is truncated`);
      },
    };
  }, flush);
  await flush();
  await batch.commit(scratch);
  return count;
}

/** An `L` payload (./org_export.ts `EntryList`) back into entries; refuses a malformed one. */
function decodeList(payload: Uint8Array): { key: Deno.KvKey; value: unknown; bytes: number }[] {
  let list: { keys?: unknown; values?: unknown; u64?: unknown };
  try {
    list = deserialize(payload);
  } catch (error) {
    throw new ImportRefusedError(`an entry list does not decode: ${(error as Error).message}`);
  }
  const { keys, values, u64 } = list ?? {};
  if (
    !Array.isArray(keys) || !Array.isArray(values) || !Array.isArray(u64) ||
    keys.length !== values.length
  ) throw new ImportRefusedError("an entry list is malformed");
  const counters = new Set(u64);
  return keys.map((key, i) => {
    if (!Array.isArray(key) || key.length === 0) {
      throw new ImportRefusedError("an entry list holds a key that is not a key");
    }
    let value = values[i];
    if (counters.has(i)) {
      if (typeof value !== "bigint") throw new ImportRefusedError("a u64 that is not a bigint");
      value = new Deno.KvU64(value);
    }
    // Through the backup format's own decoder, so arrays and byte arrays come back in the form
    // Deno KV writes them.
    const entry = decodeEntry(entryPayload(encodeKey(key as Deno.KvKey), value));
    return entry;
  });
}

function keyId(key: Deno.KvKey): string {
  return JSON.stringify(key, (_, v) => typeof v === "bigint" ? `${v}n` : v);
}

function describe(key: Deno.KvKey): string {
  const text = keyId(key);
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

/**
 * Checks every entry decoded into `scratch` (see the module doc) and resolves with the blob
 * keys the organization's own records name; throws an ImportRefusedError for the first entry
 * the archive may not write.
 */
async function checkEntries(
  scratch: Deno.Kv,
  target: Deno.Kv,
  organizationId: string,
  include: ImportInclude,
): Promise<Set<string>> {
  const organization = await scratch.get(["organizations", organizationId]);
  if (organization.versionstamp === null) {
    throw new ImportRefusedError(`the archive holds no record of organization ${organizationId}`);
  }
  const own = new Set<string>();
  for await (const key of organizationKeys(scratch, organizationId)) own.add(keyId(key));
  const members = new Set<string>();
  for await (const entry of scratch.list({ prefix: ["memberships", organizationId] })) {
    members.add(String(entry.key[2]));
  }
  const withLog = include !== "none";
  const refs = new Set<string>();
  const logos = new Set<string>();
  let pending: Deno.KvKey[] = [];
  const checkAbsent = async () => {
    for (const entry of await target.getMany(pending)) {
      if (entry.versionstamp !== null) {
        throw new ImportRefusedError(`the target holds ${describe(entry.key)} already`);
      }
    }
    pending = [];
  };
  for await (const entry of scratch.list({ prefix: [] })) {
    const { key, value } = entry;
    const collection = String(key[0]);
    const owner = KEY_COLLECTIONS[collection]?.owner;
    const refuse = (why: string) => {
      throw new ImportRefusedError(`the archive may not write ${describe(key)}: ${why}`);
    };
    const registered = own.has(keyId(key)) && owner !== undefined && owner !== "service";
    if (owner === "organization" || owner === "project" || (owner === "user" && registered)) {
      if (SKIPPED.has(collection)) refuse("an export never carries it");
      if (LOG_COLLECTIONS.has(collection) && !withLog) refuse("the log needs --include log");
      if (!registered) refuse(`it is not organization ${organizationId}'s`);
      if (collection === "projects") {
        const project = value as { organizationId?: unknown } | null;
        if (project?.organizationId !== organizationId) refuse("another organization's project");
      }
      for (const ref of declaredBlobRefs(entry)) refs.add(ref);
      if (collection === "organization_profiles") {
        const logo = (value as { logo?: { sha256?: unknown } | null } | null)?.logo;
        if (typeof logo?.sha256 === "string") logos.add(logo.sha256);
      }
    } else if (collection === "users") {
      if (key.length !== 2 || !members.has(String(key[1]))) refuse("not a member's user record");
    } else if (collection === "users_by_idp_sub") {
      const userId = String(value);
      const user = (await scratch.get<{ idpSub?: unknown }>(["users", userId])).value;
      if (
        key.length !== 2 || !members.has(userId) || user?.idpSub !== key[1]
      ) refuse("not a member's sign-in index");
    } else if (collection === "logos") {
      // Checked once every profile is read, below.
      if (key.length !== 2) refuse("not a logo's record");
    } else if (collection === "signing_public_keys") {
      if (!withLog) refuse("public keys are the instance's: they need --include log");
      if (key.length !== 3 || !MOVED_KEY_PURPOSES.includes(String(key[1]))) refuse("not a key");
    } else if (collection === "signing_keys") {
      if (include !== "keys-and-log") {
        refuse("private signing keys are the instance's: they need --include keys-and-log");
      }
      if (key.length !== 2 || !MOVED_KEY_PURPOSES.includes(String(key[1]))) refuse("not a key");
    } else if (LOG_SERVICE_COLLECTIONS.has(collection)) {
      if (!withLog) refuse("the publication log needs --include log");
    } else {
      refuse("outside the organization");
    }
    pending.push(key);
    if (pending.length === 10) await checkAbsent();
  }
  await checkAbsent();
  for await (const entry of scratch.list({ prefix: ["logos"] })) {
    if (!logos.has(String(entry.key[1]))) {
      throw new ImportRefusedError(
        `the archive may not write ${describe(entry.key)}: not the organization's logo`,
      );
    }
  }
  return refs;
}

/** Checks the archive whole (files, entries, blobs, target), then writes it into the target. */
export async function importOrganization(options: ImportOptions): Promise<ImportResult> {
  const include = options.include ?? "none";
  const manifest = await verifyArchive(options.path);
  await checkEmpty(options.kv, include);
  const dir = await Deno.makeTempDir({ dir: options.scratchDir, prefix: "org-import-" });
  const scratch = await Deno.openKv(`${dir}/scratch.sqlite3`);
  try {
    const decoded = await decodeEntries(options.path, scratch);
    const refs = await checkEntries(scratch, options.kv, manifest.organizationId, include);
    const blobNames = new Map<string, string>();
    for (const entry of manifest.entries) {
      const match = entry.path.match(BLOB_PATH);
      if (!match) continue;
      const key = `${match[1]}/${match[2]}`;
      if (!refs.has(key)) {
        throw new ImportRefusedError(
          `"${entry.path}" is not referenced by the organization's own records`,
        );
      }
      blobNames.set(entry.path, key);
    }
    if (decoded !== manifest.kvEntries || blobNames.size !== manifest.blobs) {
      throw new ImportRefusedError(
        `the archive holds ${decoded} entries and ${blobNames.size} blobs, the manifest says ${manifest.kvEntries} and ${manifest.blobs}`,
      );
    }
    return await write(options, manifest, scratch, blobNames);
  } finally {
    scratch.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/** Writes the checked entries (from the scratch KV) and the blobs (from the archive). */
async function write(
  options: ImportOptions,
  manifest: ExportManifest,
  scratch: Deno.Kv,
  blobNames: Map<string, string>,
): Promise<ImportResult> {
  const result: ImportResult = { manifest, kvEntries: 0, blobs: 0, commits: 0 };
  const blobs: { key: string; bytes: Uint8Array }[] = [];
  const flushBlobs = async () => {
    for (const blob of blobs.splice(0)) {
      const stored = await options.blobs.put(parseBlobKey(blob.key).kind, blob.bytes);
      if (stored !== blob.key) throw new Error(`${blob.key} was stored as ${stored}`);
      result.blobs++;
    }
  };
  // The blobs first: a record never names a blob the target does not have yet.
  await unzipFile(options.path, (name) => {
    const key = blobNames.get(name);
    if (!key) return null;
    const chunks: Uint8Array[] = [];
    return {
      data: (chunk) => chunks.push(chunk),
      end: () => blobs.push({ key, bytes: concat(chunks) }),
    };
  }, flushBlobs);
  await flushBlobs();
  let batch = new EntryBatch();
  for await (const entry of scratch.list({ prefix: [] })) {
    const record = { key: entry.key, value: entry.value, bytes: sizeOf(entry) };
    if (!batch.fits(record)) {
      result.commits += await batch.commit(options.kv);
      batch = new EntryBatch();
    }
    batch.add(record);
    result.kvEntries++;
  }
  result.commits += await batch.commit(options.kv);
  return result;
}

/** An entry's size for the batch limits (its key and value as V8 writes them). */
function sizeOf(entry: Deno.KvEntry<unknown>): number {
  return serialize(entry.key).length +
    (entry.value instanceof Deno.KvU64 ? 8 : serialize(entry.value).length);
}
