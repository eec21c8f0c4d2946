/**
 * An opened workbook read into grids of text (see xlsx.ts): `sharedStrings.xml` gives the shared
 * texts, and each sheet's cells are read: shared and inline strings (rich text runs joined,
 * phonetic runs left out), numbers as written, booleans as TRUE/FALSE, errors as their code, and
 * a formula's cached value (a formula is never evaluated); with each sheet's list validations.
 */
import { type CellRange, cellText, type Grid, newGrid, parseCellRef, setCell } from "./grid.ts";
import { QuestionnaireFileError, type QuestionnaireLimits } from "./types.ts";
import { decodeOoxmlEscapes, type XmlToken, xmlTokens } from "./xml.ts";
import { malformed, type OpenWorkbook, relationships, SHARED_STRINGS_BUDGET } from "./xlsx_open.ts";
import { type CellElement, sheetLayout } from "./xlsx_sheet.ts";

function overBudget(message: string): QuestionnaireFileError {
  return new QuestionnaireFileError("over_limit", message);
}

/**
 * The workbook's shared strings, read token by token against SHARED_STRINGS_BUDGET and the
 * characters-per-cell limit: refused (`over_limit`) as soon as a count passes, before the rest
 * of the part is read.
 */
function sharedStrings(open: OpenWorkbook, limits: QuestionnaireLimits): string[] {
  const rels = relationships(open.parts, open.workbookPath);
  let path: string | undefined;
  for (const rel of rels.values()) if (rel.type.endsWith("/sharedStrings")) path = rel.target;
  const xml = path ? open.parts.get(path) : undefined;
  if (!xml) return [];
  const strings: string[] = [];
  let current: string[] | null = null;
  let currentLength = 0;
  let units = 0;
  let inText = false;
  let phonetic = 0;
  const add = (text: string) => {
    if (strings.length >= SHARED_STRINGS_BUDGET.entries) {
      throw overBudget(
        `The workbook has more than ${SHARED_STRINGS_BUDGET.entries} shared strings.`,
      );
    }
    strings.push(text);
  };
  for (const token of xmlTokens(xml)) {
    if (token.kind === "open") {
      if (token.name === "si") {
        current = [];
        currentLength = 0;
        units++;
        if (token.selfClosing) {
          add("");
          current = null;
        }
      } else if (token.name === "rPh") phonetic += token.selfClosing ? 0 : 1;
      else if (token.name === "t" && !token.selfClosing) inText = true;
    } else if (token.kind === "close") {
      if (token.name === "si" && current) {
        add(decodeOoxmlEscapes(current.join("")));
        current = null;
      } else if (token.name === "rPh") phonetic--;
      else if (token.name === "t") inText = false;
    } else if (inText && current && phonetic === 0) {
      current.push(token.text);
      currentLength += token.text.length;
      units += token.text.length + 1;
      if (currentLength > limits.maxCellChars) {
        throw overBudget(
          `The workbook has a shared string longer than ${limits.maxCellChars} characters.`,
        );
      }
    }
    if (units > SHARED_STRINGS_BUDGET.units) {
      throw overBudget(
        `The workbook's shared strings hold more than ${SHARED_STRINGS_BUDGET.units} characters and runs.`,
      );
    }
  }
  return strings;
}

/** What a cell shows, as text: its string, number, boolean or error, or a formula's cached value. */
function cellValue(cell: CellElement, strings: string[]): string {
  const type = cell.attrs.t ?? "n";
  if (type === "inlineStr") return decodeOoxmlEscapes(cell.inline ?? cell.value ?? "");
  const value = cell.value ?? "";
  switch (type) {
    case "s": {
      const index = Number(value);
      if (!Number.isInteger(index) || index < 0 || index >= strings.length) {
        throw malformed("a cell names a shared string that does not exist");
      }
      return strings[index];
    }
    case "b":
      return value === "1" || value === "true" ? "TRUE" : value === "" ? "" : "FALSE";
    case "str":
      return decodeOoxmlEscapes(value);
    default:
      return value.trim();
  }
}

/** Every worksheet of the workbook as a grid of text, with its formula cells and drop-downs. */
export function readWorkbookGrids(open: OpenWorkbook, limits: QuestionnaireLimits): Grid[] {
  const strings = sharedStrings(open, limits);
  const validations: RawValidation[][] = [];
  const grids = open.sheets.map((sheet) => {
    const grid = newGrid(sheet.name);
    const xml = open.parts.get(sheet.path) ?? "";
    const layout = sheetLayout(xml);
    for (const row of layout.rows) {
      for (const cell of row.cells) {
        setCell(grid, cell.row, cell.column, cellValue(cell, strings).trim(), limits);
        if (cell.formula) grid.formulas.add(`${cell.row}:${cell.column}`);
      }
    }
    validations.push(listValidations(xml));
    return grid;
  });
  grids.forEach((grid, index) => {
    grid.lists = validations[index].map((raw) => ({
      ranges: raw.sqref,
      values: listValues(raw.formula, grid, grids),
    }));
  });
  return grids;
}

/** Most list validations read per sheet, and cells a range-valued list may name. */
const MAX_LISTS = 200;
const MAX_LIST_VALUES = 100;

interface RawValidation {
  sqref: CellRange[];
  formula: string;
}

/** "A1:B3 D5" as ranges; references that do not parse are left out. */
function parseSqref(text: string): CellRange[] {
  const ranges: CellRange[] = [];
  for (const part of text.trim().split(/\s+/).slice(0, 50)) {
    const [from, to = from] = part.split(":");
    const a = parseCellRef(from);
    const b = parseCellRef(to);
    if (!a || !b) continue;
    ranges.push({
      top: Math.min(a.row, b.row),
      left: Math.min(a.column, b.column),
      bottom: Math.max(a.row, b.row),
      right: Math.max(a.column, b.column),
    });
  }
  return ranges;
}

/**
 * The list validations of a sheet (`<dataValidation type="list">`, and the x14 form of its
 * extension list, whose range is a child `sqref`): where they apply and their formula1 text.
 */
function listValidations(xml: string): RawValidation[] {
  const found: RawValidation[] = [];
  let current: { sqref: string; formula: string[]; list: boolean } | null = null;
  let inFormula = false;
  let inSqref = false;
  for (const token of xmlTokens(xml) as Generator<XmlToken>) {
    if (token.kind === "open") {
      if (token.name === "dataValidation") {
        current = {
          sqref: token.attrs.sqref ?? "",
          formula: [],
          list: token.attrs.type === "list",
        };
        if (token.selfClosing) current = null;
      } else if (current && token.name === "formula1" && !token.selfClosing) inFormula = true;
      else if (current && token.name === "sqref" && !token.selfClosing) inSqref = true;
    } else if (token.kind === "close") {
      if (token.name === "formula1") inFormula = false;
      else if (token.name === "sqref") inSqref = false;
      else if (token.name === "dataValidation" && current) {
        if (current.list && found.length < MAX_LISTS) {
          found.push({ sqref: parseSqref(current.sqref), formula: current.formula.join("") });
        }
        current = null;
      }
    } else if (current && inFormula) current.formula.push(token.text);
    else if (current && inSqref) current.sqref += ` ${token.text}`;
  }
  return found;
}

/**
 * The values a list validation's formula allows: a literal list ("Yes,No,N/A"), or a range of
 * this or another sheet read from the grids; null for anything else (a defined name, a
 * function), which nothing is then known to fit.
 */
function listValues(formula: string, grid: Grid, grids: Grid[]): string[] | null {
  const text = formula.trim();
  const literal = /^"(.*)"$/s.exec(text);
  if (literal) {
    return literal[1].replaceAll('""', '"').split(",").map((v) => v.trim()).filter(Boolean)
      .slice(0, MAX_LIST_VALUES);
  }
  const ref =
    /^(?:(?:'((?:[^']|'')+)'|([^'!:\s]+))!)?(\$?[A-Z]{1,3}\$?\d{1,7})(?::(\$?[A-Z]{1,3}\$?\d{1,7}))?$/
      .exec(text.replace(/^=/, ""));
  if (!ref) return null;
  const sheetName = ref[1]?.replaceAll("''", "'") ?? ref[2];
  const source = sheetName === undefined ? grid : grids.find((g) => g.name === sheetName);
  const [range] = parseSqref(
    `${ref[3].replaceAll("$", "")}:${(ref[4] ?? ref[3]).replaceAll("$", "")}`,
  );
  if (!source || !range) return null;
  const values: string[] = [];
  // Within the cells in use: a whole-column range is as long as the sheet's used rows.
  for (let row = range.top; row <= Math.min(range.bottom, source.rows); row++) {
    for (let column = range.left; column <= Math.min(range.right, source.columns); column++) {
      const value = cellText(source, row, column);
      if (value) values.push(value);
      if (values.length >= MAX_LIST_VALUES) return values;
    }
  }
  return values;
}
