/**
 * What kind of raster image some bytes are, told by their structure, never by a declared
 * type or a file name. Only the three formats a logo may be are known, and only whole
 * files: nothing appended after the image's end, no markup a browser could be talked into
 * running (image/HTML or image/SVG polyglots).
 */

/** The image types a logo may have, with the file extension they are served under. */
export const IMAGE_TYPES = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/webp": "webp",
} as const;
export type ImageType = keyof typeof IMAGE_TYPES;

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const PNG_IEND = [0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82];
/** Markup that makes a file executable as a document if a client ever sniffed it. */
const ACTIVE_MARKUP = /<(script|html|body|head|svg|iframe|object|embed|!doctype)[\s>/]/i;

function at(bytes: Uint8Array, prefix: readonly number[], offset = 0): boolean {
  if (offset < 0 || bytes.length < offset + prefix.length) return false;
  return prefix.every((b, i) => bytes[offset + i] === b);
}

function ascii(text: string): number[] {
  return [...text].map((c) => c.charCodeAt(0));
}

function structuralType(bytes: Uint8Array): ImageType | null {
  if (at(bytes, PNG) && at(bytes, ascii("IHDR"), 12)) {
    return at(bytes, PNG_IEND, bytes.length - PNG_IEND.length) ? "image/png" : null;
  }
  if (at(bytes, [0xff, 0xd8, 0xff]) && bytes.length > 4) {
    return at(bytes, [0xff, 0xd9], bytes.length - 2) ? "image/jpeg" : null;
  }
  if (at(bytes, ascii("RIFF")) && at(bytes, ascii("WEBP"), 8) && at(bytes, ascii("VP8"), 12)) {
    const declared = new DataView(bytes.buffer, bytes.byteOffset + 4, 4).getUint32(0, true);
    // The RIFF size counts everything after its own field; odd sizes are padded by one byte.
    const whole = declared + 8;
    return whole === bytes.length || whole + 1 === bytes.length ? "image/webp" : null;
  }
  return null;
}

/**
 * The type of a whole PNG (signature, IHDR first, IEND last), JPEG (SOI … EOI) or WebP
 * (a RIFF/WEBP container whose declared size is the file's) image without active markup in
 * it, or null for anything else: SVG, HTML, text, other formats, truncated files, files
 * with bytes appended and image/markup polyglots.
 */
export function sniffImageType(bytes: Uint8Array): ImageType | null {
  const type = structuralType(bytes);
  if (type === null) return null;
  const text = new TextDecoder("latin1").decode(bytes);
  return ACTIVE_MARKUP.test(text) ? null : type;
}

/** Whether bytes start like SVG, XML or HTML (for a clearer refusal than "not an image"). */
export function looksLikeMarkup(bytes: Uint8Array): boolean {
  const head = new TextDecoder("utf-8", { fatal: false }).decode(bytes.subarray(0, 1024));
  return /^[\ufeff\s]*</.test(head) || /<svg[\s>]/i.test(head);
}

/** Width and height in pixels, as an image's header declares them. */
export interface ImageSize {
  width: number;
  height: number;
}

function u16be(bytes: Uint8Array, offset: number): number {
  return (bytes[offset] << 8) | bytes[offset + 1];
}

function u24le(bytes: Uint8Array, offset: number): number {
  return bytes[offset] | (bytes[offset + 1] << 8) | (bytes[offset + 2] << 16);
}

/** JPEG start-of-frame markers (every SOFn but DHT C4, JPG C8 and DAC CC). */
function isStartOfFrame(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 &&
    marker !== 0xcc;
}

/** The frame size of a JPEG: the first SOFn segment before the scan, walking the markers. */
function jpegSize(bytes: Uint8Array): ImageSize | null {
  let at = 2;
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) return null;
    const marker = bytes[at + 1];
    if (marker === 0xff) {
      at += 1; // fill byte
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2; // markers without a length
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return null; // end or scan before any frame
    const length = u16be(bytes, at + 2);
    if (length < 2) return null;
    if (isStartOfFrame(marker)) {
      if (at + 9 > bytes.length) return null;
      return { height: u16be(bytes, at + 5), width: u16be(bytes, at + 7) };
    }
    at += 2 + length;
  }
  return null;
}

/** The canvas of a WebP: VP8X's canvas, VP8L's or VP8's frame size. */
function webpSize(bytes: Uint8Array): ImageSize | null {
  const chunk = new TextDecoder("latin1").decode(bytes.subarray(12, 16));
  if (chunk === "VP8X" && bytes.length >= 30) {
    return { width: u24le(bytes, 24) + 1, height: u24le(bytes, 27) + 1 };
  }
  if (chunk === "VP8L" && bytes.length >= 25 && bytes[20] === 0x2f) {
    const bits = bytes[21] | (bytes[22] << 8) | (bytes[23] << 16) | (bytes[24] << 24);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (
    chunk === "VP8 " && bytes.length >= 30 && bytes[23] === 0x9d && bytes[24] === 0x01 &&
    bytes[25] === 0x2a
  ) {
    return {
      width: (bytes[26] | (bytes[27] << 8)) & 0x3fff,
      height: (bytes[28] | (bytes[29] << 8)) & 0x3fff,
    };
  }
  return null;
}

/**
 * The pixel size `bytes` declare in their header, for a type `sniffImageType` accepted:
 * PNG's IHDR, the first JPEG frame header (SOFn), WebP's VP8X canvas or VP8L/VP8 frame.
 * Null when the header holds no readable size. Nothing is decoded, so a file that declares
 * a huge canvas costs nothing to measure.
 */
export function imageSize(bytes: Uint8Array, type: ImageType): ImageSize | null {
  if (type === "image/png") {
    if (bytes.length < 24) return null;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return { width: view.getUint32(16), height: view.getUint32(20) };
  }
  if (type === "image/jpeg") return jpegSize(bytes);
  return webpSize(bytes);
}
