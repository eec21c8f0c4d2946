/**
 * A buyer's questionnaire from upload to review (docs/questionnaires.md): the file is read by
 * the workbook engine (refused files are a 413, 415 or 422 and nothing is stored), its rows are
 * matched against the knowledge base as bounded work in the request, and the file, the rows and
 * the record are stored. Reviewers accept, edit or reject rows; an accepted or edited answer can
 * be saved back into the knowledge base with the question's id learned.
 */
import type { Config } from "../config.ts";
import { MAX_ANSWER, MAX_QUESTION, QuestionnaireRef, type TrustAnswer } from "../domain/answers.ts";
import { AppError, badRequest, conflict, notFound, validationFailed } from "../domain/errors.ts";
import type {
  DecideRowRequest,
  Decision,
  Questionnaire,
  QuestionnaireRow,
  RowsQuery,
  SaveAnswerRequest,
  SheetColumns,
} from "../domain/questionnaires.ts";
import { DEFAULT_ROWS_PAGE } from "../domain/questionnaires.ts";
import type { Organization } from "../domain/workspace.ts";
import {
  type MatchResult,
  QuestionnaireFileError,
  type QuestionRow,
  type ReadQuestionnaire,
} from "../questionnaire/types.ts";
import { sha256Hex, sha256HexSync } from "../lib/hash.ts";
import { timeOrderedUuid } from "../lib/ids.ts";
import { serializedSize } from "../store/_chunks.ts";
import { getAnswer } from "../store/answers.ts";
import {
  checkQuestionnaireRoom,
  createQuestionnaire,
  getDecision,
  getRow,
  listDecisions,
  replaceRows,
  requireQuestionnaire,
  ROW_BYTES,
  scanRows,
  setDecisions,
  type StoredQuestionnaire,
  type StoredRow,
} from "../store/questionnaires.ts";
import { changeAnswer, createAnswer } from "./answers.ts";
import { loadEngines } from "./questionnaire_engines.ts";
import { assembleKnowledgeBase } from "./questionnaire_kb.ts";
import { coverageOf, flagsOf, statsOf } from "./questionnaire_review.ts";
import type { PublicReads } from "./public_read.ts";
import type { BlobStore } from "../blobs/mod.ts";

/** Characters of a question kept for display (its digest covers the whole text). */
const SHOWN_QUESTION = 4000;
const PENDING: Decision = { state: "pending", answer: null, suggestion: null, by: null, at: null };

export type QuestionnaireDeps = PublicReads & { config: Config; blobs: BlobStore };
type Actor = { userId: string; email: string | null };

/** The HTTP error for a refused file. */
export function fileError(error: QuestionnaireFileError): AppError {
  switch (error.code) {
    case "too_large":
      return new AppError("payload_too_large", error.message);
    case "over_limit":
      return new AppError("payload_too_large", error.message);
    case "unsupported_type":
      return new AppError("unsupported_media_type", error.message);
    default:
      return new AppError("unprocessable", error.message);
  }
}

/** Reads `bytes` with the engine; a refused file becomes its 4xx. */
async function readFile(bytes: Uint8Array, columns?: SheetColumns[]): Promise<ReadQuestionnaire> {
  const engines = await loadEngines();
  if (bytes.byteLength === 0) throw badRequest("The request body must be the file's bytes");
  if (bytes.byteLength > engines.limits.maxFileBytes) {
    throw new AppError(
      "payload_too_large",
      `A questionnaire file may be at most ${engines.limits.maxFileBytes} bytes`,
    );
  }
  try {
    return await engines.read(bytes, columns);
  } catch (error) {
    if (error instanceof QuestionnaireFileError) throw fileError(error);
    throw error;
  }
}

/** A row as stored: the question shortened for display, suggestions trimmed to fit. */
function storedRow(row: QuestionRow, match: MatchResult | undefined): StoredRow {
  const question = row.question.length > SHOWN_QUESTION
    ? `${row.question.slice(0, SHOWN_QUESTION - 1)}…`
    : row.question;
  const stored: StoredRow = {
    key: row.key,
    sheet: row.sheet,
    row: row.row,
    questionId: row.questionId,
    question,
    existingAnswer: row.existingAnswer?.slice(0, SHOWN_QUESTION) ?? null,
    suggestions: match?.suggestions ?? [],
    best: match?.best ?? null,
    questionSha256: sha256HexSync(row.question),
  };
  while (stored.suggestions.length > 1 && serializedSize(stored) > ROW_BYTES) {
    stored.suggestions = stored.suggestions.slice(0, -1);
  }
  return stored;
}

/** Reads the file, matches every row against the organization's knowledge base. */
async function readAndMatch(
  deps: QuestionnaireDeps,
  organization: Organization,
  options: { bytes: Uint8Array; columns?: SheetColumns[]; now: Date },
) {
  const read = await readFile(options.bytes, options.columns);
  const engines = await loadEngines();
  const { kb } = await assembleKnowledgeBase(deps, organization, options.now);
  const matches = engines.match(
    kb,
    read.rows.map((r) => ({ key: r.key, id: r.questionId, text: r.question })),
  );
  const byKey = new Map(matches.map((m) => [m.key, m]));
  const rows = read.rows.map((row) => storedRow(row, byKey.get(row.key)));
  return { read, rows, flags: flagsOf(rows, kb) };
}

/** Stores an uploaded questionnaire after reading and matching it; nothing on refusal. */
export async function uploadQuestionnaire(
  deps: QuestionnaireDeps,
  options: {
    organization: Organization;
    bytes: Uint8Array;
    name?: string;
    actor: Actor;
    now: Date;
  },
): Promise<Questionnaire> {
  const { organization, bytes, now } = options;
  const { read, rows, flags } = await readAndMatch(deps, organization, { bytes, now });
  await checkQuestionnaireRoom(deps.kv, organization.id);
  const sha256 = await sha256Hex(bytes);
  await deps.blobs.put("document", bytes);
  const at = now.toISOString();
  const record: StoredQuestionnaire = {
    id: timeOrderedUuid(now),
    organizationId: organization.id,
    name: options.name ?? `Questionnaire ${at.slice(0, 16).replace("T", " ")}`,
    format: read.format,
    encoding: read.encoding,
    size: bytes.byteLength,
    sha256,
    sheets: read.sheets,
    columns: read.columns,
    stats: statsOf(rows),
    flags,
    sharedDocumentId: null,
    createdAt: at,
    createdBy: options.actor,
    updatedAt: at,
  };
  await createQuestionnaire(deps.kv, record, rows);
  return present(record, new Map());
}

/** The stored file of a questionnaire; a missing blob is an internal error. */
export async function questionnaireBytes(
  blobs: BlobStore,
  record: StoredQuestionnaire,
): Promise<Uint8Array> {
  const bytes = await blobs.get(`document/${record.sha256}`);
  if (!bytes) throw new AppError("internal", "The questionnaire's file is missing");
  return bytes;
}

/** Renames a questionnaire, or re-reads its file with other columns and matches it again. */
export async function updateQuestionnaire(
  deps: QuestionnaireDeps,
  options: {
    organization: Organization;
    id: string;
    change: { name?: string; columns?: SheetColumns[] };
    now: Date;
  },
): Promise<Questionnaire> {
  const { organization, change, now } = options;
  const entry = await requireQuestionnaire(deps.kv, organization.id, options.id);
  let next: StoredQuestionnaire = {
    ...entry.value,
    ...(change.name ? { name: change.name } : {}),
    updatedAt: now.toISOString(),
  };
  if (change.columns) {
    const bytes = await questionnaireBytes(deps.blobs, entry.value);
    const { read, rows, flags } = await readAndMatch(deps, organization, {
      bytes,
      columns: change.columns,
      now,
    });
    next = { ...next, sheets: read.sheets, columns: read.columns, stats: statsOf(rows), flags };
    await replaceRows(deps.kv, entry, next, rows);
  } else {
    const ok = await deps.kv.atomic().check(entry).set(entry.key, next).commit();
    if (!ok.ok) throw conflict("The questionnaire changed meanwhile; please retry");
  }
  return present(next, await listDecisions(deps.kv, organization.id, options.id));
}

/** A stored questionnaire as the API shows it, with its coverage. */
export function present(
  record: StoredQuestionnaire,
  decisions: ReadonlyMap<string, Decision>,
): Questionnaire {
  const { organizationId: _org, stats, ...shown } = record;
  return { ...shown, coverage: coverageOf(stats, decisions) };
}

/** A questionnaire of the organization, with its coverage (404 when unknown). */
export async function readQuestionnaire(
  kv: Deno.Kv,
  organizationId: string,
  id: string,
): Promise<Questionnaire> {
  const entry = await requireQuestionnaire(kv, organizationId, id);
  return present(entry.value, await listDecisions(kv, organizationId, id));
}

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
    const refs = ref && !existing.questionnaireRefs.some((r) => r.id === ref.id)
      ? [...existing.questionnaireRefs, ref]
      : existing.questionnaireRefs;
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
  const question = row.question.replace(/\s+/g, " ").trim().slice(0, MAX_QUESTION);
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
