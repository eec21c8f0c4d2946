import assert from "node:assert/strict";
import { looksLikeMarkup, sniffImageType } from "../../src/lib/image_type.ts";

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
