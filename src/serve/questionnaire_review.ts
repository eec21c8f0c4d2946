/**
 * What a reviewer sees of a questionnaire beside its rows: coverage ("212 of 261 answered from
 * the knowledge base: 180 by id, 32 by text; 49 need an answer") and flags. Both are
 * deterministic functions of the rows, the decisions and the knowledge base.
 *
 * Flags (docs/questionnaires.md):
 * - duplicate_id: two or more answers claim the same questionnaire id that a row of this
 *   questionnaire asks (ids compared without case);
 * - contradiction: an answer suggested for a row opens with "Yes" while a control it cites is
 *   failing in its project's latest published version; or two suggested answers cite the same
 *   control, one opening with "Yes" and the other with "No".
 */
import type { Coverage, Decision, QuestionnaireFlag } from "../domain/questionnaires.ts";
import type { KbAnswer, KnowledgeBase } from "../questionnaire/types.ts";
import { compareCodePoints } from "../lib/order.ts";
import type { StoredQuestionnaire, StoredRow } from "../store/questionnaires.ts";

/** Most flags kept per questionnaire, and rows named per flag. */
const MAX_FLAGS = 100;
const MAX_FLAG_ROWS = 50;

/** The coverage line and its counts. */
export function coverageOf(
  stats: StoredQuestionnaire["stats"],
  decisions: ReadonlyMap<string, Decision>,
): Coverage {
  const counts = { accepted: 0, edited: 0, rejected: 0 };
  for (const decision of decisions.values()) {
    if (decision.state !== "pending") counts[decision.state]++;
  }
  const answered = stats.byId + stats.byText;
  const needAnswer = stats.questions - answered;
  return {
    questions: stats.questions,
    answered,
    byId: stats.byId,
    byText: stats.byText,
    needAnswer,
    ...counts,
    pending: stats.questions - counts.accepted - counts.edited - counts.rejected,
    text:
      `${answered} of ${stats.questions} answered from the knowledge base: ${stats.byId} by id, ` +
      `${stats.byText} by text; ${needAnswer} need${needAnswer === 1 ? "s" : ""} an answer`,
  };
}

/** What matching found over the rows: how many questions, best matches by id and by text. */
export function statsOf(rows: readonly StoredRow[]): StoredQuestionnaire["stats"] {
  return {
    questions: rows.length,
    byId: rows.filter((r) => r.best?.by === "id").length,
    byText: rows.filter((r) => r.best?.by === "text").length,
  };
}

/** "yes", "no" or null: how an answer's text opens. */
export function polarity(text: string): "yes" | "no" | null {
  const first = text.replace(/^[\s*_#>`-]+/, "").match(/^[A-Za-z]+/)?.[0]?.toLowerCase();
  return first === "yes" ? "yes" : first === "no" ? "no" : null;
}

function rowsSuggesting(rows: readonly StoredRow[], answerIds: ReadonlySet<string>): string[] {
  return rows.filter((row) =>
    row.suggestions.some((s) => s.source.kind === "answer" && answerIds.has(s.source.answerId))
  ).map((row) => row.key).slice(0, MAX_FLAG_ROWS);
}

/** Answers claiming the same questionnaire id that a row asks. */
function duplicateIds(rows: readonly StoredRow[], kb: KnowledgeBase): QuestionnaireFlag[] {
  const asked = new Map<string, string[]>();
  for (const row of rows) {
    if (!row.questionId) continue;
    const id = row.questionId.toLowerCase();
    asked.set(id, [...(asked.get(id) ?? []), row.key]);
  }
  const claims = new Map<string, { id: string; answers: Set<string> }>();
  for (const answer of kb.answers) {
    for (const ref of answer.questionnaireRefs) {
      const id = ref.id.toLowerCase();
      if (!asked.has(id)) continue;
      const claim = claims.get(id) ?? { id: ref.id, answers: new Set<string>() };
      claim.answers.add(answer.id);
      claims.set(id, claim);
    }
  }
  return [...claims.entries()].filter(([, c]) => c.answers.size > 1)
    .sort(([a], [b]) => compareCodePoints(a, b))
    .map(([id, claim]) => {
      const answerIds = [...claim.answers].sort(compareCodePoints);
      return {
        kind: "duplicate_id" as const,
        message: `${answerIds.length} answers claim the questionnaire id ${claim.id}: keep one`,
        questionnaireId: claim.id,
        answerIds,
        controls: [],
        rowKeys: asked.get(id)!.slice(0, MAX_FLAG_ROWS),
      };
    });
}

/** Suggested answers whose wording disagrees with a cited control, or with each other. */
function contradictions(rows: readonly StoredRow[], kb: KnowledgeBase): QuestionnaireFlag[] {
  const suggested = new Set(
    rows.flatMap((r) =>
      r.suggestions.flatMap((s) => s.source.kind === "answer" ? [s.source.answerId] : [])
    ),
  );
  const answers = kb.answers.filter((a) => suggested.has(a.id));
  const controls = new Map(kb.controls.map((c) => [c.controlId, c]));
  const flags: QuestionnaireFlag[] = [];
  const cited = (answer: KbAnswer) =>
    answer.citations.flatMap((c) =>
      c.kind === "control" && controls.has(c.id) ? [controls.get(c.id)!] : []
    );
  const shown = (c: ReturnType<typeof cited>[number]) => ({
    projectSlug: c.projectSlug,
    controlId: c.controlId,
    title: c.title,
    state: c.state,
    version: c.version,
  });
  for (const answer of answers) {
    const failing = cited(answer).filter((c) => c.state === "fail");
    if (polarity(answer.answer) !== "yes" || failing.length === 0) continue;
    flags.push({
      kind: "contradiction",
      message: `"${answer.question}" answers yes while ${
        failing.map((c) => `${c.title} (${c.projectSlug} v${c.version})`).join(", ")
      } fails in the latest published version`,
      questionnaireId: null,
      answerIds: [answer.id],
      controls: failing.map(shown),
      rowKeys: rowsSuggesting(rows, new Set([answer.id])),
    });
  }
  const byControl = new Map<string, { yes: string[]; no: string[] }>();
  for (const answer of answers) {
    const said = polarity(answer.answer);
    if (!said) continue;
    for (const control of cited(answer)) {
      const sides = byControl.get(control.controlId) ?? { yes: [], no: [] };
      sides[said].push(answer.id);
      byControl.set(control.controlId, sides);
    }
  }
  for (const [controlId, sides] of [...byControl].sort(([a], [b]) => compareCodePoints(a, b))) {
    if (sides.yes.length === 0 || sides.no.length === 0) continue;
    const control = controls.get(controlId)!;
    const answerIds = [...sides.yes, ...sides.no].sort(compareCodePoints);
    flags.push({
      kind: "contradiction",
      message: `Answers citing ${control.title} (${control.projectSlug}) say both yes and no`,
      questionnaireId: null,
      answerIds,
      controls: [shown(control)],
      rowKeys: rowsSuggesting(rows, new Set(answerIds)),
    });
  }
  return flags;
}

/** Every flag of a questionnaire's rows against the knowledge base, in a fixed order. */
export function flagsOf(rows: readonly StoredRow[], kb: KnowledgeBase): QuestionnaireFlag[] {
  return [...duplicateIds(rows, kb), ...contradictions(rows, kb)].slice(0, MAX_FLAGS);
}
