/**
 * The ZIP container of a workbook, read and written by hand around fflate's DEFLATE streams, so
 * that nothing a file declares about itself is trusted: entries are found through the central
 * directory, each one is inflated in small pieces while the running total of every byte produced
 * is counted, and the file is refused (`over_limit`) as soon as that total passes the limit,
 * before a zip bomb is inflated. Declared uncompressed sizes are never used to allocate or to
 * decide. Writing copies every untouched entry byte for byte (its local header and compressed
 * data) and deflates only the replaced ones, dated like the entry they replace, so the same
 * input gives the same bytes. No ZIP64, encryption, or methods other than stored and deflate.
 * Entry names are checked as they are listed: a name that climbs out (`../`), is absolute
 * (`/…`, `C:…`), holds a backslash, or repeats another one without regard to case
 * (`xl/worksheets/sheet1.xml` and `XL/worksheets/Sheet1.xml`) refuses the file, naming the entry.
 */
import { QuestionnaireFileError } from "./types.ts";

type Fflate = typeof import("fflate");

export interface ZipEntry {
  name: string;
  method: number;
  flags: number;
  /** DOS time and date of the entry, kept when it is rewritten. */
  time: number;
  date: number;
  crc: number;
  /** The declared size: only repeated when the entry is copied, never trusted. */
  declaredSize: number;
  compressed: Uint8Array;
  /** The whole local record (header, name, extra, data), copied as is when untouched. */
  raw: Uint8Array;
}

const LOCAL = 0x04034b50;
const CENTRAL = 0x02014b50;
const END = 0x06054b50;
/** Bytes handed to the inflater at a time: bounds what one step can produce (~1032:1). */
const INFLATE_STEP = 1024;

function malformed(message: string): QuestionnaireFileError {
  return new QuestionnaireFileError("malformed", `Not a readable workbook: ${message}.`);
}

/** The entries of a ZIP file, in the order of its central directory. */
export function zipEntries(bytes: Uint8Array): ZipEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = findEnd(bytes, view);
  const count = view.getUint16(end + 10, true);
  const size = view.getUint32(end + 12, true);
  const offset = view.getUint32(end + 16, true);
  if (count === 0xffff || offset === 0xffffffff) throw malformed("ZIP64 archives are not read");
  if (offset + size > end) throw malformed("the central directory lies outside the file");
  const entries: ZipEntry[] = [];
  const names = new Set<string>();
  let at = offset;
  for (let i = 0; i < count; i++) {
    if (at + 46 > end || view.getUint32(at, true) !== CENTRAL) {
      throw malformed("a broken central directory");
    }
    const flags = view.getUint16(at + 8, true);
    const method = view.getUint16(at + 10, true);
    const compressedSize = view.getUint32(at + 20, true);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const localAt = view.getUint32(at + 42, true);
    const name = new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLength));
    if (flags & 1) {
      throw new QuestionnaireFileError("unsupported_type", "Encrypted workbooks are not read.");
    }
    if (method !== 0 && method !== 8) throw malformed(`entry ${name} uses compression ${method}`);
    checkEntryName(name);
    // Names compare without case: Windows, macOS and Excel take `XL/Sheet1.xml` for
    // `xl/sheet1.xml`, so two such entries would let a reader and an extractor see different parts.
    const folded = name.toLowerCase();
    if (names.has(folded)) {
      throw malformed(`entry ${name} appears twice (names compared without case)`);
    }
    names.add(folded);
    if (localAt + 30 > bytes.length || view.getUint32(localAt, true) !== LOCAL) {
      throw malformed(`entry ${name} has no local header`);
    }
    const dataAt = localAt + 30 + view.getUint16(localAt + 26, true) +
      view.getUint16(localAt + 28, true);
    if (dataAt + compressedSize > bytes.length) throw malformed(`entry ${name} is cut short`);
    entries.push({
      name,
      method,
      flags,
      time: view.getUint16(at + 12, true),
      date: view.getUint16(at + 14, true),
      crc: view.getUint32(at + 16, true),
      declaredSize: view.getUint32(at + 24, true),
      compressed: bytes.subarray(dataAt, dataAt + compressedSize),
      raw: rawRecord(bytes, view, localAt, dataAt + compressedSize, flags),
    });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/**
 * Refuses an entry name that could reach outside the package once extracted, or that no Office
 * writer makes: empty, absolute (`/…`, `C:…`), with a backslash, a `.` or `..` segment, an
 * empty segment (`a//b`), or a control character. OPC part names are relative and use `/`.
 */
function checkEntryName(name: string): void {
  const shown = JSON.stringify(name.slice(0, 200));
  // deno-lint-ignore no-control-regex
  if (name === "" || /[\u0000-\u001f\u007f]/.test(name)) {
    throw malformed(`entry ${shown} has a bad name`);
  }
  if (name.includes("\\")) throw malformed(`entry ${shown} has a backslash in its name`);
  if (name.startsWith("/") || /^[A-Za-z]:/.test(name)) {
    throw malformed(`entry ${shown} has an absolute name`);
  }
  const segments = name.split("/");
  // A directory entry ends with "/": its last segment is empty.
  if (segments.some((segment) => segment === ".." || segment === ".")) {
    throw malformed(`entry ${shown} has a name that climbs out of the package`);
  }
  if (segments.some((segment, i) => segment === "" && i < segments.length - 1)) {
    throw malformed(`entry ${shown} has an empty segment in its name`);
  }
}

/** The local record of an entry, with its data descriptor when it has one. */
function rawRecord(
  bytes: Uint8Array,
  view: DataView,
  localAt: number,
  dataEnd: number,
  flags: number,
): Uint8Array {
  let end = dataEnd;
  if (flags & 8) {
    const signed = dataEnd + 4 <= bytes.length && view.getUint32(dataEnd, true) === 0x08074b50;
    end = Math.min(bytes.length, dataEnd + (signed ? 16 : 12));
  }
  return bytes.subarray(localAt, end);
}

function findEnd(bytes: Uint8Array, view: DataView): number {
  const earliest = Math.max(0, bytes.length - 22 - 0xffff);
  for (let at = bytes.length - 22; at >= earliest; at--) {
    if (view.getUint32(at, true) === END) return at;
  }
  throw malformed("no ZIP end record");
}

/** Counts every byte inflated from one file, all entries together, against a limit. */
export class InflateBudget {
  used = 0;
  constructor(readonly limit: number) {}

  spend(bytes: number): void {
    this.used += bytes;
    if (this.used > this.limit) {
      throw new QuestionnaireFileError(
        "over_limit",
        `The workbook expands to more than ${this.limit} bytes once unzipped.`,
      );
    }
  }
}

/** An entry's bytes, inflated step by step against the budget (never its declared size). */
export function inflateEntry(entry: ZipEntry, budget: InflateBudget, fflate: Fflate): Uint8Array {
  if (entry.method === 0) {
    budget.spend(entry.compressed.length);
    return entry.compressed;
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  let ended = false;
  const inflater = new fflate.Inflate((data, final) => {
    budget.spend(data.length);
    chunks.push(data);
    total += data.length;
    if (final) ended = true;
  });
  const source = entry.compressed;
  try {
    for (let at = 0; at < source.length; at += INFLATE_STEP) {
      const next = Math.min(source.length, at + INFLATE_STEP);
      inflater.push(source.subarray(at, next), next === source.length);
    }
    if (source.length === 0) inflater.push(new Uint8Array(0), true);
  } catch (error) {
    if (error instanceof QuestionnaireFileError) throw error;
    throw malformed(`entry ${entry.name} does not inflate`);
  }
  if (!ended && source.length > 0) throw malformed(`entry ${entry.name} is cut short`);
  const out = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Writing

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32(data: Uint8Array): number {
  let crc = 0xffffffff;
  for (let i = 0; i < data.length; i++) crc = CRC_TABLE[(crc ^ data[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** What goes into the written ZIP: an entry copied as is, or new content for a name. */
export type ZipOutput =
  | { kind: "copy"; entry: ZipEntry }
  | { kind: "replace"; entry: ZipEntry; data: Uint8Array }
  | { kind: "new"; name: string; data: Uint8Array; like: ZipEntry };

interface Written {
  name: Uint8Array;
  flags: number;
  method: number;
  time: number;
  date: number;
  crc: number;
  compressedSize: number;
  size: number;
  offset: number;
}

/** A ZIP of the outputs, in their order; replaced entries are deflated at a fixed level. */
export function writeZip(outputs: ZipOutput[], fflate: Fflate): Uint8Array<ArrayBuffer> {
  const parts: Uint8Array[] = [];
  const written: Written[] = [];
  let offset = 0;
  for (const output of outputs) {
    if (output.kind === "copy") {
      const { entry } = output;
      written.push({
        name: new TextEncoder().encode(entry.name),
        flags: entry.flags,
        method: entry.method,
        time: entry.time,
        date: entry.date,
        crc: entry.crc,
        compressedSize: entry.compressed.length,
        size: entry.declaredSize,
        offset,
      });
      parts.push(entry.raw);
      offset += entry.raw.length;
      continue;
    }
    const like = output.kind === "replace" ? output.entry : output.like;
    const name = new TextEncoder().encode(output.kind === "new" ? output.name : like.name);
    const compressed = fflate.deflateSync(output.data, { level: 6 });
    const record: Written = {
      name,
      flags: 0x0800 & like.flags,
      method: 8,
      time: like.time,
      date: like.date,
      crc: crc32(output.data),
      compressedSize: compressed.length,
      size: output.data.length,
      offset,
    };
    const header = new Uint8Array(30 + name.length);
    const view = new DataView(header.buffer);
    view.setUint32(0, LOCAL, true);
    view.setUint16(4, 20, true);
    fillCommon(view, 6, record);
    header.set(name, 30);
    parts.push(header, compressed);
    written.push(record);
    offset += header.length + compressed.length;
  }
  const centralAt = offset;
  for (const record of written) {
    const header = new Uint8Array(46 + record.name.length);
    const view = new DataView(header.buffer);
    view.setUint32(0, CENTRAL, true);
    view.setUint16(4, 20, true);
    view.setUint16(6, 20, true);
    fillCommon(view, 8, record);
    view.setUint32(42, record.offset, true);
    header.set(record.name, 46);
    parts.push(header);
    offset += header.length;
  }
  const end = new Uint8Array(22);
  const view = new DataView(end.buffer);
  view.setUint32(0, END, true);
  view.setUint16(8, written.length, true);
  view.setUint16(10, written.length, true);
  view.setUint32(12, offset - centralAt, true);
  view.setUint32(16, centralAt, true);
  parts.push(end);
  const out = new Uint8Array(offset + 22);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** The fields local and central headers share, from "flags" on (name length, no extra). */
function fillCommon(view: DataView, at: number, record: Written): void {
  view.setUint16(at, record.flags, true);
  view.setUint16(at + 2, record.method, true);
  view.setUint16(at + 4, record.time, true);
  view.setUint16(at + 6, record.date, true);
  view.setUint32(at + 8, record.crc, true);
  view.setUint32(at + 12, record.compressedSize, true);
  view.setUint32(at + 16, record.size, true);
  view.setUint16(at + 20, record.name.length, true);
}
