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
  /** Cells holding a formula (`${row}:${column}`), shown or not: the buyer's, never written. */
  formulas: Set<string>;
  /**
   * The sheet's list validations (drop-downs): the cells they cover and the values they allow
   * (null when the list is not literal nor a range of the workbook, so nothing is known to fit).
   */
  lists: CellList[];
}

/** A rectangle of cells, 1-based and inclusive. */
export interface CellRange {
  top: number;
  left: number;
  bottom: number;
  right: number;
}

export interface CellList {
  ranges: CellRange[];
  values: string[] | null;
}

export function newGrid(name: string): Grid {
  return { name, cells: new Map(), rows: 0, columns: 0, formulas: new Set(), lists: [] };
}

/** Whether the buyer put something in the cell: a value or a formula. */
export function cellFilled(grid: Grid, row: number, column: number): boolean {
  return cellText(grid, row, column) !== "" || grid.formulas.has(`${row}:${column}`);
}

/**
 * What a list validation lets the cell hold: undefined when none covers it, null when one does
 * but its values are not known, else the values.
 */
export function listAt(grid: Grid, row: number, column: number): string[] | null | undefined {
  for (const list of grid.lists) {
    const covers = list.ranges.some((r) =>
      r.top <= row && row <= r.bottom && r.left <= column && column <= r.right
    );
    if (covers) return list.values;
  }
  return undefined;
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
