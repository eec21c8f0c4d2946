/**
 * A buyer's questionnaire from upload to review (docs/questionnaires.md): the file is read by
 * the workbook engine (refused files are a 413, 415 or 422 and nothing is stored), its rows are
 * matched against the knowledge base as bounded work in the request, and the file, the rows and
 * the record are stored; a change of columns reads and matches the file again. The review of its
 * rows is in questionnaire_rows.ts.
 */
import type { BlobStore } from "../blobs/mod.ts";
import type { Config } from "../config.ts";
import { AppError, badRequest, conflict, notFound, validationFailed } from "../domain/errors.ts";
import {
  type Decision,
  MAX_ROW_KINDS,
  MAX_SET_ASIDE_SHOWN,
  type Questionnaire,
  type RowKind,
  SET_ASIDE_TEXT,
  type SheetColumns,
} from "../domain/questionnaires.ts";
import type { Organization } from "../domain/workspace.ts";
import {
  type MatchResult,
  QuestionnaireFileError,
  type QuestionRow,
  type ReadQuestionnaire,
  RULE_TEXT,
} from "../questionnaire/types.ts";
import { sha256Hex, sha256HexSync } from "../lib/hash.ts";
import { timeOrderedUuid } from "../lib/ids.ts";
import { serializedSize } from "../store/_chunks.ts";
import {
  checkQuestionnaireBudget,
  checkQuestionnaireRoom,
  createQuestionnaire,
  listDecisions,
  packRows,
  replaceRows,
  requireQuestionnaire,
  ROW_BYTES,
  storedBytesOf,
  type StoredQuestionnaire,
  type StoredRow,
} from "../store/questionnaires.ts";
import { loadEngines } from "./questionnaire_engines.ts";
import { assembleKnowledgeBase } from "./questionnaire_kb.ts";
import { coverageOf, flagsOf, statsOf } from "./questionnaire_review.ts";
import type { PublicReads } from "./public_read.ts";

/** Characters of a question kept for display (its digest covers the whole text). */
const SHOWN_QUESTION = 4000;

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
async function readFile(
  bytes: Uint8Array,
  columns?: SheetColumns[],
  kinds?: Record<string, RowKind>,
): Promise<ReadQuestionnaire> {
  const engines = await loadEngines();
  if (bytes.byteLength === 0) throw badRequest("The request body must be the file's bytes");
  if (bytes.byteLength > engines.limits.maxFileBytes) {
    throw new AppError(
      "payload_too_large",
      `A questionnaire file may be at most ${engines.limits.maxFileBytes} bytes`,
    );
  }
  try {
    return await engines.read(bytes, columns, kinds);
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
    rule: row.rule,
    ruleText: RULE_TEXT[row.rule],
    suggestions: match?.suggestions ?? [],
    best: match?.best ?? null,
    questionSha256: sha256HexSync(row.question),
  };
  while (stored.suggestions.length > 1 && serializedSize(stored) > ROW_BYTES) {
    stored.suggestions = stored.suggestions.slice(0, -1);
  }
  return stored;
}

/** The rows a read set aside, as the questionnaire shows them (the first ones, shortened). */
function setAsideOf(read: ReadQuestionnaire): Questionnaire["setAside"] {
  const headings = read.others.filter((row) => row.kind === "heading").length;
  return {
    total: read.others.length,
    headings,
    ignored: read.others.length - headings,
    rows: read.others.slice(0, MAX_SET_ASIDE_SHOWN).map((row) => ({
      key: row.key,
      sheet: row.sheet,
      row: row.row,
      text: row.text.length > SET_ASIDE_TEXT
        ? `${row.text.slice(0, SET_ASIDE_TEXT - 1)}…`
        : row.text,
      kind: row.kind,
      rule: row.rule,
      ruleText: RULE_TEXT[row.rule],
    })),
  };
}

/** Reads the file, matches every row against the organization's knowledge base. */
async function readAndMatch(
  deps: QuestionnaireDeps,
  organization: Organization,
  options: {
    bytes: Uint8Array;
    columns?: SheetColumns[];
    kinds?: Record<string, RowKind>;
    now: Date;
  },
) {
  const read = await readFile(options.bytes, options.columns, options.kinds);
  const engines = await loadEngines();
  const { kb } = await assembleKnowledgeBase(deps, organization, options.now);
  const matches = engines.match(
    kb,
    read.rows.map((r) => ({ key: r.key, id: r.questionId, text: r.question })),
  );
  const byKey = new Map(matches.map((m) => [m.key, m]));
  const rows = read.rows.map((row) => storedRow(row, byKey.get(row.key)));
  return { read, rows, flags: flagsOf(rows, kb), setAside: setAsideOf(read) };
}

/**
 * Stores an uploaded questionnaire after reading and matching it; nothing on refusal, nor when
 * the organization's questionnaires would pass their storage budget (a 409 naming it and what
 * they use, checked before the file is stored).
 */
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
  const { read, rows, flags, setAside } = await readAndMatch(deps, organization, { bytes, now });
  await checkQuestionnaireRoom(deps.kv, organization.id);
  const sha256 = await sha256Hex(bytes);
  const at = now.toISOString();
  const id = timeOrderedUuid(now);
  const record: StoredQuestionnaire = {
    id,
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
    setAside,
    sharedDocumentId: null,
    createdAt: at,
    createdBy: options.actor,
    updatedAt: at,
  };
  const packed = packRows(organization.id, id, rows);
  const stored = { ...record, storedBytes: storedBytesOf(record, packed) };
  const budget = deps.config.questionnaireStorageBytes;
  await checkQuestionnaireBudget(deps.kv, organization.id, stored.storedBytes, budget);
  await deps.blobs.put("document", bytes);
  await createQuestionnaire(deps.kv, stored, packed, budget);
  return present(stored, new Map());
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
    const { read, rows, flags, setAside } = await readAndMatch(deps, organization, {
      bytes,
      columns: change.columns,
      kinds: entry.value.rowKinds,
      now,
    });
    next = {
      ...next,
      sheets: read.sheets,
      columns: read.columns,
      stats: statsOf(rows),
      flags,
      setAside,
    };
    next = await replaceRows(deps.kv, entry, next, rows, deps.config.questionnaireStorageBytes);
  } else {
    const ok = await deps.kv.atomic().check(entry).set(entry.key, next).commit();
    if (!ok.ok) throw conflict("The questionnaire changed meanwhile; please retry");
  }
  return present(next, await listDecisions(deps.kv, organization.id, options.id));
}

/**
 * Makes a row a question, a heading or a row to ignore, whatever the rules said: the file is
 * read again with the reviewer's choices and its rows matched again (decisions of rows that
 * stay questions are kept). A key that names no non-empty row of the sheets read is a 404.
 */
export async function classifyRow(
  deps: QuestionnaireDeps,
  options: { organization: Organization; id: string; key: string; kind: RowKind; now: Date },
): Promise<Questionnaire> {
  const { organization, key, now } = options;
  const entry = await requireQuestionnaire(deps.kv, organization.id, options.id);
  const kinds = { ...entry.value.rowKinds, [key]: options.kind };
  if (Object.keys(kinds).length > MAX_ROW_KINDS) {
    throw conflict(`At most ${MAX_ROW_KINDS} rows of a questionnaire are classified by hand`);
  }
  const bytes = await questionnaireBytes(deps.blobs, entry.value);
  const { read, rows, flags, setAside } = await readAndMatch(deps, organization, {
    bytes,
    columns: entry.value.columns,
    kinds,
    now,
  });
  if (!read.rows.some((r) => r.key === key) && !read.others.some((r) => r.key === key)) {
    throw notFound("No non-empty row with that key in the sheets read");
  }
  if (options.kind === "question" && !read.rows.some((r) => r.key === key)) {
    throw validationFailed("This row has no text in the question column: choose the columns");
  }
  const next: StoredQuestionnaire = {
    ...entry.value,
    sheets: read.sheets,
    columns: read.columns,
    stats: statsOf(rows),
    flags,
    setAside,
    rowKinds: kinds,
    updatedAt: now.toISOString(),
  };
  const saved = await replaceRows(
    deps.kv,
    entry,
    next,
    rows,
    deps.config.questionnaireStorageBytes,
  );
  return present(saved, await listDecisions(deps.kv, organization.id, options.id));
}

const NOTHING_SET_ASIDE: Questionnaire["setAside"] = {
  total: 0,
  headings: 0,
  ignored: 0,
  rows: [],
};

/** A stored questionnaire as the API shows it, with its coverage. */
export function present(
  record: StoredQuestionnaire,
  decisions: ReadonlyMap<string, Decision>,
): Questionnaire {
  const { organizationId: _org, stats, storedBytes: _bytes, rowKinds: _kinds, ...shown } = record;
  return {
    ...shown,
    setAside: record.setAside ?? NOTHING_SET_ASIDE,
    coverage: coverageOf(stats, decisions),
  };
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
