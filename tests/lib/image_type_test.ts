import assert from "node:assert/strict";
import { imageSize, looksLikeMarkup, sniffImageType } from "../../src/lib/image_type.ts";
import { jpegDeclaring, pngDeclaring, webpDeclaring } from "../support/images.ts";

const fixture = (name: string) =>
  Deno.readFileSync(new URL(`../fixtures/logos/${name}`, import.meta.url));
const text = (s: string) => new TextEncoder().encode(s);
const join = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

const SVG = text(
  '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
);

Deno.test("[lib] sniffImageType() knows real PNG, JPEG and WebP files by their bytes", () => {
  assert.equal(sniffImageType(fixture("logo.png")), "image/png");
  assert.equal(sniffImageType(fixture("logo.jpg")), "image/jpeg");
  assert.equal(sniffImageType(fixture("logo.webp")), "image/webp");
});

Deno.test("[lib] sniffImageType() refuses markup, truncation, appended bytes and polyglots", () => {
  const png = fixture("logo.png");
  const jpg = fixture("logo.jpg");
  const webp = fixture("logo.webp");
  const cases: [string, Uint8Array][] = [
    ["SVG", SVG],
    ["HTML", text("<!doctype html><html><body><script>alert(1)</script></body></html>")],
    ["empty", new Uint8Array()],
    ["GIF", text("GIF89a\x01\x00\x01\x00\x00\x00\x00;")],
    ["PNG signature alone", png.subarray(0, 8)],
    ["truncated PNG", png.subarray(0, png.length - 20)],
    ["truncated JPEG", jpg.subarray(0, jpg.length - 2)],
    ["WebP with a wrong RIFF size", join(webp, new Uint8Array(16))],
    ["PNG with HTML appended", join(png, text("<html><script>alert(1)</script></html>"))],
    ["JPEG with SVG appended", join(jpg, SVG)],
    ["SVG behind a PNG signature", join(png.subarray(0, 33), SVG, png.subarray(png.length - 12))],
    ["HTML inside a JPEG comment", join(jpg.subarray(0, 2), text("<html>"), jpg.subarray(2))],
  ];
  for (const [what, bytes] of cases) assert.equal(sniffImageType(bytes), null, what);
});

Deno.test("[lib] looksLikeMarkup() tells SVG and HTML from binary images", () => {
  assert.equal(looksLikeMarkup(SVG), true);
  assert.equal(looksLikeMarkup(text("\ufeff  <svg viewBox='0 0 1 1'/>")), true);
  assert.equal(looksLikeMarkup(text("<html></html>")), true);
  assert.equal(looksLikeMarkup(fixture("logo.png")), false);
});

Deno.test("[lib] imageSize() reads the declared size from PNG, JPEG and WebP headers", () => {
  assert.deepEqual(imageSize(fixture("logo.png"), "image/png"), { width: 64, height: 64 });
  assert.deepEqual(imageSize(fixture("logo.jpg"), "image/jpeg"), { width: 64, height: 64 });
  assert.deepEqual(imageSize(fixture("logo.webp"), "image/webp"), { width: 64, height: 64 });
  const png = pngDeclaring(50_000, 40_000);
  assert.equal(sniffImageType(png), "image/png");
  assert.deepEqual(imageSize(png, "image/png"), { width: 50_000, height: 40_000 });
  const jpg = jpegDeclaring(50_000, 300);
  assert.equal(sniffImageType(jpg), "image/jpeg");
  assert.deepEqual(imageSize(jpg, "image/jpeg"), { width: 50_000, height: 300 });
  const webp = webpDeclaring(16_384, 50_000);
  assert.equal(sniffImageType(webp), "image/webp");
  assert.deepEqual(imageSize(webp, "image/webp"), { width: 16_384, height: 50_000 });
});

Deno.test("[lib] imageSize() reads lossless and lossy WebP frames, and gives up without a size", () => {
  const riff = (chunk: string, payload: number[]) => {
    const body = [...text("WEBP"), ...text(chunk), payload.length, 0, 0, 0, ...payload];
    return new Uint8Array([...text("RIFF"), body.length, 0, 0, 0, ...body]);
  };
  // VP8L: signature 0x2f, then 14 bits width - 1 and 14 bits height - 1.
  const w = 5000 - 1;
  const h = 3 - 1;
  const bits = w | (h << 14);
  const lossless = riff("VP8L", [0x2f, bits & 0xff, (bits >> 8) & 0xff, (bits >> 16) & 0xff, 0]);
  assert.deepEqual(imageSize(lossless, "image/webp"), { width: 5000, height: 3 });
  // VP8: a 3-byte frame tag, the start code 9d 01 2a, then 14-bit width and height.
  const lossy = riff("VP8 ", [0, 0, 0, 0x9d, 0x01, 0x2a, 0x88, 0x13, 0x10, 0x00]);
  assert.deepEqual(imageSize(lossy, "image/webp"), { width: 5000, height: 16 });
  assert.equal(imageSize(riff("VP8 ", [0, 0, 0, 1, 2, 3, 0, 0, 0, 0]), "image/webp"), null);
  // A JPEG whose scan starts before any frame header declares no size.
  const scanFirst = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 4, 0, 0, 0xff, 0xda, 0, 2]);
  assert.equal(imageSize(scanFirst, "image/jpeg"), null);
  assert.equal(imageSize(new Uint8Array([0xff, 0xd8, 0xff]), "image/jpeg"), null);
  assert.equal(imageSize(fixture("logo.png").subarray(0, 20), "image/png"), null);
});
