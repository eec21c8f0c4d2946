/**
 * A ZIP writer for archives of many entries produced as they are read (the organization export,
 * ./org_export.ts): each entry's bytes go out as they are made, and what stays until the end is
 * the central directory itself, as the bytes it will be written as (46 bytes and the name per
 * entry, in pages of 64 KiB), not an object per entry. Entries of unknown size are deflated as
 * they come (fflate's `Deflate`, in the JS heap, so a collection frees it) with a data
 * descriptor after them; whole entries are stored or deflated in one call with their sizes in
 * the local header. Past 65,535 entries or 4 GiB the end record is ZIP64's.
 */
import type { Deflate as DeflateStream, DeflateOptions } from "fflate";

type Fflate = typeof import("fflate");

const CRC_TABLE = (() => {
  const table = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return table;
})();

/** The CRC-32 of `data` continued from `crc` (0 to start). */
export function crc32(data: Uint8Array, crc = 0): number {
  let c = ~crc;
  for (let i = 0; i < data.length; i++) c = CRC_TABLE[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

const PAGE_BYTES = 64 * 1024;
const U32 = 0xffffffff;
const U16 = 0xffff;

/** Bytes appended to pages of PAGE_BYTES (no copy of everything when it grows). */
class ByteSpool {
  #pages: Uint8Array[] = [];
  #used = PAGE_BYTES;
  length = 0;

  /** Room for `size` bytes at the end, returned as a view to fill. */
  reserve(size: number): Uint8Array {
    if (this.#used + size > PAGE_BYTES) {
      this.#pages.push(new Uint8Array(Math.max(PAGE_BYTES, size)));
      this.#used = 0;
    }
    const page = this.#pages.at(-1)!;
    const view = page.subarray(this.#used, this.#used + size);
    this.#used += size;
    this.length += size;
    return view;
  }

  /** The bytes, page by page, and the pages released. */
  *drain(): Generator<Uint8Array> {
    const pages = this.#pages;
    const last = this.#used;
    this.#pages = [];
    this.#used = PAGE_BYTES;
    this.length = 0;
    for (let i = 0; i < pages.length; i++) {
      yield i === pages.length - 1 ? pages[i].subarray(0, last) : pages[i];
    }
  }
}

/** What a local header and its central directory record both say of an entry. */
interface EntryFields {
  name: Uint8Array;
  /** 0 stored, 8 deflated. */
  method: number;
  /** General purpose flags (8: sizes in a data descriptor); UTF-8 names are always flagged. */
  flags: number;
  crc: number;
  /** Compressed and uncompressed sizes. */
  csize: number;
  size: number;
}

/** A streamed entry: its bytes through `push`, then `end`. */
export interface ZipEntryStream {
  push(data: Uint8Array): void;
  end(): void;
}

export class ZipWriter {
  #offset = 0;
  #count = 0;
  #directory = new ByteSpool();
  #time: number;
  #date: number;
  #open = false;
  readonly #encoder = new TextEncoder();

  /**
   * `emit` receives the archive's bytes in order; `fflate` is the module (imported lazily by
   * the caller); `mtime` is every entry's time (UTC).
   */
  constructor(
    private readonly emit: (bytes: Uint8Array) => void,
    private readonly fflate: Fflate,
    mtime: Date,
  ) {
    const year = Math.min(Math.max(mtime.getUTCFullYear(), 1980), 2107);
    this.#date = ((year - 1980) << 9) | ((mtime.getUTCMonth() + 1) << 5) | mtime.getUTCDate();
    this.#time = (mtime.getUTCHours() << 11) | (mtime.getUTCMinutes() << 5) |
      (mtime.getUTCSeconds() >> 1);
  }

  /** Entries written so far. */
  get count(): number {
    return this.#count;
  }

  /** Adds a whole entry: stored when `deflate` is false, else deflated at level 1. */
  whole(path: string, data: Uint8Array, deflate: boolean): void {
    this.#idle();
    const body = deflate ? this.fflate.deflateSync(data, { level: 1 }) : data;
    const crc = crc32(data);
    const name = this.#encoder.encode(path);
    const method = deflate ? 8 : 0;
    const offset = this.#offset;
    const fields = { name, method, flags: 0, crc, csize: body.length, size: data.length };
    this.#put(this.#local(fields));
    this.#put(body);
    this.#central(fields, offset);
  }

  /** Starts an entry deflated as its bytes come; another may start once it has ended. */
  stream(path: string, level: DeflateOptions["level"]): ZipEntryStream {
    this.#idle();
    this.#open = true;
    const name = this.#encoder.encode(path);
    const offset = this.#offset;
    this.#put(this.#local({ name, method: 8, flags: 8, crc: 0, csize: 0, size: 0 }));
    let crc = 0;
    let size = 0;
    let compressed = 0;
    const deflater: DeflateStream = new this.fflate.Deflate({ level }, (chunk) => {
      compressed += chunk.length;
      this.#put(chunk);
    });
    return {
      push: (data) => {
        crc = crc32(data, crc);
        size += data.length;
        deflater.push(data, false);
      },
      end: () => {
        deflater.push(new Uint8Array(0), true);
        if (size > U32 || compressed > U32) throw new Error(`${path}: an entry past 4 GiB`);
        const descriptor = new Uint8Array(16);
        const view = new DataView(descriptor.buffer);
        view.setUint32(0, 0x08074b50, true);
        view.setUint32(4, crc, true);
        view.setUint32(8, compressed, true);
        view.setUint32(12, size, true);
        this.#put(descriptor);
        this.#central({ name, method: 8, flags: 8, crc, csize: compressed, size }, offset);
        this.#open = false;
      },
    };
  }

  /** Writes the central directory and the end record(s). */
  end(): void {
    this.#idle();
    const start = this.#offset;
    const length = this.#directory.length;
    for (const page of this.#directory.drain()) this.#put(page);
    const zip64 = this.#count > U16 || start > U32 || length > U32;
    if (zip64) {
      const record = new Uint8Array(56 + 20);
      const view = new DataView(record.buffer);
      view.setUint32(0, 0x06064b50, true);
      view.setBigUint64(4, 44n, true);
      view.setUint16(12, 45, true);
      view.setUint16(14, 45, true);
      view.setBigUint64(24, BigInt(this.#count), true);
      view.setBigUint64(32, BigInt(this.#count), true);
      view.setBigUint64(40, BigInt(length), true);
      view.setBigUint64(48, BigInt(start), true);
      // The locator: where the ZIP64 end record starts.
      view.setUint32(56, 0x07064b50, true);
      view.setBigUint64(64, BigInt(start + length), true);
      view.setUint32(72, 1, true);
      this.#put(record);
    }
    const eocd = new Uint8Array(22);
    const view = new DataView(eocd.buffer);
    view.setUint32(0, 0x06054b50, true);
    view.setUint16(8, Math.min(this.#count, U16), true);
    view.setUint16(10, Math.min(this.#count, U16), true);
    view.setUint32(12, Math.min(length, U32), true);
    view.setUint32(16, Math.min(start, U32), true);
    this.#put(eocd);
  }

  #idle() {
    if (this.#open) throw new Error("a streamed ZIP entry is still open");
  }

  #put(bytes: Uint8Array) {
    this.#offset += bytes.length;
    this.emit(bytes);
  }

  /**
   * The fields a local header and a central directory record share, in the same order from
   * "version needed" on (at 4 in a local header, at 6 in a central record).
   */
  #shared(view: DataView, at: number, fields: EntryFields, version: number, extra: number) {
    view.setUint16(at, version, true);
    view.setUint16(at + 2, fields.flags | 0x800, true);
    view.setUint16(at + 4, fields.method, true);
    view.setUint16(at + 6, this.#time, true);
    view.setUint16(at + 8, this.#date, true);
    view.setUint32(at + 10, fields.crc, true);
    view.setUint32(at + 14, fields.csize, true);
    view.setUint32(at + 18, fields.size, true);
    view.setUint16(at + 22, fields.name.length, true);
    view.setUint16(at + 24, extra, true);
  }

  #local(fields: EntryFields) {
    const header = new Uint8Array(30 + fields.name.length);
    const view = new DataView(header.buffer);
    view.setUint32(0, 0x04034b50, true);
    this.#shared(view, 4, fields, 20, 0);
    header.set(fields.name, 30);
    return header;
  }

  /** Appends the entry's central directory record (with a ZIP64 offset past 4 GiB). */
  #central(fields: EntryFields, offset: number) {
    const { name } = fields;
    const far = offset >= U32;
    const record = this.#directory.reserve(46 + name.length + (far ? 12 : 0));
    const view = new DataView(record.buffer, record.byteOffset, record.byteLength);
    view.setUint32(0, 0x02014b50, true);
    view.setUint16(4, far ? 45 : 20, true);
    this.#shared(view, 6, fields, far ? 45 : 20, far ? 12 : 0);
    view.setUint32(42, far ? U32 : offset, true);
    record.set(name, 46);
    if (far) {
      view.setUint16(46 + name.length, 0x0001, true);
      view.setUint16(48 + name.length, 8, true);
      view.setBigUint64(50 + name.length, BigInt(offset), true);
    }
    this.#count++;
  }
}
