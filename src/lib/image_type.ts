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
