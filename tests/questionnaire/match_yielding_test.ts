/**
 * The yielding matcher (public matching builds and matches in slices, serving the event loop
 * between them) gives the same results as createMatcher, byte for byte, and does pause.
 */
import assert from "node:assert/strict";
import { createMatcher, createYieldingMatcher } from "../../src/questionnaire/match.ts";
import type { Question } from "../../src/questionnaire/types.ts";
import { paddedKnowledgeBase } from "../fixtures/questionnaires/match_distractors.ts";
import { labelledSet } from "../bench/questionnaire.ts";

Deno.test("[questionnaire] the yielding matcher matches exactly as createMatcher, pausing as it goes", async () => {
  const questions: Question[] = (await labelledSet()).map((l) => ({
    key: l.key,
    id: l.id,
    text: l.text,
  }));
  const kb = paddedKnowledgeBase(400);
  let pauses = 0;
  const matcher = await createYieldingMatcher(kb, {}, async () => {
    pauses++;
    await Promise.resolve();
  });
  const built = pauses;
  assert.ok(built >= 400 / 5, `${built} pauses while indexing`);
  const expected = JSON.stringify(createMatcher(kb).match(questions));
  assert.equal(JSON.stringify(await matcher.matchYielding(questions, 2)), expected);
  assert.equal(pauses - built, Math.floor(questions.length / 2));
  assert.equal(JSON.stringify(matcher.match(questions)), expected);
});
