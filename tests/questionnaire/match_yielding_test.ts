/**
 * The yielding matcher (public matching builds and matches in slices, serving the event loop
 * between them) gives the same results as createMatcher, byte for byte, and does pause: between
 * questions, and, searching a question a term at a time, between its terms.
 */
import assert from "node:assert/strict";
import {
  createMatcher,
  createYieldingMatcher,
  DEFAULT_MAX_SUGGESTIONS,
  slicedPause,
} from "../../src/questionnaire/match.ts";
import { leadingId } from "../../src/questionnaire/match_ids.ts";
import {
  expansionTerms,
  MAX_QUERY_TERMS,
  queryTerms,
  terms,
} from "../../src/questionnaire/match_text.ts";
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

Deno.test("[questionnaire] searching a question a term at a time gives createMatcher's results, pausing between terms", async () => {
  const labelled: Question[] = (await labelledSet()).map((l) => ({
    key: l.key,
    id: l.id,
    text: l.text,
  }));
  // Long questions too: 64 terms (the most one question is searched for), words repeated.
  const vocabulary = labelled.map((q) => q.text).join(" ").split(/\s+/);
  const long: Question[] = Array.from({ length: 6 }, (_, i) => ({
    key: `long-${i}`,
    id: null,
    text: vocabulary.slice(i * 40, i * 40 + 200).join(" "),
  }));
  const questions = [...labelled, ...long];
  const kb = paddedKnowledgeBase(400);
  let pauses = 0;
  const matcher = await createYieldingMatcher(kb, { pauseInQuestions: true }, async () => {
    pauses++;
    await Promise.resolve();
  });
  const built = pauses;
  const results = await matcher.matchYielding(questions, 1000);
  assert.equal(JSON.stringify(results), JSON.stringify(createMatcher(kb).match(questions)));
  // A pause before each term searched: every question not filled by its id's answers is
  // searched for the terms of its text after a leading id, and the terms its words' synonyms
  // bring that some indexed text holds.
  const indexed = new Set(
    [
      ...kb.answers.flatMap((a) => [a.question, a.answer, a.category]),
      ...kb.controls.map((c) => c.title),
      ...kb.criteria.map((c) => c.title),
    ].flatMap((text) => terms(text)),
  );
  const searchedTerms = (text: string) => {
    const own = queryTerms(text);
    return own.length === 0
      ? 0
      : own.length + expansionTerms(text, own, (term) => indexed.has(term)).length;
  };
  const searched = questions.filter((_, i) =>
    results[i].suggestions.filter((s) => s.by === "id").length < DEFAULT_MAX_SUGGESTIONS
  ).reduce((sum, q) => sum + searchedTerms(leadingId(q.text)?.rest ?? q.text), 0);
  assert.ok(searched > questions.length, `${searched} terms`);
  assert.equal(pauses - built, searched);
  assert.ok(queryTerms(long[0].text).length === MAX_QUERY_TERMS, "a question of 64 terms");
});

Deno.test("[questionnaire] a sliced pause gives the event loop a turn only once its slice of work is used", async () => {
  let clock = 0;
  let turns = 0;
  const pause = slicedPause(10, async () => {
    turns++;
    await Promise.resolve();
  }, () => clock);
  await pause();
  clock = 9;
  await pause();
  assert.equal(turns, 0, "9 ms of work: no turn yet");
  clock = 10;
  await pause();
  assert.equal(turns, 1, "10 ms: a turn");
  clock = 15;
  await pause();
  assert.equal(turns, 1, "the slice starts again after the turn");
  clock = 20;
  await pause();
  assert.equal(turns, 2);
});
