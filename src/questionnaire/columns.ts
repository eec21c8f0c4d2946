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
  QuestionnaireFileError,
  type QuestionnaireLimits,
  type QuestionRow,
  type SheetColumns,
  type SheetHeader,
  type SheetInfo,
} from "./types.ts";

/** Rows searched for the header row. */
export const HEADER_SEARCH_ROWS = 20;

type Role = "id" | "question" | "answer" | "evidence";

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

/** The columns a sheet's headers name, or null when no row of the first ones names a question. */
export function detectColumns(grid: Grid): SheetColumns | null {
  let best: Candidate | null = null;
  let bestScore = 0;
  for (let row = 1; row <= Math.min(HEADER_SEARCH_ROWS, grid.rows); row++) {
    const candidate = candidateAt(grid, row);
    if (!candidate.found.question) continue;
    const { id, answer, evidence } = candidate.found;
    const score = 1 + (id ? 1 : 0) + (answer ? 1 : 0) + (evidence ? 0.5 : 0);
    if (score > bestScore) {
      best = candidate;
      bestScore = score;
    }
  }
  if (!best) return null;
  const { question, id, answer, evidence } = best.found;
  const answerColumn = answer?.column ?? grid.columns + 1;
  return {
    sheet: grid.name,
    headerRow: best.headerRow,
    question: columnLetters(question!.column),
    id: id ? columnLetters(id.column) : null,
    answer: columnLetters(answerColumn),
    evidence: evidence && evidence.column !== answerColumn ? columnLetters(evidence.column) : null,
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
    ];
    for (const [role, letters] of named) {
      if (letters === null && (role === "id" || role === "evidence")) continue;
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
  }
}

/** The question rows of a sheet below its header row; category and repeated header rows skipped. */
export function questionRows(grid: Grid, sheetIndex: number, choice: SheetColumns): QuestionRow[] {
  const question = columnNumber(choice.question);
  const id = choice.id ? columnNumber(choice.id) : null;
  const answer = columnNumber(choice.answer);
  const header = normalize(cellText(grid, choice.headerRow, question));
  const rows: QuestionRow[] = [];
  const numbers = [...grid.cells.keys()].filter((row) => row > choice.headerRow)
    .sort((a, b) => a - b);
  for (const row of numbers) {
    const text = cellText(grid, row, question);
    // No text, the header repeated, or no letter at all (a total, a number): not a question.
    if (!/\p{L}/u.test(text) || normalize(text) === header) continue;
    const questionId = id ? cellText(grid, row, id) || null : null;
    // A category row: the sheet numbers its questions, this one has no number and asks nothing.
    if (id && !questionId && !text.includes("?")) continue;
    rows.push({
      key: `${sheetIndex}:${row}`,
      sheet: grid.name,
      row,
      questionId,
      question: text,
      existingAnswer: cellText(grid, row, answer) || null,
    });
  }
  return rows;
}
