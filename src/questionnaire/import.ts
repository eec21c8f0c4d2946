/**
 * A questionnaire the vendor already answered, read back as answers for the knowledge base
 * (docs/questionnaires.md, "Importing past questionnaires"): any file `readQuestionnaire`
 * reads, each question row with an answer in its answer column or a value in its choice column
 * (CAIQ's "CSP CAIQ Answer" Yes/No/NA) becomes one imported answer: its phrasing and its id,
 * the answer's text (the choice's value leads the prose when the prose does not already say
 * it), and a category (the heading above the row, else the sheet's name). Rows that ask the same
 * (the same id, or the same words) or that were answered with the same text (of some length)
 * are merged into one answer keeping every phrasing and id. Pure and deterministic.
 */
import { type ReadOptions, readQuestionnaire, stanceOf } from "./workbook.ts";
import type { ReadQuestionnaire, SheetColumns } from "./types.ts";

/** One phrasing a buyer asked, and the id their questionnaire gave it. */
export interface ImportedPhrasing {
  text: string;
  id: string | null;
  /** Where it was: the sheet's name and the row. */
  sheet: string;
  row: number;
}

export interface ImportedAnswer {
  /** The first phrasing: the answer's question. */
  question: string;
  answer: string;
  category: string;
  /** Every phrasing it answered, the first included, in the file's order. */
  phrasings: ImportedPhrasing[];
}

export interface ImportedQuestionnaire {
  read: ReadQuestionnaire;
  answers: ImportedAnswer[];
  /** Question rows without any answer in the file (left out). */
  unanswered: number;
}

/** Answers at least this long merge rows answered with the same text ("Yes" alone does not). */
const SAME_TEXT_MIN = 20;
const MAX_CATEGORY = 80;
const BARE_CHOICE = /^(yes|no|n\/?a|not applicable|partial(ly)?)\.?$/i;

/** Words of a text for comparison: case, accents, punctuation and spacing ignored. */
export function comparable(text: string): string {
  return text.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ").trim();
}

/** One line, spaces collapsed. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** "Yes", "No" or "N/A" leading the prose, unless it already opens with that stance. */
function answerText(choice: string, prose: string): string {
  if (!choice) return prose;
  if (!prose) return choice;
  const stance = stanceOf(choice);
  if (stance !== null && stanceOf(prose) === stance) return prose;
  return `${choice}. ${prose}`;
}

/**
 * The answers of an answered questionnaire. The file is read as `readQuestionnaire` reads it
 * (its columns detected, or the caller's); throws its QuestionnaireFileError when refused.
 */
export async function importAnswered(
  bytes: Uint8Array,
  options: ReadOptions = {},
): Promise<ImportedQuestionnaire> {
  const read = await readQuestionnaire(bytes, options);
  const [choices, notes] = await Promise.all([
    columnTexts(bytes, read, options, (c) => c.choice ?? null),
    columnTexts(bytes, read, options, (c) => c.evidence),
  ]);
  return { read, ...answersOf(read, choices, notes) };
}

/**
 * The text each question row holds in another column (key → text), by reading the same file
 * again with that column as the answer column: the engine's own reading, rows and all.
 */
async function columnTexts(
  bytes: Uint8Array,
  read: ReadQuestionnaire,
  options: ReadOptions,
  pick: (columns: SheetColumns) => string | null,
): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  const chosen = read.columns.filter((c) => pick(c) !== null);
  if (chosen.length === 0) return texts;
  const again = await readQuestionnaire(bytes, {
    ...options,
    columns: chosen.map((c) => ({
      ...c,
      answer: pick(c)!,
      evidence: c.evidence === pick(c) ? null : c.evidence,
      choice: null,
    })),
  });
  for (const row of again.rows) if (row.existingAnswer) texts.set(row.key, row.existingAnswer);
  return texts;
}

/** The imported answers of a read file, given its choice cells. */
export function answersOf(
  read: ReadQuestionnaire,
  choices: ReadonlyMap<string, string>,
  notes: ReadonlyMap<string, string> = new Map(),
): { answers: ImportedAnswer[]; unanswered: number } {
  const headings = new Map<string, { row: number; text: string }[]>();
  for (const other of read.others) {
    if (other.kind !== "heading") continue;
    headings.set(other.sheet, [...(headings.get(other.sheet) ?? []), other]);
  }
  const answers: ImportedAnswer[] = [];
  const byId = new Map<string, ImportedAnswer>();
  const byQuestion = new Map<string, ImportedAnswer>();
  const byAnswer = new Map<string, ImportedAnswer>();
  let unanswered = 0;
  for (const row of read.rows) {
    let prose = (row.existingAnswer ?? "").trim();
    const choice = (choices.get(row.key) ?? "").trim();
    // A bare Yes/No/N/A in the answer column: the explanation beside it belongs to the answer.
    const note = (notes.get(row.key) ?? "").trim();
    if (note && BARE_CHOICE.test(prose)) prose = `${prose}. ${note}`;
    const text = answerText(choice, prose);
    if (!text) {
      unanswered++;
      continue;
    }
    const question = oneLine(row.question);
    const id = row.questionId ? oneLine(row.questionId) : null;
    const heading = (headings.get(row.sheet) ?? []).filter((h) => h.row < row.row).at(-1);
    const category = oneLine(heading?.text ?? row.sheet).slice(0, MAX_CATEGORY) || "Imported";
    const phrasing: ImportedPhrasing = { text: question, id, sheet: row.sheet, row: row.row };
    const idKey = id?.toLowerCase();
    const questionKey = comparable(question);
    const answerKey = comparable(text).length >= SAME_TEXT_MIN ? comparable(text) : null;
    const same = (idKey ? byId.get(idKey) : undefined) ?? byQuestion.get(questionKey) ??
      (answerKey ? byAnswer.get(answerKey) : undefined);
    const target = same ?? { question, answer: text, category, phrasings: [] };
    if (!same) answers.push(target);
    target.phrasings.push(phrasing);
    if (idKey) byId.set(idKey, target);
    byQuestion.set(questionKey, target);
    if (answerKey) byAnswer.set(answerKey, target);
  }
  return { answers, unanswered };
}
