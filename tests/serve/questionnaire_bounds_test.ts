/**
 * The JSON text of a public matching body written in pieces (src/serve/questionnaire_bounds.ts,
 * jsonPieces) is JSON.stringify's text exactly, whatever the body holds, and the array under
 * the key is one piece per element, so the stream can pause between them.
 */
import assert from "node:assert/strict";
import { jsonPieces } from "../../src/serve/questionnaire_bounds.ts";

const bodies: Record<string, unknown>[] = [
  {},
  { results: [] },
  { results: [1] },
  { before: "a", results: [{ x: 1 }, null, "two"], after: true },
  {
    organization: { name: 'Quo"te \\ Co "results":[]', slug: "q" },
    threshold: 0.35,
    results: [{ index: 0, question: "é ✓ 😀 \u2028", best: null, suggestions: [] }],
    answered: 0,
    truncated: undefined,
    url: "https://example.test/answers",
  },
  { results: "not a list", other: [1, 2] },
  { skipped: undefined, results: [undefined, 3], nested: { results: [4] } },
];

Deno.test("[serve] jsonPieces joins to JSON.stringify's text, one piece per result", () => {
  for (const body of bodies) {
    const pieces = [...jsonPieces(body, "results")];
    assert.equal(pieces.join(""), JSON.stringify(body), JSON.stringify(body));
    if (Array.isArray(body.results)) {
      const list = body.results as unknown[];
      assert.ok(pieces.length >= list.length + 2, "a piece per element");
      for (let i = 0; i < list.length; i++) {
        assert.ok(
          pieces.includes(`${i === 0 ? "" : ","}${JSON.stringify(list[i]) ?? "null"}`),
          `element ${i} is a piece of its own`,
        );
      }
    }
  }
});
