/**
 * Our small hand-written modules checked against maintained libraries that do the same job:
 * canonical JSON against `canonicalize` (RFC 8785's reference implementation for JavaScript)
 * and document sniffing against `file-type`. We keep our own where it does more than the
 * library (see docs/dependencies.md), so these tests make sure it never does less.
 */
import assert from "node:assert/strict";
import { canonicalJson } from "../../src/lib/canonical_json.ts";
import { sniffDocumentType } from "../../src/lib/document_type.ts";
import { canonicalize, fc, fileTypeFromBuffer } from "../deps.ts";
import { makeDocx, makeOdt, makePdf, makeZip } from "../support/documents.ts";

Deno.test("[lib] canonicalJson() writes what canonicalize writes, for any JSON value", () => {
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
      // Through JSON text first: evidence payloads are parsed JSON (no -0, no undefined).
      const data = JSON.parse(JSON.stringify(value));
      assert.equal(canonicalJson(data), canonicalize(data));
    }),
    { numRuns: 2000 },
  );
});

Deno.test("[lib] sniffDocumentType() agrees with file-type on the documents we accept", async () => {
  const samples: Array<[string, Uint8Array]> = [
    ["pdf", await makePdf()],
    ["docx", makeDocx()],
    ["odt", makeOdt()],
  ];
  for (const [expected, bytes] of samples) {
    const ours = sniffDocumentType(bytes);
    assert.deepEqual(ours, { type: expected });
    const theirs = await fileTypeFromBuffer(bytes);
    assert.equal(theirs?.ext, expected, `file-type reads the ${expected} sample as ${theirs?.ext}`);
  }
  // Bytes file-type calls a plain ZIP (not a document) are refused here too.
  const plainZip = makeZip([["a.txt", "hello"]]);
  assert.equal((await fileTypeFromBuffer(plainZip))?.ext, "zip");
  assert.ok("refused" in sniffDocumentType(plainZip));
});
