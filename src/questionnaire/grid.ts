/**
 * A sheet as text cells (what both the XLSX and the CSV readers produce), column letters, and
 * the limits every reader enforces while it fills a grid.
 */
import { QuestionnaireFileError, type QuestionnaireLimits } from "./types.ts";

export interface Grid {
  name: string;
  /** Row number → column number → text (1-based; empty cells are absent). */
  cells: Map<number, Map<number, string>>;
  /** The highest row and column holding a value. */
  rows: number;
  columns: number;
}

export function newGrid(name: string): Grid {
  return { name, cells: new Map(), rows: 0, columns: 0 };
}

/** Puts a cell's text into the grid, refusing what passes the limits. */
export function setCell(
  grid: Grid,
  row: number,
  column: number,
  text: string,
  limits: QuestionnaireLimits,
): void {
  if (text === "") return;
  if (text.length > limits.maxCellChars) {
    throw new QuestionnaireFileError(
      "over_limit",
      `Sheet "${grid.name}" has a cell (${columnLetters(column)}${row}) longer than ` +
        `${limits.maxCellChars} characters.`,
    );
  }
  if (column > limits.maxColumns) {
    throw new QuestionnaireFileError(
      "over_limit",
      `Sheet "${grid.name}" uses more than ${limits.maxColumns} columns.`,
    );
  }
  let cells = grid.cells.get(row);
  if (!cells) {
    if (grid.cells.size >= limits.maxRowsPerSheet) {
      throw new QuestionnaireFileError(
        "over_limit",
        `Sheet "${grid.name}" has more than ${limits.maxRowsPerSheet} rows in use.`,
      );
    }
    cells = new Map();
    grid.cells.set(row, cells);
  }
  cells.set(column, text);
  if (row > grid.rows) grid.rows = row;
  if (column > grid.columns) grid.columns = column;
}

export function cellText(grid: Grid, row: number, column: number): string {
  return grid.cells.get(row)?.get(column) ?? "";
}

/** "A" → 1, "AA" → 27; NaN for anything that is not 1–3 capital letters. */
export function columnNumber(letters: string): number {
  if (!/^[A-Z]{1,3}$/.test(letters)) return NaN;
  let n = 0;
  for (const c of letters) n = n * 26 + (c.charCodeAt(0) - 64);
  return n;
}

/** 1 → "A", 27 → "AA". */
export function columnLetters(column: number): string {
  let letters = "";
  for (let n = column; n > 0; n = Math.floor((n - 1) / 26)) {
    letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  }
  return letters;
}

/** "B12" → { row: 12, column: 2 }; null when it is not a plain cell reference. */
export function parseCellRef(ref: string): { row: number; column: number } | null {
  const match = /^\$?([A-Z]{1,3})\$?([0-9]{1,7})$/.exec(ref);
  if (!match) return null;
  return { column: columnNumber(match[1]), row: Number(match[2]) };
}
