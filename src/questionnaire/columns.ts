/**
 * Where a sheet keeps its questions: the header row and the question, id, answer and evidence
 * columns, found by their header texts in the first rows of each sheet, and the question rows
 * read with a choice (detected, or the caller's own, validated).
 *
 * Which column gets our answer: our answers are prose with a link to their evidence, so they go
 * where a sheet expects prose. In the CAIQ v4 layout that is "CSP Implementation Description":
 * "CSP CAIQ Answer" is a Yes/No/NA list the buyer scores by, and "CSC Responsibilities" states the
 * customer's own duties; the evidence link gets a new column after the last one used. A SIG-like
 * sheet answers in "Response" with its link in "Additional Information"; a buyer's own sheet in
 * "Answer" (or "Response") with "Evidence", "Comments" or "Notes" for the link, or a new column.
 */
import { cellText, columnLetters, columnNumber, type Grid } from "./grid.ts";
import {
  type OtherRow,
  QuestionnaireFileError,
  type QuestionnaireLimits,
  type QuestionRow,
  type RowKind,
  type RowRule,
  type SheetColumns,
  type SheetHeader,
  type SheetInfo,
} from "./types.ts";

/** Rows searched for the header row. */
export const HEADER_SEARCH_ROWS = 20;

type Role = "id" | "question" | "answer" | "evidence" | "choice";

/** Header patterns by role, best rank first; a header takes the first role that matches. */
const PATTERNS: [Role, RegExp, number][] = [
  ["id", /^(question|ques|q)\.? ?(id|num|number|no\.?|nr\.?|#|ref\.?|reference)$/, 0],
  ["id", /^(#|no\.?|nr\.?|id|ref\.?|ref #|reference|item|item (no\.?|#|number)|number)$/, 1],
  [
    "question",
    /^(questions?|question text|question ?\/ ?request|request|requirement|control question|query|assessment question|question description)$/,
    0,
  ],
  ["question", /\bquestions?\b/, 1],
  // A column of fixed choices: CAIQ's "CSP CAIQ Answer" (Yes/No/NA), a "Yes/No" column.
  ["choice", /\bcaiq answer\b|^(yes ?\/ ?no|y ?\/ ?n)\b/, 0],
  ["answer", /\bimplementation description\b/, 0],
  [
    "answer",
    /^((vendor|supplier|your|csp|provider) )?(answers?|responses?|reply)( ?\/ ?(answers?|responses?))?$/,
    1,
  ],
  ["answer", /\b(answers?|responses?)\b/, 2],
  ["evidence", /\bevidence\b/, 0],
  [
    "evidence",
    /^(additional (information|info|comments?)|comments?|notes?|remarks|references|supporting (documentation|information)|explanation|justification|links?)$/,
    1,
  ],
];

function normalize(text: string): string {
  return text.toLowerCase().replace(/[\s_]+/g, " ").trim();
}

function roleOf(text: string): { role: Role; rank: number } | null {
  const header = normalize(text);
  if (!header || header.length > 80) return null;
  // A sentence is not a header: "Answer each question in the Response column." on a cover sheet.
  const words = header.split(" ").length;
  if ((/[.:]$/.test(header) && words >= 3) || words > 8) return null;
  for (const [role, pattern, rank] of PATTERNS) if (pattern.test(header)) return { role, rank };
  return null;
}

interface Candidate {
  headerRow: number;
  found: Partial<Record<Role, { column: number; rank: number }>>;
}

function candidateAt(grid: Grid, row: number): Candidate {
  const found: Candidate["found"] = {};
  const cells = [...(grid.cells.get(row) ?? [])].sort(([a], [b]) => a - b);
  for (const [column, text] of cells) {
    const match = roleOf(text);
    if (!match) continue;
    const known = found[match.role];
    if (!known || match.rank < known.rank) found[match.role] = { column, rank: match.rank };
  }
  return { headerRow: row, found };
}

/** Sheets that tell how to answer rather than ask: read only when their headers say more. */
const GUIDE_SHEET =
  /instruction|read ?me|guid(e|ance)|introduction|overview|cover|glossary|definition|scoring|how to|legend|change ?log|version/i;

/**
 * The columns a sheet's headers name, or null when no row of the first ones names a question
 * (nor, on a sheet named like instructions or a glossary, a question with an id or an answer).
 */
export function detectColumns(grid: Grid): SheetColumns | null {
  let best: Candidate | null = null;
  let bestScore = 0;
  const guide = GUIDE_SHEET.test(grid.name);
  for (let row = 1; row <= Math.min(HEADER_SEARCH_ROWS, grid.rows); row++) {
    const candidate = candidateAt(grid, row);
    if (!candidate.found.question) continue;
    const { id, answer, evidence } = candidate.found;
    if (guide && !(id && answer)) continue;
    const score = 1 + (id ? 1 : 0) + (answer ? 1 : 0) + (evidence ? 0.5 : 0);
    if (score > bestScore) {
      best = candidate;
      bestScore = score;
    }
  }
  if (!best) return null;
  const { question, id, answer, evidence, choice } = best.found;
  const answerColumn = answer?.column ?? grid.columns + 1;
  return {
    sheet: grid.name,
    headerRow: best.headerRow,
    question: columnLetters(question!.column),
    id: id ? columnLetters(id.column) : null,
    answer: columnLetters(answerColumn),
    evidence: evidence && evidence.column !== answerColumn ? columnLetters(evidence.column) : null,
    ...(choice ? { choice: columnLetters(choice.column) } : {}),
  };
}

/** The header row's cells, in column order. */
export function headersOf(grid: Grid, row: number): SheetHeader[] {
  return [...(grid.cells.get(row) ?? [])].sort(([a], [b]) => a - b)
    .map(([column, text]) => ({ column: columnLetters(column), text }));
}

export function sheetInfo(grid: Grid, detected: SheetColumns | null): SheetInfo {
  return {
    name: grid.name,
    rows: grid.rows,
    columns: grid.columns,
    headers: headersOf(grid, detected?.headerRow ?? 1),
    detected,
  };
}

function invalid(message: string): QuestionnaireFileError {
  return new QuestionnaireFileError("invalid_columns", message);
}

/** A caller's choice of columns, checked against the sheets and the limits. */
export function validateColumns(
  columns: SheetColumns[],
  grids: Grid[],
  limits: QuestionnaireLimits,
): void {
  const seen = new Set<string>();
  for (const choice of columns) {
    if (!grids.some((grid) => grid.name === choice.sheet)) {
      throw invalid(`There is no sheet named "${choice.sheet}".`);
    }
    if (seen.has(choice.sheet)) throw invalid(`Sheet "${choice.sheet}" is chosen twice.`);
    seen.add(choice.sheet);
    if (
      !Number.isInteger(choice.headerRow) || choice.headerRow < 1 ||
      choice.headerRow > limits.maxRowsPerSheet
    ) {
      throw invalid(`The header row of sheet "${choice.sheet}" is not a row number.`);
    }
    const named: [string, string | null][] = [
      ["question", choice.question],
      ["id", choice.id],
      ["answer", choice.answer],
      ["evidence", choice.evidence],
      ["choice", choice.choice ?? null],
    ];
    for (const [role, letters] of named) {
      if (letters === null && role !== "question" && role !== "answer") continue;
      const column = columnNumber(letters ?? "");
      if (!(column >= 1 && column <= limits.maxColumns)) {
        throw invalid(
          `The ${role} column of sheet "${choice.sheet}" must be letters from A to ` +
            `${columnLetters(limits.maxColumns)}.`,
        );
      }
    }
    if (choice.answer === choice.question || choice.answer === choice.id) {
      throw invalid(`The answer column of sheet "${choice.sheet}" holds its questions or ids.`);
    }
    if (
      choice.evidence !== null &&
      [choice.question, choice.id, choice.answer].includes(choice.evidence)
    ) {
      throw invalid(`The evidence column of sheet "${choice.sheet}" is taken by another role.`);
    }
    if (
      choice.choice && [choice.question, choice.id, choice.answer, choice.evidence].includes(
        choice.choice,
      )
    ) {
      throw invalid(`The choice column of sheet "${choice.sheet}" is taken by another role.`);
    }
  }
}

/** Words a request or a question opens with: such a row is a question without "?" or id. */
const PROMPT =
  /^(please\s+)?(describe|provide|list|explain|specify|state|indicate|confirm|identify|outline|attach|detail|summari[sz]e|define|document|demonstrate|clarify|enumerate|submit|supply|share|upload|give|name|is|are|do|does|did|has|have|had|can|could|will|would|should|shall|may|must|how|what|which|who|whom|whose|when|where|why|whether)\b/i;

/** Request words that are also nouns of a category ("Document Management", "State Laws"). */
const NOUN_LIKE =
  /^(document|name|state|list|detail|share|upload|outline|attach|supply|submit|give|define)\b/i;
const DETERMINER =
  /^\S+\s+(your|the|all|any|each|every|a|an|how|what|which|who|whom|where|when|why|whether|if|our|its|their|them|those|these|this|that)\b/i;

/** A row opening with such a word reads as a heading unless it goes on like a request. */
function nounHeading(words: string): boolean {
  if (!NOUN_LIKE.test(words)) return false;
  return !DETERMINER.test(words) && !/[.!:]\s*$/.test(words) &&
    words.trim().split(/\s+/).length < 5;
}

/**
 * Why a row whose question cell has words is a question, or null for a heading: a row with an
 * id, one that asks ("?"), one that opens with a request or a question word ("Describe…",
 * "Provide…", "Do you…"), one that reads as a sentence; in a sheet without an id column, every
 * one. What is left (no id in a numbered sheet, short, asking nothing) is a category heading.
 */
function questionRule(
  text: string,
  hasIdColumn: boolean,
  questionId: string | null,
): RowRule | null {
  if (questionId) return "id";
  if (!hasIdColumn) return "no_id_column";
  if (text.includes("?")) return "asks";
  const words = text.replace(/^[\s\p{P}\d]+/u, "");
  if (PROMPT.test(words) && !nounHeading(words)) return "prompt";
  if (/[.!]\s*$/.test(text) && text.trim().split(/\s+/).length >= 5) return "sentence";
  return null;
}

/** Characters of a non-question row's text kept for the review. */
const OTHER_TEXT = 200;

/**
 * Every non-empty row of a sheet, classified: question rows below its header row, and the rest
 * (headings, repeated headers, rows without words or without a question cell, rows above the
 * header) with the rule that set them aside. `kinds` (row key → kind) is a reviewer's choice,
 * which wins over the rules for a row with text in its question cell.
 */
export function classifyRows(
  grid: Grid,
  sheetIndex: number,
  choice: SheetColumns,
  kinds: ReadonlyMap<string, RowKind> = new Map(),
): { rows: QuestionRow[]; others: OtherRow[] } {
  const question = columnNumber(choice.question);
  const id = choice.id ? columnNumber(choice.id) : null;
  const answer = columnNumber(choice.answer);
  const header = normalize(cellText(grid, choice.headerRow, question));
  const rows: QuestionRow[] = [];
  const others: OtherRow[] = [];
  const numbers = [...grid.cells.keys()].filter((row) => row !== choice.headerRow)
    .sort((a, b) => a - b);
  for (const row of numbers) {
    const key = `${sheetIndex}:${row}`;
    const text = cellText(grid, row, question);
    const other = (kind: OtherRow["kind"], rule: RowRule) => {
      const first = [...(grid.cells.get(row) ?? [])].sort(([a], [b]) => a - b)[0]?.[1] ?? "";
      others.push({
        key,
        sheet: grid.name,
        row,
        text: (text || first).slice(0, OTHER_TEXT),
        kind,
        rule,
      });
    };
    if (row < choice.headerRow) {
      other("ignored", "above_header");
      continue;
    }
    const questionId = id ? cellText(grid, row, id) || null : null;
    const chosen = text ? kinds.get(key) : undefined;
    let rule: RowRule | null;
    if (chosen) {
      if (chosen !== "question") {
        other(chosen, "chosen");
        continue;
      }
      rule = "chosen";
    } else if (!text) {
      other("ignored", "no_question_cell");
      continue;
    } else if (normalize(text) === header) {
      other("ignored", "repeated_header");
      continue;
    } else if (!/\p{L}/u.test(text)) {
      other("ignored", "no_letters");
      continue;
    } else {
      rule = questionRule(text, id !== null, questionId);
      if (!rule) {
        other("heading", "heading");
        continue;
      }
    }
    rows.push({
      key,
      sheet: grid.name,
      row,
      questionId,
      question: text,
      existingAnswer: cellText(grid, row, answer) || null,
      rule,
    });
  }
  return { rows, others };
}
