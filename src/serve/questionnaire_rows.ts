/**
 * A questionnaire's rows under review (docs/questionnaires.md): pages of rows in the file's
 * order, a reviewer's decision on one row, accepting every id match at once, saving a row's
 * answer back into the knowledge base with the question's id learned, and the gap list.
 */
import {
  MAX_ANSWER,
  MAX_QUESTION,
  MAX_QUESTIONNAIRE_REFS,
  QuestionnaireRef,
  type TrustAnswer,
} from "../domain/answers.ts";
import { conflict, notFound, validationFailed } from "../domain/errors.ts";
import {
  type AcceptRowsRequest,
  type DecideRowRequest,
  type Decision,
  DEFAULT_ROWS_PAGE,
  type QuestionnaireRow,
  type RowsQuery,
  type SaveAnswerRequest,
} from "../domain/questionnaires.ts";
import { getAnswer } from "../store/answers.ts";
import {
  getDecision,
  getRow,
  listDecisions,
  requireQuestionnaire,
  scanRows,
  setDecisions,
  type StoredRow,
} from "../store/questionnaires.ts";
import { changeAnswer, createAnswer } from "./answers.ts";

const PENDING: Decision = { state: "pending", answer: null, suggestion: null, by: null, at: null };
type Actor = { userId: string; email: string | null };

/** A stored row with its decision, as the API shows it. */
export function presentRow(
  row: StoredRow,
  decision: Decision | null | undefined,
): QuestionnaireRow {
  const { questionSha256: _digest, ...shown } = row;
  return { ...shown, decision: decision ?? PENDING };
}

function statusOf(row: StoredRow, decision: Decision | undefined): string[] {
  return [decision?.state ?? "pending", ...(row.best === null ? ["unanswered"] : [])];
}

/** A page of rows in the file's order, optionally only those in a review state. */
export async function rowsPage(
  kv: Deno.Kv,
  organizationId: string,
  options: { id: string; query: RowsQuery },
): Promise<{ rows: QuestionnaireRow[]; nextCursor: string | null }> {
  const { id, query } = options;
  await requireQuestionnaire(kv, organizationId, id);
  const decisions = await listDecisions(kv, organizationId, id);
  const limit = query.limit ?? DEFAULT_ROWS_PAGE;
  const status = query.status ?? "all";
  const rows: QuestionnaireRow[] = [];
  for await (const row of scanRows(kv, organizationId, id, query.cursor)) {
    const decision = decisions.get(row.key);
    if (status !== "all" && !statusOf(row, decision).includes(status)) continue;
    if (rows.length === limit) return { rows, nextCursor: rows.at(-1)!.key };
    rows.push(presentRow(row, decision));
  }
  return { rows, nextCursor: null };
}

/** The row, or a 404. */
async function requireRow(kv: Deno.Kv, organizationId: string, id: string, key: string) {
  await requireQuestionnaire(kv, organizationId, id);
  const row = await getRow(kv, organizationId, id, key);
  if (!row) throw notFound("No row with that key in this questionnaire");
  return row;
}

/** Records a reviewer's decision on one row. */
export async function decideRow(
  kv: Deno.Kv,
  organizationId: string,
  options: { id: string; key: string; request: DecideRowRequest; actor: Actor; now: Date },
): Promise<QuestionnaireRow> {
  const { id, key, request } = options;
  const row = await requireRow(kv, organizationId, id, key);
  let decision: Decision | null = null;
  const by = { by: options.actor, at: options.now.toISOString() };
  if (request.state === "accepted") {
    const index = request.suggestion ?? 0;
    if (index >= row.suggestions.length) {
      throw validationFailed(
        row.suggestions.length === 0
          ? "This row has no suggestion to accept: edit it with your own answer"
          : `suggestion must be below ${row.suggestions.length}`,
      );
    }
    decision = { state: "accepted", answer: null, suggestion: index, ...by };
  } else if (request.state === "edited") {
    decision = { state: "edited", answer: request.answer, suggestion: null, ...by };
  } else if (request.state === "rejected") {
    decision = { state: "rejected", answer: null, suggestion: null, ...by };
  }
  await setDecisions(kv, organizationId, id, [{ key, decision }]);
  return presentRow(row, decision);
}

/** Accepts every pending row whose best suggestion matched by id; how many. */
export async function acceptIdMatches(
  kv: Deno.Kv,
  organizationId: string,
  options: { id: string; actor: Actor; now: Date },
): Promise<number> {
  const { id } = options;
  await requireQuestionnaire(kv, organizationId, id);
  const decisions = await listDecisions(kv, organizationId, id);
  const accepted: { key: string; decision: Decision }[] = [];
  for await (const row of scanRows(kv, organizationId, id)) {
    if (row.best?.by !== "id" || (decisions.get(row.key)?.state ?? "pending") !== "pending") {
      continue;
    }
    accepted.push({
      key: row.key,
      decision: {
        state: "accepted",
        answer: null,
        suggestion: 0,
        by: options.actor,
        at: options.now.toISOString(),
      },
    });
  }
  await setDecisions(kv, organizationId, id, accepted);
  return accepted.length;
}

/**
 * Accepts, at once, the rows a reviewer chose (`keys`: each with a best suggestion that is
 * pending or rejected) or every pending row whose best suggestion scores at least `minScore`;
 * the keys accepted, in the file's order. An edit or an earlier accept is never replaced.
 */
export async function acceptRows(
  kv: Deno.Kv,
  organizationId: string,
  options: { id: string; request: AcceptRowsRequest; actor: Actor; now: Date },
): Promise<string[]> {
  const { id, request } = options;
  await requireQuestionnaire(kv, organizationId, id);
  const decisions = await listDecisions(kv, organizationId, id);
  const chosen = "keys" in request ? new Set(request.keys) : null;
  const accepted: { key: string; decision: Decision }[] = [];
  for await (const row of scanRows(kv, organizationId, id)) {
    if (row.best === null) continue;
    const state = decisions.get(row.key)?.state ?? "pending";
    const take = chosen
      ? chosen.has(row.key) && (state === "pending" || state === "rejected")
      : state === "pending" && row.best.score >= (request as { minScore: number }).minScore;
    if (!take) continue;
    accepted.push({
      key: row.key,
      decision: {
        state: "accepted",
        answer: null,
        suggestion: 0,
        by: options.actor,
        at: options.now.toISOString(),
      },
    });
  }
  await setDecisions(kv, organizationId, id, accepted);
  return accepted.map((a) => a.key);
}

/** The text a decided row answers with (Markdown), or null when it answers nothing. */
export function answerOf(row: StoredRow, decision: Decision | null | undefined): string | null {
  if (decision?.state === "edited") return decision.answer;
  if (decision?.state === "accepted") {
    return row.suggestions[decision.suggestion ?? 0]?.text ?? null;
  }
  return null;
}

/** The questionnaire ref a row's question id becomes: CAIQ v4 when it is one, else "other". */
function learnedRef(questionId: string): QuestionnaireRef | null {
  for (const questionnaire of ["caiq-v4", "other"] as const) {
    const parsed = QuestionnaireRef.safeParse({ questionnaire, id: questionId });
    if (parsed.success) return parsed.data;
  }
  return null;
}

/**
 * The knowledge-base answer a decision updates rather than duplicates: the accepted one, or,
 * for an edit, the answer that already claims the row's question id (the best match by id).
 */
async function answerToUpdate(
  kv: Deno.Kv,
  organizationId: string,
  row: StoredRow,
  decision: Decision,
): Promise<TrustAnswer | null> {
  const chosen = decision.state === "accepted"
    ? row.suggestions[decision.suggestion ?? 0]
    : row.best?.by === "id"
    ? row.best
    : undefined;
  if (chosen?.source.kind !== "answer") return null;
  return await getAnswer(kv, organizationId, chosen.source.answerId);
}

/**
 * Saves an accepted or edited row's answer into the knowledge base: the answer it accepted (or,
 * for an edit, the one claiming its id) gains the row's question id and the edited text;
 * otherwise a new answer is made from the row with `category` and `visibility`.
 */
export async function saveRowAnswer(
  kv: Deno.Kv,
  organizationId: string,
  options: { id: string; key: string; request: SaveAnswerRequest; actor: Actor; now: Date },
): Promise<TrustAnswer> {
  const { id, key, request, actor, now } = options;
  const row = await requireRow(kv, organizationId, id, key);
  const decision = await getDecision(kv, organizationId, id, key);
  const text = answerOf(row, decision);
  if (!text) throw conflict("Accept or edit the row before saving its answer");
  if (text.length > MAX_ANSWER) {
    throw validationFailed(`The answer exceeds ${MAX_ANSWER} characters`);
  }
  const ref = row.questionId ? learnedRef(row.questionId) : null;
  const existing = await answerToUpdate(kv, organizationId, row, decision!);
  if (existing) {
    const learned = ref && !existing.questionnaireRefs.some((r) => r.id === ref.id);
    if (learned && existing.questionnaireRefs.length >= MAX_QUESTIONNAIRE_REFS) {
      throw conflict(
        `The answer already lists ${MAX_QUESTIONNAIRE_REFS} questionnaire ids: remove one to learn ${ref.id}`,
      );
    }
    const refs = learned ? [...existing.questionnaireRefs, ref] : existing.questionnaireRefs;
    return await changeAnswer(kv, organizationId, {
      id: existing.id,
      change: {
        questionnaireRefs: refs,
        ...(decision!.state === "edited" ? { answer: text } : {}),
      },
      actor,
      now,
    });
  }
  // One line without control characters, as the answers' own schema asks.
  // deno-lint-ignore no-control-regex -- exactly what a question may not hold
  const question = row.question.replace(/[\s\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ")
    .trim().slice(0, MAX_QUESTION);
  return await createAnswer(kv, organizationId, {
    request: {
      question,
      answer: text,
      category: request.category,
      visibility: request.visibility,
      questionnaireRefs: ref ? [ref] : [],
    },
    actor,
    now,
  });
}

/** The rows no suggestion answers: the knowledge base's gap list. */
export async function gapsOf(
  kv: Deno.Kv,
  organizationId: string,
  id: string,
): Promise<
  { key: string; sheet: string; row: number; questionId: string | null; question: string }[]
> {
  await requireQuestionnaire(kv, organizationId, id);
  const gaps = [];
  for await (const row of scanRows(kv, organizationId, id)) {
    if (row.best !== null) continue;
    gaps.push({
      key: row.key,
      sheet: row.sheet,
      row: row.row,
      questionId: row.questionId,
      question: row.question,
    });
  }
  return gaps;
}
