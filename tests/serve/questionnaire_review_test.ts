/**
 * Coverage and flags of a questionnaire's rows, one row of the table per rule branch: the
 * coverage line's counts and wording, how an answer opens (yes, no, neither), duplicate ids, and
 * the two contradictions (yes while a cited control fails; yes and no citing one control).
 */
import assert from "node:assert/strict";
import type { KbAnswer, KbControl, KnowledgeBase } from "../../src/questionnaire/types.ts";
import { coverageOf, flagsOf, polarity } from "../../src/serve/questionnaire_review.ts";
import type { StoredRow } from "../../src/store/questionnaires.ts";

const ID = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;

function answer(n: number, text: string, extra: Partial<KbAnswer> = {}): KbAnswer {
  return {
    id: ID(n),
    question: `Question ${n}?`,
    answer: text,
    category: "Security",
    visibility: "public",
    questionnaireRefs: [],
    citations: [],
    updatedAt: "2026-11-01T00:00:00.000Z",
    ...extra,
  };
}

function control(id: string, state: KbControl["state"]): KbControl {
  return {
    projectSlug: "acme",
    projectName: "Acme",
    version: 3,
    controlId: id,
    title: `Control ${id}`,
    state,
    evidenceObservedAt: null,
    url: "http://trust.test/trust/acme/versions/3/trust.json",
  };
}

/** A row whose suggestions are the given answers, by id. */
function row(key: string, questionId: string | null, answerIds: string[]): StoredRow {
  const suggestions = answerIds.map((id) => ({
    source: { kind: "answer" as const, answerId: id },
    text: "",
    score: 1,
    by: "id" as const,
    reason: { questionnaireId: questionId ?? "" },
    citations: [],
  }));
  return {
    key,
    sheet: "S",
    row: Number(key.split(":")[1]),
    questionId,
    question: "Q?",
    existingAnswer: null,
    suggestions,
    best: suggestions[0] ?? null,
    questionSha256: "0".repeat(64),
  };
}

function kb(answers: KbAnswer[], controls: KbControl[] = []): KnowledgeBase {
  return { answers, controls, criteria: [], certifications: [], documents: [] };
}

Deno.test("[questionnaires] the coverage line", () => {
  const decisions = new Map([
    ["0:2", { state: "accepted" as const, answer: null, suggestion: 0, by: null, at: null }],
    ["0:3", { state: "rejected" as const, answer: null, suggestion: null, by: null, at: null }],
  ]);
  assert.deepEqual(coverageOf({ questions: 261, byId: 180, byText: 32 }, decisions), {
    questions: 261,
    answered: 212,
    byId: 180,
    byText: 32,
    needAnswer: 49,
    accepted: 1,
    edited: 0,
    rejected: 1,
    pending: 259,
    text: "212 of 261 answered from the knowledge base: 180 by id, 32 by text; 49 need an answer",
  });
  assert.match(coverageOf({ questions: 1, byId: 0, byText: 0 }, new Map()).text, /1 needs an/);
});

Deno.test("[questionnaires] how an answer opens", () => {
  const table: [string, "yes" | "no" | null][] = [
    ["Yes. We do.", "yes"],
    ["**Yes**, with AES-256.", "yes"],
    ["yes", "yes"],
    ["No: not yet.", "no"],
    ["- No", "no"],
    ["Yesterday we…", null],
    ["Not applicable", null],
    ["We encrypt everything.", null],
  ];
  for (const [text, expected] of table) assert.equal(polarity(text), expected, text);
});

Deno.test("[questionnaires] flags, one per rule branch", async (t) => {
  const failing = control("c-fail", "fail");
  const passing = control("c-pass", "pass");
  const cases: {
    name: string;
    answers: KbAnswer[];
    rows: StoredRow[];
    expected: { kind: string; answerIds: string[]; rowKeys: string[]; controls: string[] }[];
  }[] = [
    {
      name: "two answers claim an id a row asks (case aside)",
      answers: [
        answer(1, "Yes.", { questionnaireRefs: [{ questionnaire: "caiq-v4", id: "IAM-02.1" }] }),
        answer(2, "Yes.", { questionnaireRefs: [{ questionnaire: "other", id: "iam-02.1" }] }),
      ],
      rows: [row("0:2", "IAM-02.1", [ID(1), ID(2)])],
      expected: [{
        kind: "duplicate_id",
        answerIds: [ID(1), ID(2)],
        rowKeys: ["0:2"],
        controls: [],
      }],
    },
    {
      name: "two answers claim an id no row asks: no flag",
      answers: [
        answer(1, "Yes.", { questionnaireRefs: [{ questionnaire: "other", id: "X-1" }] }),
        answer(2, "Yes.", { questionnaireRefs: [{ questionnaire: "other", id: "X-1" }] }),
      ],
      rows: [row("0:2", "Y-1", [])],
      expected: [],
    },
    {
      name: "yes while a cited control fails",
      answers: [answer(1, "Yes.", { citations: [{ kind: "control", id: failing.controlId }] })],
      rows: [row("0:2", null, [ID(1)])],
      expected: [{
        kind: "contradiction",
        answerIds: [ID(1)],
        rowKeys: ["0:2"],
        controls: ["c-fail"],
      }],
    },
    {
      name: "no while a cited control fails: no flag",
      answers: [answer(1, "No.", { citations: [{ kind: "control", id: failing.controlId }] })],
      rows: [row("0:2", null, [ID(1)])],
      expected: [],
    },
    {
      name: "yes citing a failing control, but never suggested: no flag",
      answers: [answer(1, "Yes.", { citations: [{ kind: "control", id: failing.controlId }] })],
      rows: [row("0:2", null, [])],
      expected: [],
    },
    {
      name: "yes and no citing one passing control",
      answers: [
        answer(1, "Yes, always.", { citations: [{ kind: "control", id: passing.controlId }] }),
        answer(2, "No.", { citations: [{ kind: "control", id: passing.controlId }] }),
      ],
      rows: [row("0:2", null, [ID(1)]), row("0:3", null, [ID(2)])],
      expected: [{
        kind: "contradiction",
        answerIds: [ID(1), ID(2)],
        rowKeys: ["0:2", "0:3"],
        controls: ["c-pass"],
      }],
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const flags = flagsOf(c.rows, kb(c.answers, [failing, passing]));
      assert.deepEqual(
        flags.map((f) => ({
          kind: f.kind,
          answerIds: f.answerIds,
          rowKeys: f.rowKeys,
          controls: f.controls.map((x) => x.controlId),
        })),
        c.expected,
      );
      for (const flag of flags) assert.ok(flag.message.length > 20, flag.message);
    });
  }
});
