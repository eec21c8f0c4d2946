/**
 * Public matching on its own Web Worker (src/serve/questionnaire_match_thread.ts): the results
 * are createMatcher's, byte for byte (texts sent once per matcher, the best the same object as
 * the first suggestion), the knowledge base goes over in pieces, and a matcher the worker let go
 * for room answers null so that the service builds it again.
 */
import assert from "node:assert/strict";
import { createMatcher } from "../../src/questionnaire/match.ts";
import type { Question } from "../../src/questionnaire/types.ts";
import { buildKbMatcher, matchThread } from "../../src/serve/questionnaire_match_thread.ts";
import { paddedKnowledgeBase } from "../fixtures/questionnaires/match_distractors.ts";
import { labelledSet } from "../bench/questionnaire.ts";

const options = (key: string, organizationId = "org-1") => ({
  key,
  organizationId,
  version: "v1",
  chars: 1,
  maxChars: 1_000_000_000,
  sliceMs: 10,
});

Deno.test({
  name: "[serve] public matching on a worker gives createMatcher's results, byte for byte",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    assert.equal(matchThread(), "worker", "this runtime starts a worker");
    const questions: Question[] = (await labelledSet()).map((l) => ({
      key: l.key,
      id: l.id,
      text: l.text,
    }));
    // 600 answers of the padded set: several pieces of 256 K characters are sent before the build.
    const kb = paddedKnowledgeBase(600);
    const expected = createMatcher(kb).match(questions);
    const matcher = await buildKbMatcher(kb, options("kb-a"));
    assert.equal(matcher.where, "worker");
    const first = await matcher.match(questions);
    assert.ok(first);
    assert.equal(JSON.stringify(first), JSON.stringify(expected));
    for (const result of first) {
      if (result.best) assert.equal(result.best, result.suggestions[0], "best is one object");
    }
    // Again (the texts already sent are not sent twice, and still shown), and in another order.
    const again = await matcher.match([...questions].reverse());
    assert.equal(JSON.stringify(again), JSON.stringify([...expected].reverse()));
  },
});

Deno.test({
  name: "[serve] a matcher the worker let go for room answers null, and a new build matches",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const kb = paddedKnowledgeBase(50);
    const questions: Question[] = [{ key: "q", id: null, text: "Are backups encrypted?" }];
    const small = { ...options("kb-b", "org-2"), chars: 10, maxChars: 15 };
    const first = await buildKbMatcher(kb, small);
    assert.ok(await first.match(questions));
    // Another organization's knowledge base: both do not fit, the older goes.
    const second = await buildKbMatcher(kb, { ...small, key: "kb-c", organizationId: "org-3" });
    assert.equal(await first.match(questions), null);
    assert.equal(
      JSON.stringify(await second.match(questions)),
      JSON.stringify(createMatcher(kb).match(questions)),
    );
    // A newer version of the same organization replaces the older one.
    const newer = await buildKbMatcher(kb, { ...small, key: "kb-c2", organizationId: "org-3" });
    assert.equal(await second.match(questions), null);
    assert.ok(await newer.match(questions));
  },
});
