/**
 * The contract of questionnaire automation: a buyer's workbook or CSV read into question rows
 * (workbook.ts), matched against the organization's knowledge base without any model
 * (match.ts), and written back with its answer and evidence columns filled (workbook.ts).
 * Everything here is pure: bytes and records in, bytes and records out, the same output for the
 * same input, byte for byte.
 */
import type { ControlState } from "../domain/control.ts";

export type QuestionnaireFormat = "xlsx" | "csv";
export type CsvEncoding = "utf-8" | "utf-16le" | "utf-16be" | "windows-1252";

/** Where one sheet keeps its questions, and where the answers go. Columns are letters ("B"). */
export interface SheetColumns {
  /** The sheet's name (a CSV has one sheet, named "CSV"). */
  sheet: string;
  /** 1-based row of the headers; questions are the rows below it. */
  headerRow: number;
  question: string;
  /** The questionnaire's own question id (CAIQ "A&A-01.1", SIG "A.1", the buyer's), if any. */
  id: string | null;
  /** The column filled with the answer. */
  answer: string;
  /** The column filled with the evidence link; null: a new column after the last used one. */
  evidence: string | null;
  /**
   * A column of fixed choices (a Yes/No/NA drop-down such as CAIQ's "CSP CAIQ Answer"), filled
   * with the value the answer opens with when the list allows it; absent or null: none.
   */
  choice?: string | null;
}

export interface SheetHeader {
  column: string;
  text: string;
}

export interface SheetInfo {
  name: string;
  /** Rows and columns in use. */
  rows: number;
  columns: number;
  /** The header row's cells as found (the detected one, or row 1). */
  headers: SheetHeader[];
  /** The columns found by their headers; null when the sheet holds no question column. */
  detected: SheetColumns | null;
}

/** What a non-empty row of an answered sheet is taken for. */
export type RowKind = "question" | "heading" | "ignored";

/** Why a row is what it is (RULE_TEXT says it in words). */
export type RowRule =
  | "id"
  | "asks"
  | "prompt"
  | "sentence"
  | "no_id_column"
  | "heading"
  | "repeated_header"
  | "no_letters"
  | "no_question_cell"
  | "above_header"
  | "chosen";

export const RULE_TEXT: Record<RowRule, string> = {
  id: "It has a question id",
  asks: "It asks something (a question mark)",
  prompt: 'It opens with a request or a question word ("Describe", "Provide", "List", "Do")',
  sentence: "It reads as a sentence (five words or more, ending with a full stop)",
  no_id_column: "The sheet has no id column: every row with words in the question column",
  heading:
    "The sheet numbers its questions, this row has no number, asks nothing and is short: a category",
  repeated_header: "It repeats the header row",
  no_letters: "Its question cell holds no words (a number, a total)",
  no_question_cell: "Its question cell is empty",
  above_header: "It is above the header row (a title or instructions)",
  chosen: "A reviewer chose it",
};

/** A non-empty row that is not a question, and why. */
export interface OtherRow {
  key: string;
  sheet: string;
  row: number;
  /** The question cell's text, or the row's first text (at most 200 characters). */
  text: string;
  kind: "heading" | "ignored";
  rule: RowRule;
}

export interface QuestionRow {
  /** Stable within a file: `${sheetIndex}:${row}`. */
  key: string;
  sheet: string;
  /** 1-based row number in its sheet. */
  row: number;
  questionId: string | null;
  question: string;
  /** What the buyer's file already holds in the answer column. */
  existingAnswer: string | null;
  /** Why the row is a question. */
  rule: RowRule;
}

export interface ReadQuestionnaire {
  format: QuestionnaireFormat;
  /** A CSV's encoding as detected; null for a workbook. */
  encoding: CsvEncoding | null;
  sheets: SheetInfo[];
  /** The choice the rows were read with: the detected one unless the caller gave its own. */
  columns: SheetColumns[];
  rows: QuestionRow[];
  /** Every other non-empty row of the sheets read: headings and rows a rule ignores. */
  others: OtherRow[];
}

/** What a file may hold; anything over a limit is refused, never truncated silently. */
export interface QuestionnaireLimits {
  maxFileBytes: number;
  /** Bytes a workbook may expand to once unzipped, all parts together (zip bombs). */
  maxUncompressedBytes: number;
  maxSheets: number;
  /** Question rows in the whole file. */
  maxQuestions: number;
  /** Rows a sheet may have in use, questions or not. */
  maxRowsPerSheet: number;
  maxColumns: number;
  maxCellChars: number;
}

export type QuestionnaireFileErrorCode =
  | "too_large" // 413
  | "unsupported_type" // 415: not XLSX or CSV, macro-enabled, legacy .xls, encrypted
  | "malformed" // 400/422: broken zip, XML, CSV quoting, undecodable text
  | "over_limit" // 413/422: sheets, rows, columns, cells over the limits
  | "no_questions" // 422: no sheet has a question column (the caller may choose columns)
  | "invalid_columns"; // 422: the caller's columns name no sheet, or letters out of range

/** Why a file cannot be read; the HTTP layer maps the code to a 4xx with this message. */
export class QuestionnaireFileError extends Error {
  constructor(readonly code: QuestionnaireFileErrorCode, message: string) {
    super(message);
    this.name = "QuestionnaireFileError";
  }
}

/** One row to fill on export; rows without a fill get the "no answer" text. */
export interface RowFill {
  key: string;
  answer: string;
  evidence: string;
}

// ---------------------------------------------------------------------------------------------
// Matching

export interface KbAnswer {
  id: string;
  question: string;
  /** Markdown source. */
  answer: string;
  category: string;
  visibility: "public" | "restricted";
  questionnaireRefs: { questionnaire: string; id: string }[];
  citations: { kind: "control" | "document" | "certification"; id: string }[];
  updatedAt: string;
  /**
   * Other phrasings of the question this answer answered (learned from imported
   * questionnaires), with their question ids: matched as the answer's own question and ids.
   */
  aliases?: { text: string; ids: string[] }[];
}

/** A control as the latest published version of its project states it. */
export interface KbControl {
  projectSlug: string;
  projectName: string;
  /** The published version the state comes from. */
  version: number;
  controlId: string;
  title: string;
  state: ControlState;
  /** When the evidence behind the state was observed; null without evidence. */
  evidenceObservedAt: string | null;
  /** Public, version-pinned address of that version's trust.json. */
  url: string;
}

/** A framework criterion mapped to controls of a project. */
export interface KbCriterion {
  framework: string;
  criterionId: string;
  title: string;
  projectSlug: string;
  controlIds: string[];
}

export interface KbCertification {
  id: string;
  title: string;
  status: string;
  url: string | null;
}

export interface KbDocument {
  id: string;
  title: string;
  url: string | null;
}

export interface KnowledgeBase {
  answers: KbAnswer[];
  controls: KbControl[];
  criteria: KbCriterion[];
  certifications: KbCertification[];
  documents: KbDocument[];
}

export interface Question {
  key: string;
  id: string | null;
  text: string;
}

export type SuggestionCitation =
  | { kind: "answer"; id: string; question: string }
  | {
    kind: "control";
    projectSlug: string;
    controlId: string;
    title: string;
    state: ControlState;
    version: number;
    evidenceObservedAt: string | null;
    url: string;
  }
  | { kind: "criterion"; framework: string; criterionId: string; title: string }
  | { kind: "certification"; id: string; title: string; status: string; url: string | null }
  | { kind: "document"; id: string; title: string; url: string | null };

export interface Suggestion {
  /** Where the text comes from: a knowledge-base answer, or a control's published state. */
  source: { kind: "answer"; answerId: string } | {
    kind: "control";
    projectSlug: string;
    controlId: string;
  };
  /** What the row would be answered with. */
  text: string;
  /** 1 for an id match; a text match's relevance in [0, 1). */
  score: number;
  by: "id" | "text";
  /**
   * Why it matched: the questionnaire id, or the shared terms (sorted), and for the top text
   * suggestion when its lead over the next one raised its score, that lead (score ratio).
   */
  reason: { questionnaireId: string } | { terms: string[]; lead?: number };
  citations: SuggestionCitation[];
}

export interface MatchResult {
  key: string;
  /** Best first, at most a few; ties broken by source id so the order never varies. */
  suggestions: Suggestion[];
  /** The top suggestion when it reaches the threshold, else null (the row needs an answer). */
  best: Suggestion | null;
}
