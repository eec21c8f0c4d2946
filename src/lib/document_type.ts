/**
 * What kind of document some bytes are, told by their structure, never by a declared type
 * or a file name: PDF (`%PDF-` … `%%EOF`), Office Open XML (a ZIP holding
 * `[Content_Types].xml` and the `word/`, `xl/` or `ppt/` part tree) and OpenDocument (a ZIP
 * whose first entry is an uncompressed `mimetype` naming the type). Macro-enabled OOXML and
 * legacy OLE files (.doc, .xls, .ppt, which cannot be told apart reliably) are refused.
 */

export type SniffedDocument = "pdf" | "docx" | "xlsx" | "pptx" | "odt" | "ods" | "odp";

/** A type, or why the bytes are not an accepted document. */
export type SniffResult = { type: SniffedDocument } | { refused: string };

const ODF_TYPES: Record<string, SniffedDocument> = {
  "application/vnd.oasis.opendocument.text": "odt",
  "application/vnd.oasis.opendocument.spreadsheet": "ods",
  "application/vnd.oasis.opendocument.presentation": "odp",
};
const OLE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const MAX_ENTRIES = 10_000;

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return bytes.length >= prefix.length && prefix.every((b, i) => bytes[i] === b);
}

function latin1(bytes: Uint8Array): string {
  return new TextDecoder("latin1").decode(bytes);
}

function isPdf(bytes: Uint8Array): boolean {
  if (latin1(bytes.subarray(0, 5)) !== "%PDF-") return false;
  return latin1(bytes.subarray(Math.max(0, bytes.length - 1024))).includes("%%EOF");
}

/** The entry names of a ZIP's central directory, or null when it is not a whole ZIP. */
export function zipEntryNames(bytes: Uint8Array): string[] | null {
  if (bytes.length < 22) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== LOCAL) return null;
  let end = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 65535); i--) {
    if (view.getUint32(i, true) === EOCD) {
      end = i;
      break;
    }
  }
  if (end < 0) return null;
  const count = view.getUint16(end + 10, true);
  const size = view.getUint32(end + 12, true);
  const offset = view.getUint32(end + 16, true);
  if (count > MAX_ENTRIES || offset + size > end) return null;
  const names: string[] = [];
  let at = offset;
  for (let n = 0; n < count; n++) {
    if (at + 46 > end || view.getUint32(at, true) !== CENTRAL) return null;
    const nameLength = view.getUint16(at + 28, true);
    const extra = view.getUint16(at + 30, true);
    const comment = view.getUint16(at + 32, true);
    if (at + 46 + nameLength > end) return null;
    names.push(new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLength)));
    at += 46 + nameLength + extra + comment;
  }
  return names;
}

/** The OpenDocument type named by a leading, stored `mimetype` entry, if any. */
function odfType(bytes: Uint8Array): SniffedDocument | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 30 || view.getUint16(8, true) !== 0) return null;
  const nameLength = view.getUint16(26, true);
  const extra = view.getUint16(28, true);
  const size = view.getUint32(18, true);
  if (latin1(bytes.subarray(30, 30 + nameLength)) !== "mimetype") return null;
  const start = 30 + nameLength + extra;
  if (size > 100 || start + size > bytes.length) return null;
  return ODF_TYPES[latin1(bytes.subarray(start, start + size))] ?? null;
}

function zipType(bytes: Uint8Array, names: string[]): SniffResult {
  const odf = odfType(bytes);
  if (odf) return { type: odf };
  if (!names.includes("[Content_Types].xml")) {
    return { refused: "a ZIP archive that is not an Office Open XML or OpenDocument file" };
  }
  if (names.some((name) => /vbaProject\.bin$/i.test(name))) {
    return { refused: "macro-enabled Office files are not accepted" };
  }
  const tree = (prefix: string) => names.some((name) => name.startsWith(prefix));
  if (tree("word/")) return { type: "docx" };
  if (tree("xl/")) return { type: "xlsx" };
  if (tree("ppt/")) return { type: "pptx" };
  return { refused: "an Office Open XML package of an unknown kind" };
}

/** The document type of `bytes`, or why it is refused. */
export function sniffDocumentType(bytes: Uint8Array): SniffResult {
  if (isPdf(bytes)) return { type: "pdf" };
  if (startsWith(bytes, OLE)) {
    return {
      refused: "legacy Office files (.doc, .xls, .ppt) are not accepted; save as PDF or OOXML",
    };
  }
  const names = zipEntryNames(bytes);
  if (names) return zipType(bytes, names);
  return { refused: "the bytes are not a whole PDF, Office Open XML or OpenDocument file" };
}

/**
 * The number of page objects (`/Type /Page`) in a PDF's uncompressed bytes: a cheap first
 * look that refuses an obviously huge PDF before any parse. Pages kept in compressed object
 * streams are not seen, so a small number proves nothing; a full parse counts those.
 */
export function pdfPageObjects(bytes: Uint8Array): number {
  const text = latin1(bytes);
  let pages = 0;
  for (const _ of text.matchAll(/\/Type\s*\/Page(?![A-Za-z0-9])/g)) pages++;
  return pages;
}
