/**
 * The backup file format (docs/lifecycle.md "Backup and restore"): a magic line, then frames
 * of `[type: 1 byte][length: u32 big-endian][payload]`, in this order:
 *
 * - one `H` header (JSON: format version, counts, how the snapshot was taken),
 * - one `K` frame per KV entry: `[value kind: 1 byte][key length: u32][key][value]`, the key
 *   and (kind 0) the value V8-serialized, the encoding Deno KV itself stores values in, so
 *   every structured-clone type comes back as it went (Uint8Array, Date, bigint, Map, nested
 *   objects…); kind 1 is a `Deno.KvU64` as 8 bytes big-endian,
 * - one `B` frame per blob of an external blob store: `[key length: u16][key][bytes]`,
 * - one `E` trailer holding the SHA-256 of every byte before it.
 *
 * A file without its trailer, with bytes after it, or whose digest does not match is refused
 * before anything is written, so a truncated or interrupted file is never half-restored.
 */
import { deserialize, serialize } from "node:v8";

/** The first bytes of every backup file; the digit is the format version. */
export const BACKUP_MAGIC = new TextEncoder().encode("TRUST-PROFILE-BACKUP 1\n");
export const BACKUP_FORMAT = 1;

export type FrameType = "H" | "K" | "B" | "E";
const FRAME_TYPES = new Set(["H", "K", "B", "E"]);

/** Bytes of a frame's type and length. */
export const FRAME_HEAD_BYTES = 5;
/** Longest frame payload a reader accepts (a blob of the largest evidence plus its key). */
export const MAX_FRAME_BYTES = 0xffff_ffff;

/** What the header frame says about the file. */
export interface BackupHeader {
  format: number;
  createdAt: string;
  /** `sqlite`, `memory`, `remote` (KV Connect) or `default` (Deno Deploy's own database). */
  kv: string;
  /** Where blobs live at the source: in the KV (then they are KV entries) or in S3. */
  blobStore: "kv" | "s3";
  kvEntries: number;
  blobs: number;
  blobBytes: number;
  /** Full listings of the KV it took until one saw no change (the first included). */
  passes: number;
  /** Entries that changed between listings and were re-read. */
  changedDuringBackup: number;
}

/** One KV entry as it travels in a `K` frame. */
export interface KvRecord {
  key: Deno.KvKey;
  value: unknown;
}

const VALUE_V8 = 0;
const VALUE_U64 = 1;

/** The frame bytes of `[type][length]` followed by `payload`. */
export function frame(type: FrameType, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(FRAME_HEAD_BYTES + payload.length);
  out[0] = type.charCodeAt(0);
  new DataView(out.buffer).setUint32(1, payload.length);
  out.set(payload, FRAME_HEAD_BYTES);
  return out;
}

/** The header frame. */
export function headerFrame(header: BackupHeader): Uint8Array {
  return frame("H", new TextEncoder().encode(JSON.stringify(header)));
}

/** The key's serialized bytes, which also identify it (equal keys serialize equally). */
export function encodeKey(key: Deno.KvKey): Uint8Array {
  return serialize(key);
}

/** A `K` payload for an entry whose key is already serialized. */
export function entryPayload(keyBytes: Uint8Array, value: unknown): Uint8Array {
  let kind = VALUE_V8;
  let valueBytes: Uint8Array;
  if (value instanceof Deno.KvU64) {
    kind = VALUE_U64;
    valueBytes = new Uint8Array(8);
    new DataView(valueBytes.buffer).setBigUint64(0, value.value);
  } else {
    valueBytes = serialize(value);
  }
  const out = new Uint8Array(5 + keyBytes.length + valueBytes.length);
  out[0] = kind;
  new DataView(out.buffer).setUint32(1, keyBytes.length);
  out.set(keyBytes, 5);
  out.set(valueBytes, 5 + keyBytes.length);
  return out;
}

/** The serialized key inside a `K` payload (without decoding it). */
export function entryKeyBytes(payload: Uint8Array): Uint8Array {
  const length = new DataView(payload.buffer, payload.byteOffset).getUint32(1);
  return payload.subarray(5, 5 + length);
}

/** A `K` payload back into key and value; throws a BackupFormatError when malformed. */
export function decodeEntry(payload: Uint8Array): KvRecord & { bytes: number } {
  if (payload.length < 5) throw new BackupFormatError("a KV entry frame is too short");
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  const kind = payload[0];
  const keyLength = view.getUint32(1);
  if (5 + keyLength > payload.length) throw new BackupFormatError("a KV key overruns its frame");
  const keyBytes = payload.subarray(5, 5 + keyLength);
  const valueBytes = payload.subarray(5 + keyLength);
  let key: unknown;
  let value: unknown;
  try {
    key = deserialize(keyBytes);
    if (kind === VALUE_U64) {
      if (valueBytes.length !== 8) throw new Error("a u64 is 8 bytes");
      value = new Deno.KvU64(
        new DataView(valueBytes.buffer, valueBytes.byteOffset).getBigUint64(0),
      );
    } else if (kind === VALUE_V8) {
      value = packArrays(deserialize(valueBytes), new Map());
    } else {
      throw new Error(`unknown value kind ${kind}`);
    }
  } catch (error) {
    throw new BackupFormatError(`a KV entry does not decode: ${(error as Error).message}`);
  }
  if (!Array.isArray(key) || key.length === 0) {
    throw new BackupFormatError("a KV entry's key is not a key");
  }
  return { key: key as Deno.KvKey, value, bytes: keyBytes.length + valueBytes.length };
}

/**
 * node:v8's deserializer returns every array in V8's dictionary form, which V8 serializes as a
 * "sparse" array: the same value, but not the bytes Deno KV wrote (its own deserializer keeps
 * them dense), and typed arrays as views into the whole serialized buffer, which V8 would
 * write out whole. Rebuilding each array as a fast one (holes stay holes) and each typed array
 * over a buffer of its own makes a restored value serialize to exactly the bytes it had.
 * Shared and cyclic references keep their shape.
 */
function packArrays(value: unknown, seen: Map<object, unknown>): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (seen.has(value)) return seen.get(value);
  if (ArrayBuffer.isView(value)) {
    const copy = value instanceof DataView
      ? new DataView(value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength))
      : (value as unknown as { slice(): ArrayBufferView }).slice();
    seen.set(value, copy);
    return copy;
  }
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    seen.set(value, out);
    out.length = 0;
    const keys = Object.keys(value);
    const dense = keys.length === value.length;
    if (dense) {
      for (let i = 0; i < value.length; i++) out.push(packArrays(value[i], seen));
    } else {
      out.length = value.length;
    }
    for (const key of keys) {
      if (dense && /^\d+$/.test(key) && Number(key) < value.length) continue;
      (out as unknown as Record<string, unknown>)[key] = packArrays(
        (value as unknown as Record<string, unknown>)[key],
        seen,
      );
    }
    return out;
  }
  if (value instanceof Map) {
    const out = new Map();
    seen.set(value, out);
    for (const [k, v] of value) out.set(packArrays(k, seen), packArrays(v, seen));
    return out;
  }
  if (value instanceof Set) {
    const out = new Set();
    seen.set(value, out);
    for (const v of value) out.add(packArrays(v, seen));
    return out;
  }
  if (Object.getPrototypeOf(value) === Object.prototype) {
    seen.set(value, value);
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) record[key] = packArrays(record[key], seen);
  }
  return value;
}

/** A `B` payload: the blob key, then its bytes. */
export function blobPayload(key: string, bytes: Uint8Array): Uint8Array {
  const keyBytes = new TextEncoder().encode(key);
  const out = new Uint8Array(2 + keyBytes.length + bytes.length);
  new DataView(out.buffer).setUint16(0, keyBytes.length);
  out.set(keyBytes, 2);
  out.set(bytes, 2 + keyBytes.length);
  return out;
}

export function decodeBlob(payload: Uint8Array): { key: string; bytes: Uint8Array } {
  if (payload.length < 2) throw new BackupFormatError("a blob frame is too short");
  const keyLength = new DataView(payload.buffer, payload.byteOffset).getUint16(0);
  if (2 + keyLength > payload.length) throw new BackupFormatError("a blob key overruns its frame");
  return {
    key: new TextDecoder().decode(payload.subarray(2, 2 + keyLength)),
    bytes: payload.subarray(2 + keyLength),
  };
}

/** A file that is not a complete, intact backup. Nothing has been written when it is thrown. */
export class BackupFormatError extends Error {
  override name = "BackupFormatError";
}

/** A frame as read: its type, its payload, and its bytes as they were in the file. */
export interface ReadFrame {
  type: FrameType;
  payload: Uint8Array;
  raw: Uint8Array;
}

/**
 * Reads frames from `file` with a buffer of its own; `readMagic` first. Memory is bounded by
 * the largest frame (a blob), never the file.
 */
export class FrameReader {
  #buffer = new Uint8Array(1 << 20);
  #start = 0;
  #end = 0;
  #eof = false;

  constructor(private readonly file: Deno.FsFile) {}

  /** Bytes still buffered or in the file; 0 only at its very end. */
  async atEnd(): Promise<boolean> {
    await this.#fill(1);
    return this.#end === this.#start;
  }

  async readMagic(): Promise<Uint8Array> {
    const bytes = await this.#take(BACKUP_MAGIC.length);
    if (!bytes || !bytes.every((b, i) => b === BACKUP_MAGIC[i])) {
      throw new BackupFormatError("not a backup file of this service (format 1)");
    }
    return bytes;
  }

  /** The next frame, or null at the end of the file. */
  async next(): Promise<ReadFrame | null> {
    if (await this.atEnd()) return null;
    const head = await this.#take(FRAME_HEAD_BYTES);
    if (!head) throw new BackupFormatError("the file ends inside a frame header (truncated)");
    const type = String.fromCharCode(head[0]);
    if (!FRAME_TYPES.has(type)) throw new BackupFormatError(`unknown frame type ${head[0]}`);
    const length = new DataView(head.buffer, head.byteOffset).getUint32(1);
    const payload = await this.#take(length);
    if (!payload) throw new BackupFormatError("the file ends inside a frame (truncated)");
    const raw = new Uint8Array(FRAME_HEAD_BYTES + length);
    raw.set(head);
    raw.set(payload, FRAME_HEAD_BYTES);
    return { type: type as FrameType, payload: raw.subarray(FRAME_HEAD_BYTES), raw };
  }

  /** Exactly `n` bytes (a copy), or null when the file ends first. */
  async #take(n: number): Promise<Uint8Array | null> {
    await this.#fill(n);
    if (this.#end - this.#start < n) return null;
    const out = this.#buffer.slice(this.#start, this.#start + n);
    this.#start += n;
    return out;
  }

  async #fill(n: number): Promise<void> {
    if (this.#end - this.#start >= n) return;
    if (this.#start > 0) {
      this.#buffer.copyWithin(0, this.#start, this.#end);
      this.#end -= this.#start;
      this.#start = 0;
    }
    if (this.#buffer.length < n) {
      const bigger = new Uint8Array(Math.max(n, this.#buffer.length * 2));
      bigger.set(this.#buffer.subarray(0, this.#end));
      this.#buffer = bigger;
    }
    while (!this.#eof && this.#end < n) {
      const read = await this.file.read(this.#buffer.subarray(this.#end));
      if (read === null) this.#eof = true;
      else this.#end += read;
    }
  }
}

/** Collects small writes into large ones. */
export class BufferedWriter {
  #chunks: Uint8Array[] = [];
  #size = 0;
  written = 0;

  constructor(
    private readonly file: Deno.FsFile,
    private readonly onBytes: (bytes: Uint8Array) => void = () => {},
  ) {}

  async write(bytes: Uint8Array): Promise<void> {
    this.onBytes(bytes);
    this.#chunks.push(bytes);
    this.#size += bytes.length;
    this.written += bytes.length;
    if (this.#size >= 1 << 20) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.#size === 0) return;
    const all = new Uint8Array(this.#size);
    let offset = 0;
    for (const chunk of this.#chunks) {
      all.set(chunk, offset);
      offset += chunk.length;
    }
    this.#chunks = [];
    this.#size = 0;
    let done = 0;
    while (done < all.length) done += await this.file.write(all.subarray(done));
  }
}
