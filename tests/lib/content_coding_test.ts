import assert from "node:assert/strict";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import {
  compress,
  encodedEtag,
  isCompressible,
  negotiateCoding,
  varyWithEncoding,
} from "../../src/lib/content_coding.ts";

Deno.test("[lib] Accept-Encoding: q-values decide, br before gzip on a tie, identity the fallback", () => {
  const cases: [string | null, "br" | "gzip" | null][] = [
    [null, null],
    ["", null],
    ["gzip, deflate, br", "br"],
    ["gzip, deflate, br, zstd", "br"],
    ["gzip", "gzip"],
    ["x-gzip", "gzip"],
    ["GZIP;Q=1", "gzip"],
    ["br;q=0.5, gzip;q=1", "gzip"],
    ["br;q=0.8, gzip;q=0.8", "br"],
    ["br;q=0, gzip;q=0", null],
    ["br;q=0, gzip", "gzip"],
    ["*", "br"],
    ["*;q=0.5, br;q=0", "gzip"],
    ["gzip;q=0, *", "br"],
    ["identity", null],
    ["deflate", null],
    ["identity;q=1, gzip;q=0.5", null],
    ["identity;q=0.5, gzip;q=0.5", "gzip"],
    ["identity;q=0", null],
    ["*;q=0", null],
    ["gzip;q=0.001", "gzip"],
    ["gzip;q=abc", null],
    ["gzip;q=1.5", null],
    [" , ;q=1, br ; q=0.9 ", "br"],
  ];
  for (const [header, expected] of cases) {
    assert.equal(negotiateCoding(header), expected, String(header));
  }
  // Only the codings at hand are chosen.
  assert.equal(negotiateCoding("br, gzip;q=0.5", ["gzip"]), "gzip");
  assert.equal(negotiateCoding("br", ["gzip"]), null);
  assert.equal(negotiateCoding("br, gzip", []), null);
});

Deno.test("[lib] encoded representations get their own ETag and Vary names Accept-Encoding", () => {
  assert.equal(encodedEtag('"sha256:ab"', null), '"sha256:ab"');
  assert.equal(encodedEtag('"sha256:ab"', "br"), '"sha256:ab.br"');
  assert.equal(encodedEtag('"sha256:ab.profile"', "gzip"), '"sha256:ab.profile.gz"');
  assert.equal(encodedEtag('W/"x"', "gzip"), 'W/"x.gz"');
  assert.equal(varyWithEncoding(undefined), "Accept-Encoding");
  assert.equal(varyWithEncoding("Accept"), "Accept, Accept-Encoding");
  assert.equal(varyWithEncoding("Accept, accept-encoding"), "Accept, accept-encoding");
  for (
    const type of [
      "application/json; charset=utf-8",
      "text/html; charset=utf-8",
      "text/markdown",
      "application/atom+xml",
      "image/svg+xml",
      "application/jose",
      "application/vnd.in-toto+json",
    ]
  ) assert.ok(isCompressible(type), type);
  for (const type of ["image/png", "application/pdf", undefined, "application/octet-stream"]) {
    assert.ok(!isCompressible(type), String(type));
  }
});

Deno.test("[lib] gzip and brotli round-trip at both efforts", async () => {
  const bytes = new TextEncoder().encode(JSON.stringify({ controls: Array(300).fill("pass") }));
  for (const effort of ["stored", "dynamic"] as const) {
    const br = await compress(bytes, "br", effort);
    const gz = await compress(bytes, "gzip", effort);
    assert.ok(br.byteLength < bytes.byteLength / 10 && gz.byteLength < bytes.byteLength / 10);
    assert.deepEqual(new Uint8Array(brotliDecompressSync(br)), bytes);
    assert.deepEqual(new Uint8Array(gunzipSync(gz)), bytes);
  }
});
