/**
 * The questionnaire matcher (src/questionnaire/match.ts) on the evaluation knowledge base:
 * determinism, ids before text, conflicts, thresholds, reasons, citations and hostile input.
 * Matching quality itself is measured, not asserted, in `deno task bench`.
 */
import assert from "node:assert/strict";
import { createMatcher, DEFAULT_MATCH_THRESHOLD } from "../../src/questionnaire/match.ts";
import type {
  KbAnswer,
  KnowledgeBase,
  Question,
  Suggestion,
} from "../../src/questionnaire/types.ts";
import { knowledgeBase } from "../fixtures/questionnaires/match_kb.ts";
import { paddedKnowledgeBase } from "../fixtures/questionnaires/match_distractors.ts";
import { labelledSet } from "../bench/questionnaire.ts";

const q = (key: string, text: string, id: string | null = null): Question => ({ key, id, text });
const one = (kb: KnowledgeBase, question: Question, options = {}) =>
  createMatcher(kb, options).match([question])[0];
const sourceOf = (s: Suggestion | null | undefined) =>
  !s ? null : s.source.kind === "answer" ? s.source.answerId : `control:${s.source.controlId}`;

/** A permutation of `list` from a fixed seed (the same one each run). */
function shuffled<T>(list: T[], seed: number): T[] {
  const out = [...list];
  let state = seed;
  for (let i = out.length - 1; i > 0; i--) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

function withAnswers(extra: KbAnswer[], kb = knowledgeBase()): KnowledgeBase {
  return { ...kb, answers: [...kb.answers, ...extra] };
}

function answer(id: string, refs: string[], overrides: Partial<KbAnswer> = {}): KbAnswer {
  return {
    id,
    question: `Question of ${id}`,
    answer: `Answer of ${id}`,
    category: "Test",
    visibility: "public",
    questionnaireRefs: refs.map((ref) => ({ questionnaire: "other", id: ref })),
    citations: [],
    updatedAt: "2026-01-01T00:00:00.000Z",
    ...overrides,
  };
}

Deno.test("[questionnaire] match() gives byte-identical results twice and for a shuffled knowledge base", async () => {
  const questions = (await labelledSet()).map((l) => q(l.key, l.text, l.id));
  const kb = paddedKnowledgeBase(400);
  const first = JSON.stringify(createMatcher(kb).match(questions));
  assert.equal(JSON.stringify(createMatcher(kb).match(questions)), first);
  const reordered: KnowledgeBase = {
    answers: shuffled(kb.answers, 1),
    controls: shuffled(kb.controls, 2),
    criteria: shuffled(kb.criteria, 3),
    certifications: shuffled(kb.certifications, 4),
    documents: shuffled(kb.documents, 5),
  };
  assert.equal(JSON.stringify(createMatcher(reordered).match(questions)), first);
  const matcher = createMatcher(kb);
  assert.equal(
    JSON.stringify([...questions].reverse().flatMap((x) => matcher.match([x]))),
    JSON.stringify(JSON.parse(first).reverse()),
  );
});

Deno.test("[questionnaire] an id match comes first with score 1, before a better text match", () => {
  // The text is the knowledge base's own question for encryption in transit; the id is CEK-03.1.
  const result = one(
    knowledgeBase(),
    q("r1", "Is data encrypted in transit over public networks?", "CEK-03.1"),
  );
  assert.equal(sourceOf(result.suggestions[0]), "enc-rest");
  assert.equal(result.suggestions[0].by, "id");
  assert.equal(result.suggestions[0].score, 1);
  assert.deepEqual(result.suggestions[0].reason, { questionnaireId: "CEK-03.1" });
  assert.equal(sourceOf(result.best), "enc-rest");
  const text = result.suggestions.find((s) => s.by === "text" && sourceOf(s) === "enc-transit");
  assert.ok(text, "the text match is still offered after the id match");
  assert.ok(text.score < 1);
  assert.ok(result.suggestions.filter((s) => sourceOf(s) === "enc-rest").length === 1);
});

Deno.test("[questionnaire] ids match in any case, spacing and leading zeros, also written in the text", async (t) => {
  const kb = knowledgeBase();
  const cases: [Question, string][] = [
    [q("a", "", "a&a-1.1"), "grc-external-audit"],
    [q("b", "", " IAM 08.1 "), "iam-reviews"],
    [q("c", "CEK-03.1 Tell us how stored data is protected"), "enc-rest"],
    [q("d", "(BCR-8.3): restore tests?"), "backup-restore"],
    [q("e", "D.1.1 – encryption of stored data"), "enc-rest"],
    [q("f", "", "ACME-PRD-05"), "iam-sso"],
  ];
  for (const [question, expected] of cases) {
    await t.step(`${question.id ?? question.text} → ${expected}`, () => {
      const result = one(kb, question);
      assert.equal(result.best?.by, "id");
      assert.equal(sourceOf(result.best), expected);
    });
  }
});

Deno.test("[questionnaire] several answers claiming one id are all suggested: latest update first, then by id", () => {
  const kb = knowledgeBase();
  const both = one(kb, q("x", "", "IAM-14.1"));
  assert.deepEqual(both.suggestions.filter((s) => s.by === "id").map(sourceOf), [
    "iam-mfa-customers",
    "iam-mfa-staff",
  ]);
  kb.answers.find((a) => a.id === "iam-mfa-staff")!.updatedAt = "2026-11-01T00:00:00.000Z";
  const newer = one(kb, q("x", "", "IAM-14.1"));
  assert.deepEqual(newer.suggestions.filter((s) => s.by === "id").map(sourceOf), [
    "iam-mfa-staff",
    "iam-mfa-customers",
  ]);
  const many = withAnswers(["c1", "c2", "c3", "c4", "c5", "c6"].map((id) => answer(id, ["DUP-1"])));
  const all = one(many, q("y", "", "DUP-1"), { maxSuggestions: 2 });
  assert.equal(all.suggestions.length, 6, "id matches are never cut");
  assert.ok(all.suggestions.every((s) => s.by === "id"));
});

Deno.test("[questionnaire] a leading-zero match that two stored spellings share is not taken as an id match", () => {
  const kb = withAnswers([answer("zero", ["X-01.1"]), answer("plain", ["X-1.1"])]);
  assert.equal(sourceOf(one(kb, q("a", "", "X-01.1")).best), "zero");
  assert.equal(sourceOf(one(kb, q("b", "", "x-1.1")).best), "plain");
  const ambiguous = one(kb, q("c", "", "X-001.1"));
  assert.ok(ambiguous.suggestions.every((s) => s.by === "text"));
});

Deno.test("[questionnaire] bare row numbers are not matched as ids", () => {
  const kb = withAnswers([answer("numbered", ["1.1"])]);
  const result = one(kb, q("a", "1.1 Do you have a documented incident response plan?", "1.1"));
  assert.ok(result.suggestions.every((s) => s.by === "text"));
  assert.equal(sourceOf(result.best), "ir-plan");
});

Deno.test("[questionnaire] best is the top suggestion only at or above the threshold", () => {
  const kb = knowledgeBase();
  const question = q("t", "Do you protect your email domains against spoofing?");
  const top = one(kb, question, { threshold: 0 }).suggestions[0];
  assert.equal(sourceOf(top), "net-email-auth");
  assert.ok(top.score > 0 && top.score < 1);
  assert.equal(sourceOf(one(kb, question, { threshold: top.score }).best), "net-email-auth");
  assert.equal(one(kb, question, { threshold: top.score + 0.0001 }).best, null);
  const weak = one(kb, q("w", "What is your office address in Singapore?"), { threshold: 0 });
  assert.ok(weak.suggestions.every((s) => s.score < DEFAULT_MATCH_THRESHOLD));
  assert.equal(one(kb, q("w", "What is your office address in Singapore?")).best, null);
  for (const s of one(kb, question, { threshold: 0, maxSuggestions: 3 }).suggestions) {
    assert.ok(s.score >= 0 && s.score < 1);
  }
  assert.equal(one(kb, question, { maxSuggestions: 3 }).suggestions.length, 3);
});

Deno.test("[questionnaire] text reasons are the buyer's own words, sorted; scores fall with fewer shared terms", () => {
  const kb = knowledgeBase();
  const result = one(kb, q("r", "Is 2FA required when staff sign in to internal tools?"));
  const top = result.suggestions[0];
  assert.equal(sourceOf(top), "iam-mfa-staff");
  assert.equal(top?.by, "text");
  const terms = (top?.reason as { terms: string[] }).terms;
  assert.deepEqual(terms, [...terms].sort());
  assert.ok(terms.includes("2fa") && terms.includes("staff"), terms.join(","));
  const scoreOf = (text: string) =>
    one(kb, q("s", text), { threshold: 0, maxSuggestions: 40 }).suggestions.find((s) =>
      sourceOf(s) === "iam-mfa-staff"
    )
      ?.score ?? 0;
  const exact = scoreOf("Do you enforce multi-factor authentication for employees?");
  const partial = scoreOf("Do you enforce multi-factor authentication?");
  const loose = scoreOf("Do employees get a company laptop?");
  assert.ok(exact > partial && partial > loose && loose > 0, `${exact} ${partial} ${loose}`);
});

Deno.test("[questionnaire] citations: the answer, its controls with their published state, certifications, documents", () => {
  const result = one(knowledgeBase(), q("c", "", "CEK-03.1"));
  assert.deepEqual(result.best?.citations, [
    { kind: "answer", id: "enc-rest", question: "Is customer data encrypted at rest?" },
    {
      kind: "control",
      projectSlug: "app",
      controlId: "ctl-enc-rest",
      title: "Encryption at rest enabled on databases and buckets",
      state: "pass",
      version: 42,
      evidenceObservedAt: "2026-11-26T08:00:00Z",
      url: "https://trust.acme.example/p/app/v/42/trust.json",
    },
    {
      kind: "certification",
      id: "soc2",
      title: "SOC 2 Type II",
      status: "valid",
      url: "https://trust.acme.example/certifications/soc2",
    },
  ]);
  const docs = one(knowledgeBase(), q("d", "", "TVM-06.1")).best!;
  assert.deepEqual(docs.citations.map((c) => c.kind), ["answer", "document"]);
  const kb = knowledgeBase();
  kb.answers.find((a) => a.id === "enc-rest")!.citations.push({ kind: "document", id: "gone" });
  assert.equal(one(kb, q("e", "", "CEK-03.1")).best?.citations.length, 3, "unresolvable: left out");
});

Deno.test("[questionnaire] controls answer with their published state, worded alike; criteria cite their controls", () => {
  const kb = knowledgeBase();
  kb.answers = [];
  const result = one(kb, q("c", "Are container images scanned before they are deployed?"), {
    threshold: 0,
  });
  const control = result.suggestions.find((s) => sourceOf(s) === "control:ctl-image-scan");
  assert.ok(control);
  assert.equal(
    control.text,
    "Container images scanned before deploy: degraded in Acme Cloud version 42, evidence observed 2026-11-26",
  );
  assert.equal(control.citations[0].kind, "control");
  const training = one(kb, q("t", "Information security awareness, education and training"));
  const viaCriterion = training.suggestions.find((s) => sourceOf(s) === "control:ctl-training");
  assert.ok(viaCriterion);
  assert.equal(
    viaCriterion.text.endsWith(
      "not yet evaluated in Acme Corporate IT version 7, no evidence observed",
    ),
    true,
  );
  assert.ok(
    viaCriterion.citations.some((c) => c.kind === "criterion" && c.criterionId === "A.6.3"),
  );
});

Deno.test("[questionnaire] hostile questions do not throw and match nothing wrongly", async (t) => {
  const matcher = createMatcher(knowledgeBase());
  const cases: Question[] = [
    q("empty", ""),
    q("spaces", "   \n\t "),
    q("punctuation", "?!.,;:()[]{}<>--–—…"),
    q("long", "encryption ".repeat(500) + "x".repeat(4500)),
    q("many-words", Array.from({ length: 2000 }, (_, i) => `w${i}`).join(" ")),
    q("unicode", "Ist die Verschlüsselung 🔐 aktiv? تشفير البيانات 数据加密 e\u0301ncryption"),
    q("lone-surrogate", "\ud800 encryption \udfff"),
    q("id-only", "", "CEK-03.1"),
    q("bad-id", "", "!!!"),
    q("huge-id", "", "A".repeat(10_000)),
    q("proto", "__proto__ constructor toString hasOwnProperty"),
  ];
  for (const question of cases) {
    await t.step(question.key, () => {
      const [result] = matcher.match([question]);
      assert.equal(result.key, question.key);
      for (const s of result.suggestions) assert.ok(s.score >= 0 && s.score <= 1);
    });
  }
  const empty = createMatcher({
    answers: [],
    controls: [],
    criteria: [],
    certifications: [],
    documents: [],
  });
  assert.deepEqual(empty.match([q("a", "Do you encrypt data?", "CEK-03.1")]), [
    { key: "a", suggestions: [], best: null },
  ]);
});

Deno.test("[questionnaire] the labelled set is what the benchmark says it is", async () => {
  const set = await labelledSet();
  const count = (group: string) => set.filter((l) => l.group === group).length;
  assert.ok(set.length >= 500 && count("id") >= 90 && count("paraphrase") >= 300);
  assert.ok(count("foreign-id") >= 35 && count("uncovered") >= 50 && count("near-miss") >= 20);
  assert.equal(new Set(set.map((l) => l.key)).size, set.length);
  const ids = new Set(knowledgeBase().answers.map((a) => a.id));
  for (const l of set) {
    assert.equal(l.expect.length === 0, l.kind === "none" || l.kind === "near-miss", l.key);
    for (const id of l.expect) assert.ok(ids.has(id), `${l.key}: ${id}`);
  }
  const kbQuestions = new Set(knowledgeBase().answers.map((a) => a.question.toLowerCase()));
  for (const l of set.filter((l) => l.kind === "paraphrase")) {
    assert.ok(!kbQuestions.has(l.text.toLowerCase()), `${l.key} copies the knowledge base`);
  }
  assert.ok(set.some((l) => l.split === "tune") && set.some((l) => l.split === "held"));
});
