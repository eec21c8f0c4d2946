/**
 * The techniques of matching past ids and plain words (src/questionnaire/match.ts): negative
 * evidence for near misses (a qualifier of the question the answer never names), synonyms
 * (WordNet, the control vocabulary, acronyms both ways) and learned phrasings (an answer's
 * aliases, matched by text and by id), each shown on and off with the matcher's test-only
 * `techniques` switches, on the evaluation knowledge base at the default threshold.
 */
import assert from "node:assert/strict";
import {
  createMatcher,
  createYieldingMatcher,
  DEFAULT_MATCH_THRESHOLD,
  type MatchTechniques,
} from "../../src/questionnaire/match.ts";
import {
  compoundTerms,
  expansionTerms,
  qualifiers,
  queryTerms,
} from "../../src/questionnaire/match_text.ts";
import type { KnowledgeBase, MatchResult, Suggestion } from "../../src/questionnaire/types.ts";
import { knowledgeBase } from "../fixtures/questionnaires/match_kb.ts";
import { paddedKnowledgeBase } from "../fixtures/questionnaires/match_distractors.ts";
import { labelledSet, withLearnedPhrasings } from "../bench/questionnaire.ts";

const sourceOf = (s: Suggestion | null | undefined) =>
  !s ? null : s.source.kind === "answer" ? s.source.answerId : `control:${s.source.controlId}`;

function match(
  text: string,
  techniques?: MatchTechniques,
  kb: KnowledgeBase = knowledgeBase(),
  id: string | null = null,
): MatchResult {
  return createMatcher(kb, { techniques }).match([{ key: "k", id, text }])[0];
}

const scoreOf = (result: MatchResult, answerId: string) =>
  result.suggestions.find((s) => sourceOf(s) === answerId)?.score ?? 0;

Deno.test("[questionnaire] near misses are left blank: SCIM is not SSO, internal tools' RTO is not the DR answer, sub-processors' checks are not ours", async (t) => {
  const cases: [string, string][] = [
    ["Do you support SCIM provisioning for single sign-on users?", "iam-sso"],
    ["What is the RTO for your internal tools?", "dr-objectives"],
    ["Do your sub-processors perform background checks on their employees?", "hr-background"],
  ];
  for (const [question, lookalike] of cases) {
    await t.step(question, () => {
      const without = match(question, { negatives: false });
      // Without negative evidence the look-alike answer is taken: the defect of issue 34.
      assert.equal(sourceOf(without.best), lookalike);
      const result = match(question);
      assert.equal(result.best, null, JSON.stringify(result.suggestions[0]));
      // It is still suggested, at half its score: the qualifier is missing from its texts.
      const before = scoreOf(without, lookalike);
      const after = scoreOf(result, lookalike);
      assert.ok(after > 0 && after <= before * 0.5 + 0.0001, `${after} after ${before}`);
      // However far it leads the others, a suggestion lacking the qualifier gains no lead.
      const top = result.suggestions[0];
      assert.ok(!("lead" in top.reason), JSON.stringify(top));
    });
  }
  await t.step("the same questions without the qualifier still find their answer", () => {
    assert.equal(sourceOf(match("What is your RTO?").best), "dr-objectives");
    assert.equal(
      sourceOf(match("Do you perform background checks on new employees?").best),
      "hr-background",
    );
    assert.equal(
      sourceOf(match("Which subprocessors do you use and where are they located?").best),
      "vendor-list",
    );
  });
});

Deno.test("[questionnaire] qualifiers are read from the words, hyphenated or not; a third party is none", () => {
  assert.deepEqual([...qualifiers("Do your sub-processors' staff…")], ["supplier"]);
  assert.deepEqual([...qualifiers("sub processors and SUPPLIERS")], ["supplier"]);
  assert.deepEqual([...qualifiers("the RTO of internal tools")], ["internal"]);
  assert.deepEqual([...qualifiers("SCIM 2.0 provisioning")], ["scim"]);
  assert.deepEqual([...qualifiers("tested by an independent third party")], []);
  assert.deepEqual([...qualifiers("constructor __proto__ toString")], []);
});

Deno.test("[questionnaire] synonyms find paraphrases the words alone miss", async (t) => {
  const cases: [string, string][] = [
    ["How frequently are backups performed?", "backup-frequency"],
    ["Are user entitlements recertified periodically?", "iam-reviews"],
    ["Do you have a CISO or head of security?", "hr-ciso"],
    ["Are you PCI DSS compliant?", "grc-pci"],
  ];
  for (const [question, expected] of cases) {
    await t.step(question, () => {
      const result = match(question);
      assert.equal(sourceOf(result.best), expected);
      assert.ok(result.best!.score >= DEFAULT_MATCH_THRESHOLD);
      // Synonyms alone lift it: without the lead over the next suggestion too, with and without.
      assert.equal(sourceOf(match(question, { lead: false }).best), expected);
      const without = match(question, { synonyms: false, lead: false });
      assert.notEqual(sourceOf(without.best), expected);
    });
  }
  await t.step("a spelled-out name brings its acronym, an acronym its words", () => {
    const known = () => true;
    const spelled = "Are you compliant with the California Consumer Privacy Act?";
    const terms = expansionTerms(spelled, queryTerms(spelled), known).map((t) => t.term);
    assert.ok(terms.includes("ccpa"), terms.join(" "));
    const acronym = "Do you use a CSPM?";
    const spelledOut = expansionTerms(acronym, queryTerms(acronym), known).map((t) => t.term);
    assert.ok(spelledOut.includes("postur"), spelledOut.join(" "));
  });
  await t.step("only terms the index holds are added, at most 4 per word", () => {
    const question = "How frequently are backups performed?";
    assert.deepEqual(expansionTerms(question, queryTerms(question), () => false), []);
    const all = expansionTerms(question, queryTerms(question), () => true);
    const perWord = new Map<string, number>();
    for (const t of all) perWord.set(t.word, (perWord.get(t.word) ?? 0) + 1);
    assert.ok([...perWord.values()].every((n) => n <= 4), JSON.stringify([...perWord]));
  });
});

Deno.test("[questionnaire] learned phrasings match as the answer's own question and ids", async (t) => {
  const kb = knowledgeBase();
  const taught: KnowledgeBase = {
    ...kb,
    answers: kb.answers.map((a) =>
      a.id === "enc-rest"
        ? {
          ...a,
          aliases: [
            { text: "Is information scrambled while it sits on your disks?", ids: ["VSQ-1.4"] },
            { text: "Storage cryptography for tenant records", ids: [] },
          ],
        }
        : a
    ),
  };
  await t.step("by text", () => {
    const question = "Is our information scrambled while it sits on your disks?";
    assert.notEqual(sourceOf(match(question, {}, kb).best), "enc-rest");
    assert.equal(sourceOf(match(question, { aliases: false, lead: false }, taught).best), null);
    const result = match(question, {}, taught);
    assert.equal(sourceOf(result.best), "enc-rest");
    assert.equal(result.best!.by, "text");
  });
  await t.step("by id, in any of the ways ids are written", () => {
    for (const id of ["VSQ-1.4", "vsq 1.4", "VSQ-01.4"]) {
      const result = match("Anything at all", {}, taught, id);
      assert.equal(sourceOf(result.best), "enc-rest", id);
      assert.deepEqual(result.best!.reason, { questionnaireId: "VSQ-1.4" });
      assert.equal(result.best!.score, 1);
    }
    assert.equal(match("Anything at all", { aliases: false }, taught, "VSQ-1.4").best, null);
    assert.equal(sourceOf(match("VSQ-1.4 Anything at all", {}, taught).best), "enc-rest");
  });
  await t.step("malformed phrasings are skipped, never thrown on", () => {
    const broken = {
      ...kb,
      answers: kb.answers.map((a, i) =>
        i === 0 ? { ...a, aliases: [null, { text: 3 }, { text: "x", ids: "no" }] as never } : a
      ),
    };
    assert.doesNotThrow(() => match("Is customer data encrypted at rest?", {}, broken));
  });
});

Deno.test("[questionnaire] with every technique and learned phrasings, the yielding matcher still matches exactly as createMatcher", async () => {
  const set = await labelledSet();
  const kb = withLearnedPhrasings(set.filter((l) => l.split === "tune"), paddedKnowledgeBase(400));
  const questions = set.map((l) => ({ key: l.key, id: l.id, text: l.text }));
  const matcher = await createYieldingMatcher(
    kb,
    { pauseInQuestions: true },
    () => Promise.resolve(),
  );
  const expected = JSON.stringify(createMatcher(kb).match(questions));
  assert.equal(JSON.stringify(await matcher.matchYielding(questions, 50)), expected);
  // The techniques switched off give other results (they are switches, not no-ops).
  const plain = createMatcher(kb, { techniques: { aliases: false, synonyms: false } });
  assert.notEqual(JSON.stringify(plain.match(questions)), expected);
});

Deno.test("[questionnaire] a hyphenated compound is also read as one word: post-mortems, sub-processors", async (t) => {
  await t.step(
    "its terms, when the index knows them, with the compound as the buyer's word",
    () => {
      const question =
        "Do you conduct post-mortems after incidents? Please list your sub\u2011processors.";
      assert.deepEqual(compoundTerms(question, queryTerms(question), () => true), [
        { term: "postmortem", word: "post-mortems" },
        { term: "vendor", word: "sub-processors" },
      ]);
      assert.deepEqual(compoundTerms(question, queryTerms(question), () => false), []);
      // Only compounds among the question's own words (a long cell's tail brings nothing).
      assert.deepEqual(compoundTerms(question, [], () => true), []);
      assert.deepEqual(
        compoundTerms("No compound here", queryTerms("No compound here"), () => true),
        [],
      );
      // A long cell: at most 64 compounds are read (here 64 distinct terms, the first 64).
      const long = Array.from({ length: 200 }, (_, i) => `w${i}-x${i}`).join(" ");
      const own = [{ term: "x", word: long.replaceAll("-", " ") }];
      const read = compoundTerms(long, own, () => true);
      assert.equal(read.length, 64);
      assert.deepEqual(read[63], { term: "w63x63", word: "w63-x63" });
    },
  );
  await t.step("it finds the answer the split parts miss", () => {
    const question = "Do you conduct post-mortems after incidents?";
    const result = match(question);
    assert.equal(sourceOf(result.best), "ir-postmortem");
    assert.ok("terms" in result.best!.reason && result.best!.reason.terms.includes("post-mortems"));
    const without = match(question, { compounds: false });
    assert.notEqual(sourceOf(without.best), "ir-postmortem");
    assert.notEqual(sourceOf(without.suggestions[0]), "ir-postmortem");
  });
});

Deno.test("[questionnaire] a top suggestion well ahead of the next gains the lead bonus, and says so", async (t) => {
  await t.step("clear of the others: accepted, its reason giving the lead", () => {
    const question = "Do you conduct post-mortems after incidents?";
    const without = match(question, { lead: false });
    assert.equal(without.best, null);
    const plain = without.suggestions[0];
    assert.equal(sourceOf(plain), "ir-postmortem");
    assert.ok(plain.score >= 0.3 && plain.score < DEFAULT_MATCH_THRESHOLD, `${plain.score}`);
    const ratio = plain.score / without.suggestions[1].score;
    assert.ok(ratio >= 1.4, `${ratio}`);
    const result = match(question);
    assert.equal(sourceOf(result.best), "ir-postmortem");
    assert.equal(result.best!.score, Math.floor((plain.score + 0.1) * 10_000) / 10_000);
    assert.deepEqual(result.best!.reason, { ...plain.reason, lead: Math.floor(ratio * 100) / 100 });
    // Only the first suggestion changes; the others and the order stay.
    assert.deepEqual(result.suggestions.slice(1), without.suggestions.slice(1));
  });
  await t.step("two suggestions scoring alike: no bonus", () => {
    const kb = knowledgeBase();
    const twin = kb.answers.find((a) => a.id === "enc-backup")!;
    const twins: KnowledgeBase = {
      ...kb,
      answers: [...kb.answers, { ...twin, id: "enc-backup-copy" }],
    };
    const question = "Are backup copies protected with encryption?";
    assert.equal(sourceOf(match(question).best), "enc-backup");
    const result = match(question, {}, twins);
    assert.equal(result.suggestions[0].score, result.suggestions[1].score);
    assert.deepEqual(result.suggestions, match(question, { lead: false }, twins).suggestions);
    assert.ok(!("lead" in result.suggestions[0].reason));
  });
  await t.step(
    "a control the top answer cites agrees with it: the lead is over the next one",
    () => {
      const question = "Is static analysis part of the pipeline?";
      const without = match(question, { lead: false });
      const [first, second, third] = without.suggestions;
      assert.equal(sourceOf(first), "sdlc-sast");
      assert.equal(sourceOf(second), "control:ctl-sast");
      assert.ok(first.citations.some((c) => c.kind === "control" && c.controlId === "ctl-sast"));
      // Against its own control it would not lead (ratio under 1.4); against the next, it does.
      assert.ok(first.score / second.score < 1.4 && first.score / third.score >= 1.4);
      const result = match(question);
      assert.equal(result.suggestions[0].score, Math.floor((first.score + 0.1) * 10_000) / 10_000);
      assert.deepEqual(result.suggestions[0].reason, {
        ...first.reason,
        lead: Math.floor(first.score / third.score * 100) / 100,
      });
    },
  );
  await t.step("no lead in length alone: the first must share more of the buyer's words", () => {
    // A small knowledge base: two answers matching the same one word differ in score by their
    // wording only, and nothing else is near.
    const answer = (id: string, question: string, text: string) => ({
      id,
      question,
      answer: text,
      category: "Security",
      visibility: "public" as const,
      questionnaireRefs: [],
      citations: [],
      updatedAt: "2026-01-01T00:00:00.000Z",
    });
    const small: KnowledgeBase = {
      ...knowledgeBase(),
      answers: [
        answer("a1", "Is there a strong password policy?", "Yes: 14 characters at least."),
        answer("a2", "Is data encrypted at rest and in transit?", "Yes: AES-256 at rest."),
        answer("a3", "Are audit policies reviewed every year?", "Yes, every year."),
        answer("a4", "Who approves the audit policies?", "The board approves them."),
        answer("a5", "How often are backups of cloud data taken?", "Every night."),
      ],
      controls: [],
      criteria: [],
    };
    const question = "Is there an audit management process?";
    const without = match(question, { lead: false }, small);
    const [first, second] = without.suggestions;
    assert.ok(first.score >= 0.3 && first.score / second.score >= 1.4, JSON.stringify(without));
    assert.deepEqual(first.reason, second.reason);
    const result = match(question, {}, small);
    assert.deepEqual(result.suggestions, without.suggestions);
    assert.equal(result.best, null);
  });
  await t.step("a weak score stays weak however alone it is", () => {
    const question = "Do you have a trust center we can check?";
    const result = match(question);
    assert.ok(result.suggestions[0].score < 0.3);
    assert.deepEqual(result.suggestions, match(question, { lead: false }).suggestions);
  });
});
