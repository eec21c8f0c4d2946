/**
 * A buyer's questionnaire file read into question rows, and written back filled.
 *
 * `readQuestionnaire` takes the bytes (the type is read from them: a ZIP is an XLSX workbook,
 * text is CSV, anything else is refused), reads every sheet (xlsx.ts, csv.ts), finds each
 * sheet's columns by their headers (columns.ts) unless the caller names them, and lists the
 * question rows. `fillQuestionnaire` returns the buyer's own file with only the answer and
 * evidence cells changed (see xlsx.ts and csv.ts for what else a workbook loses: live formulas,
 * external links, the calculation chain). Both are async only because fflate, the inflater, is
 * loaded on first use (it stays out of the service's start); the work itself is synchronous,
 * bounded by QUESTIONNAIRE_LIMITS, and the same input gives the same output, byte for byte.
 */
import { inertCellText } from "../lib/spreadsheet_text.ts";
import { classifyRows, detectColumns, sheetInfo, validateColumns } from "./columns.ts";
import { csvGrid, parseCsv } from "./csv.ts";
import { writeCsv } from "./csv.ts";
import { cellFilled, columnLetters, columnNumber, type Grid, listAt } from "./grid.ts";
import {
  type OtherRow,
  QuestionnaireFileError,
  type QuestionnaireLimits,
  type QuestionRow,
  type ReadQuestionnaire,
  type RowFill,
  type RowKind,
  type SheetColumns,
} from "./types.ts";
import {
  openWorkbook,
  patchWorkbook,
  readWorkbookGrids,
  type SheetLook,
  type SheetWrites,
} from "./xlsx.ts";

/**
 * What a questionnaire file may hold. 10 MiB is far above a real questionnaire (CAIQ v4.0.3 is
 * ~0.5 MB); once unzipped a workbook may take 64 MiB, every part counted; 5,000 questions
 * (the issue asks for at least 2,000), 50 sheets, 20,000 rows in use per sheet, 200 columns, and
 * Excel's own 32,767 characters per cell.
 */
export const QUESTIONNAIRE_LIMITS: QuestionnaireLimits = {
  maxFileBytes: 10 * 1024 * 1024,
  maxUncompressedBytes: 64 * 1024 * 1024,
  maxSheets: 50,
  maxQuestions: 5_000,
  maxRowsPerSheet: 20_000,
  maxColumns: 200,
  maxCellChars: 32_767,
};

/** What rows without a fill say in their answer cell. */
export const NO_ANSWER = "No answer";
/** The header written above an evidence (or answer) column the sheet did not have. */
export const EVIDENCE_HEADER = "Evidence";
export const ANSWER_HEADER = "Answer";

export interface ReadOptions {
  /** The caller's own choice of columns (replaces detection; sheets not named are not read). */
  columns?: SheetColumns[];
  /** A reviewer's choice of what rows are (row key → kind), over the rules. */
  kinds?: ReadonlyMap<string, RowKind>;
  limits?: QuestionnaireLimits;
}

export interface FillOptions {
  /** Written in the answer cell of every question row without a fill. */
  noAnswer?: string;
  /**
   * Filled with the keys of the rows whose answer was written (its prose or its choice): a row
   * whose cells the buyer had filled is not, and a signed manifest must not claim it.
   */
  written?: Set<string>;
  limits?: QuestionnaireLimits;
}

type Kind = "xlsx" | "csv";

function startsWith(bytes: Uint8Array, signature: number[]): boolean {
  return signature.every((byte, i) => bytes[i] === byte);
}

/** The file's kind from its first bytes; refused types named in the message. */
function kindOf(bytes: Uint8Array): Kind {
  if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04]) || startsWith(bytes, [0x50, 0x4b, 0x05, 0x06])) {
    return "xlsx";
  }
  const refused: [number[], string][] = [
    [[0xd0, 0xcf, 0x11, 0xe0], "Legacy .xls and password-protected workbooks are not read"],
    [[0x25, 0x50, 0x44, 0x46], "PDF files are not read"],
    [[0x89, 0x50, 0x4e, 0x47], "Images are not read"],
    [[0xff, 0xd8, 0xff], "Images are not read"],
    [[0x47, 0x49, 0x46, 0x38], "Images are not read"],
    [[0x1f, 0x8b], "Compressed files are not read"],
    [[0x7b, 0x5c, 0x72, 0x74, 0x66], "RTF files are not read"],
  ];
  for (const [signature, message] of refused) {
    if (startsWith(bytes, signature)) {
      throw new QuestionnaireFileError(
        "unsupported_type",
        `${message}: upload the questionnaire as .xlsx or .csv.`,
      );
    }
  }
  return "csv";
}

function checkSize(bytes: Uint8Array, limits: QuestionnaireLimits): void {
  if (bytes.length > limits.maxFileBytes) {
    throw new QuestionnaireFileError(
      "too_large",
      `The file is larger than ${limits.maxFileBytes} bytes.`,
    );
  }
  if (bytes.length === 0) throw new QuestionnaireFileError("malformed", "The file is empty.");
}

function loadFflate(): Promise<typeof import("fflate")> {
  return import("fflate");
}

/**
 * The questionnaire in the bytes: its format, sheets, the columns used and the question rows.
 * Async (fflate loads on first use); throws QuestionnaireFileError for anything it refuses.
 */
export async function readQuestionnaire(
  bytes: Uint8Array,
  options: ReadOptions = {},
): Promise<ReadQuestionnaire> {
  const limits = options.limits ?? QUESTIONNAIRE_LIMITS;
  checkSize(bytes, limits);
  const kind = kindOf(bytes);
  let grids: Grid[];
  let encoding: ReadQuestionnaire["encoding"] = null;
  if (kind === "xlsx") {
    const open = openWorkbook(bytes, limits, await loadFflate());
    grids = readWorkbookGrids(open, limits);
  } else {
    const csv = parseCsv(bytes, limits);
    encoding = csv.encoding;
    grids = [csvGrid(csv, limits)];
  }
  return questionnaireOf(kind, encoding, grids, options.columns, limits, options.kinds);
}

function questionnaireOf(
  format: Kind,
  encoding: ReadQuestionnaire["encoding"],
  grids: Grid[],
  chosen: SheetColumns[] | undefined,
  limits: QuestionnaireLimits,
  kinds?: ReadonlyMap<string, RowKind>,
): ReadQuestionnaire {
  const detected = grids.map((grid) => detectColumns(grid));
  if (chosen) validateColumns(chosen, grids, limits);
  const columns = chosen ?? detected.filter((choice) => choice !== null);
  const sheets = grids.map((grid, index) => {
    const choice = columns.find((c) => c.sheet === grid.name) ?? null;
    const info = sheetInfo(grid, detected[index]);
    // The headers shown are those of the row the rows are read with.
    return choice ? { ...info, headers: sheetInfo(grid, choice).headers } : info;
  });
  const rows: QuestionRow[] = [];
  const others: OtherRow[] = [];
  for (const choice of columns) {
    const index = grids.findIndex((grid) => grid.name === choice.sheet);
    const classified = classifyRows(grids[index], index, choice, kinds);
    rows.push(...classified.rows);
    others.push(...classified.others);
    if (rows.length > limits.maxQuestions) {
      throw new QuestionnaireFileError(
        "over_limit",
        `The file has more than ${limits.maxQuestions} questions.`,
      );
    }
  }
  if (rows.length === 0) {
    throw new QuestionnaireFileError(
      "no_questions",
      chosen
        ? "The chosen columns hold no question."
        : 'No sheet has a column headed as questions (such as "Question"); choose the columns.',
    );
  }
  return { format, encoding, sheets, columns, rows, others };
}

/** What an answer says to a Yes/No/NA question, from the word it opens with. */
export type Stance = "yes" | "no" | "na";

/** The stance an answer opens with ("Yes.", "**No**, …", "N/A: …"), or null. */
export function stanceOf(answer: string): Stance | null {
  const text = answer.replace(/^[\s*_#>`"'(\[-]+/, "");
  if (/^(n\/a|n\.a\.|na|not applicable)\b/i.test(text)) return "na";
  const word = /^[A-Za-z]+/.exec(text)?.[0].toLowerCase();
  return word === "yes" ? "yes" : word === "no" ? "no" : null;
}

const STANCE_WORDS: Record<Stance, string[]> = {
  yes: ["yes", "y", "true"],
  no: ["no", "n", "false"],
  na: ["na", "notapplicable", "nonapplicable"],
};

/** What a header-named choice column (no drop-down) allows: CAIQ v4's own values. */
const DEFAULT_CHOICES = ["Yes", "No", "NA"];

/** The allowed value that says `stance`, or null when the list has none. */
export function choiceFor(stance: Stance | null, allowed: readonly string[]): string | null {
  if (!stance) return null;
  const words = STANCE_WORDS[stance];
  return allowed.find((value) => words.includes(value.toLowerCase().replace(/[^a-z]/g, ""))) ??
    null;
}

/** Headers of a column meant for explanations, where prose goes beside a drop-down. */
const DESCRIPTIVE =
  /^((csp |vendor |supplier )?(implementation )?(description|details|explanation|justification|comments?|notes?|remarks)( \(.*\))?|additional (information|info|comments?|details)|response (details|explanation))$/i;

/** Columns of a sheet, where each kind of write goes (numbers; null: nowhere). */
interface Targets {
  prose: number;
  evidence: number;
  choice: number | null;
  /** Columns the sheet did not have, to head: column → header. */
  added: Map<number, string>;
}

/**
 * Where a sheet's writes go, respecting the buyer's file: a column under a drop-down takes
 * only a value its list allows (so a constrained answer column becomes the choice column and
 * the prose goes to a free descriptive column or a new one); the evidence goes to the chosen
 * evidence column only when no question row of it holds the buyer's text or formula and no
 * list constrains it, else to a new column.
 */
function targetsOf(grid: Grid, choice: SheetColumns, rows: QuestionRow[], used: number): Targets {
  const answer = columnNumber(choice.answer);
  const evidence = choice.evidence ? columnNumber(choice.evidence) : null;
  let choiceColumn = choice.choice ? columnNumber(choice.choice) : null;
  const constrained = (column: number) =>
    rows.some((r) => listAt(grid, r.row, column) !== undefined);
  const free = (column: number) =>
    !constrained(column) && !rows.some((r) => cellFilled(grid, r.row, column));
  const added = new Map<number, string>();
  let next = Math.max(used, answer) + 1;
  const add = (header: string) => {
    const column = next++;
    added.set(column, header);
    return column;
  };
  if (choiceColumn === null) {
    // A drop-down over the question rows that can say yes and no is the choice column.
    for (let column = 1; column <= grid.columns && choiceColumn === null; column++) {
      const values = rows.map((r) => listAt(grid, r.row, column)).find((v) => v);
      if (values && choiceFor("yes", values) && choiceFor("no", values)) choiceColumn = column;
    }
  }
  let prose: number | null = answer;
  if (constrained(answer)) {
    choiceColumn ??= answer;
    prose = null;
  }
  if (prose === answer && answer === choiceColumn) prose = null;
  let evidenceColumn: number | null = evidence !== null && free(evidence) ? evidence : null;
  if (prose === null) {
    // The prose goes to a free column headed for explanations, else to a new "Answer" column.
    const taken = new Set([columnNumber(choice.question), answer, choiceColumn]);
    if (choice.id) taken.add(columnNumber(choice.id));
    const found = [...(grid.cells.get(choice.headerRow) ?? [])].sort(([a], [b]) => a - b)
      .find(([column, text]) =>
        !taken.has(column) && DESCRIPTIVE.test(text.trim()) && free(column)
      );
    if (found) {
      prose = found[0];
      if (evidenceColumn === prose) evidenceColumn = null;
    } else prose = add(ANSWER_HEADER);
  }
  evidenceColumn ??= add(EVIDENCE_HEADER);
  if (answer > grid.columns && prose === answer) added.set(answer, ANSWER_HEADER);
  return { prose, evidence: evidenceColumn, choice: choiceColumn, added };
}

/**
 * Where the writes go, per sheet index: each question row's answer (its fill's, or the "no
 * answer" text) and evidence link (when the fill has one), a choice column's allowed value,
 * and the headers of columns the sheet did not have; never a cell the buyer filled, never a
 * sheet without a question row written. Texts are raw; each writer makes them inert.
 */
function writesOf(
  read: ReadQuestionnaire,
  fills: RowFill[],
  noAnswer: string,
  grids: Grid[],
  written = new Set<string>(),
): {
  writes: Map<number, SheetWrites>;
  links: Map<number, Map<string, string>>;
  looks: Map<number, SheetLook>;
} {
  const byKey = new Map(fills.map((fill) => [fill.key, fill]));
  const writes = new Map<number, SheetWrites>();
  const links = new Map<number, Map<string, string>>();
  const looks = new Map<number, SheetLook>();
  for (const choice of read.columns) {
    const index = read.sheets.findIndex((sheet) => sheet.name === choice.sheet);
    const grid = grids[index];
    if (index < 0 || !grid) continue;
    const rows = read.rows.filter((row) => row.key.split(":")[0] === String(index));
    const targets = targetsOf(grid, choice, rows, read.sheets[index].columns);
    const cells: SheetWrites = new Map();
    const put = (row: number, column: number, text: string) => {
      if (cellFilled(grid, row, column)) return false;
      let wanted = cells.get(row);
      if (!wanted) cells.set(row, wanted = new Map());
      wanted.set(column, text);
      return true;
    };
    const headerChoice = choice.choice ? columnNumber(choice.choice) === targets.choice : false;
    for (const row of rows) {
      const fill = byKey.get(row.key);
      const prose = put(row.row, targets.prose, fill ? fill.answer : noAnswer);
      if (!fill) continue;
      if (prose) written.add(row.key);
      if (targets.choice !== null) {
        const listed = listAt(grid, row.row, targets.choice);
        const allowed = listed === undefined ? (headerChoice ? DEFAULT_CHOICES : []) : listed;
        const value = choiceFor(stanceOf(fill.answer), allowed ?? []);
        if (value && put(row.row, targets.choice, value)) written.add(row.key);
      }
      if (!fill.evidence) continue;
      if (!put(row.row, targets.evidence, fill.evidence)) continue;
      const link = firstLink(fill.evidence);
      if (link) {
        if (!links.has(index)) links.set(index, new Map());
        links.get(index)!.set(`${columnLetters(targets.evidence)}${row.row}`, link);
      }
    }
    if (cells.size === 0) continue;
    for (const [column, header] of targets.added) {
      const used = [...cells.values()].some((wanted) => wanted.has(column));
      if (used) put(choice.headerRow, column, header);
    }
    writes.set(index, cells);
    const newColumn = [...targets.added.keys()].find((c) => c === targets.evidence);
    looks.set(index, {
      styleColumn: targets.prose <= grid.columns ? targets.prose : columnNumber(choice.answer),
      newColumn,
    });
  }
  return { writes, links, looks };
}

/**
 * What an evidence cell links to: the first line that is an http(s) URL within Excel's 2,079
 * characters (a cell has one hyperlink; its text keeps every line).
 */
function firstLink(text: string): string | null {
  for (const line of text.split(/\r?\n/)) {
    const url = line.trim();
    if (url.length <= 2079 && /^https?:\/\/[^\s"<>]+$/.test(url)) return url;
  }
  return null;
}

/**
 * The buyer's file (`bytes`, as read into `read`) with the answer and evidence cells filled:
 * rows with a fill get its answer and evidence (in a workbook, the evidence's first line that
 * is an http(s) URL is also the cell's hyperlink), other question rows the `noAnswer` text;
 * everything else is kept (an XLSX loses its live formulas, which become their cached values,
 * its external links and its calculation chain). Fills whose key names no row are ignored.
 * Async only because fflate loads on first use.
 */
export async function fillQuestionnaire(
  bytes: Uint8Array,
  read: ReadQuestionnaire,
  fills: RowFill[],
  options: FillOptions = {},
): Promise<Uint8Array> {
  const limits = options.limits ?? QUESTIONNAIRE_LIMITS;
  checkSize(bytes, limits);
  const opened = await openFile(bytes, limits);
  return fillOpened(opened, read, fills, options);
}

/** A file opened once: its grids, and what writing it back needs (the CSV or the workbook). */
type Opened =
  | { kind: "csv"; csv: ReturnType<typeof parseCsv>; grids: Grid[] }
  | {
    kind: "xlsx";
    open: ReturnType<typeof openWorkbook>;
    fflate: typeof import("fflate");
    grids: Grid[];
  };

async function openFile(bytes: Uint8Array, limits: QuestionnaireLimits): Promise<Opened> {
  if (kindOf(bytes) === "csv") {
    const csv = parseCsv(bytes, limits);
    return { kind: "csv", csv, grids: [csvGrid(csv, limits)] };
  }
  const fflate = await loadFflate();
  const open = openWorkbook(bytes, limits, fflate);
  return { kind: "xlsx", open, fflate, grids: readWorkbookGrids(open, limits) };
}

function fillOpened(
  opened: Opened,
  read: ReadQuestionnaire,
  fills: RowFill[],
  options: FillOptions,
): Uint8Array {
  const noAnswer = options.noAnswer ?? NO_ANSWER;
  const { writes, links, looks } = writesOf(read, fills, noAnswer, opened.grids, options.written);
  if (opened.kind === "csv") return writeCsv(opened.csv, writes.get(0) ?? new Map());
  const inert = new Map(
    [...writes].map(([sheet, rows]) => [
      sheet,
      new Map(
        [...rows].map(([row, cells]) => [
          row,
          new Map([...cells].map(([column, text]) => [column, inertCellText(text)])),
        ]),
      ),
    ]),
  );
  return patchWorkbook(opened.open, inert, links, looks, opened.fflate);
}

/**
 * `readQuestionnaire` and `fillQuestionnaire` in one: the file is opened, inflated and read
 * once (the export's path), with the same result as the two calls.
 */
export async function readAndFill(
  bytes: Uint8Array,
  fills: RowFill[],
  options: ReadOptions & FillOptions = {},
): Promise<{ read: ReadQuestionnaire; bytes: Uint8Array }> {
  const limits = options.limits ?? QUESTIONNAIRE_LIMITS;
  checkSize(bytes, limits);
  const opened = await openFile(bytes, limits);
  const read = questionnaireOf(
    opened.kind,
    opened.kind === "csv" ? opened.csv.encoding : null,
    opened.grids,
    options.columns,
    limits,
    options.kinds,
  );
  return { read, bytes: fillOpened(opened, read, fills, options) };
}
