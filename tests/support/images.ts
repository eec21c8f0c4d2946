/**
 * Images that declare a chosen pixel size in their headers, built at test time from the
 * logo fixtures (or, for PNG, from scratch with valid chunk CRCs). Nothing is decoded by
 * the service, so the pixels behind a huge declared size need not exist.
 */

const fixture = (name: string) =>
  Deno.readFileSync(new URL(`../fixtures/logos/${name}`, import.meta.url));

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const b of bytes) crc = CRC_TABLE[(crc ^ b) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(new TextEncoder().encode(type), 4);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A PNG whose IHDR declares `width` × `height` (8-bit RGBA), with a short IDAT. */
export function pngDeclaring(width: number, height: number): Uint8Array {
  const ihdr = new Uint8Array(13);
  const view = new DataView(ihdr.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  ihdr.set([8, 6, 0, 0, 0], 8);
  // A zlib stream of one stored, empty, final block: well-formed, holds no pixels.
  const idat = new Uint8Array([0x78, 0x01, 0x01, 0x00, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01]);
  return concat(
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", idat),
    chunk("IEND", new Uint8Array()),
  );
}

/** The JPEG fixture with its frame header (SOF0) declaring `width` × `height`. */
export function jpegDeclaring(width: number, height: number): Uint8Array {
  const bytes = fixture("logo.jpg");
  for (let i = 2; i + 9 < bytes.length; i++) {
    if (bytes[i] === 0xff && bytes[i + 1] === 0xc0) {
      new DataView(bytes.buffer).setUint16(i + 5, height);
      new DataView(bytes.buffer).setUint16(i + 7, width);
      return bytes;
    }
  }
  throw new Error("the JPEG fixture has no SOF0");
}

/** The WebP fixture (VP8X) with its canvas declaring `width` × `height` (at most 2^24). */
export function webpDeclaring(width: number, height: number): Uint8Array {
  const bytes = fixture("logo.webp");
  const put24 = (at: number, value: number) =>
    bytes.set([value & 0xff, (value >> 8) & 0xff, (value >> 16) & 0xff], at);
  put24(24, width - 1);
  put24(27, height - 1);
  return bytes;
}
