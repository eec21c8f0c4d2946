/**
 * A buyer's XLSX workbook read into grids of text, and written back with chosen cells replaced.
 *
 * Reading: the ZIP (zip.ts) is checked for what we refuse (macro-enabled, binary or encrypted
 * workbooks, anything that is not a spreadsheet), every entry is inflated against one running
 * budget, then `workbook.xml` and its relationships name the worksheets, `sharedStrings.xml`
 * gives the shared texts, and each sheet's cells are read: shared and inline strings (rich text
 * runs joined, phonetic runs left out), numbers as written, booleans as TRUE/FALSE, errors as
 * their code, and a formula's cached value (a formula is never evaluated). Cells and rows
 * without an `r` attribute follow the one before.
 *
 * Writing (`patchWorkbook`): only the parts and relationships of an allow-list are kept
 * (xlsx_package.ts); those not changed are copied byte for byte. The sheets' XML is patched
 * where it must change (answer and evidence cells written as inline strings keeping their `s`
 * style, formulas replaced by their cached values, `r` made explicit in patched sheets, an
 * evidence URL made the cell's hyperlink, what the allow-list removes taken out), and so are the
 * workbook, the relationships and the content types.
 */
import {
  type CellRange,
  cellText,
  columnLetters,
  type Grid,
  newGrid,
  parseCellRef,
  setCell,
} from "./grid.ts";
import { QuestionnaireFileError, type QuestionnaireLimits } from "./types.ts";
import { decodeOoxmlEscapes, escapeXml, type XmlToken, xmlTokens } from "./xml.ts";
import { planPackage, relsPathOf, resolvePart } from "./xlsx_package.ts";
import {
  InflateBudget,
  inflateEntry,
  writeZip,
  zipEntries,
  type ZipEntry,
  type ZipOutput,
} from "./zip.ts";

type Fflate = typeof import("fflate");

const REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/";
const WORKBOOK_TYPES = new Set([
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.template.main+xml",
]);

export interface WorkbookSheet {
  name: string;
  /** The worksheet part, e.g. "xl/worksheets/sheet1.xml". */
  path: string;
}

export interface OpenWorkbook {
  entries: ZipEntry[];
  /** Inflated XML parts by name (the ones the reader and writer need). */
  parts: Map<string, string>;
  workbookPath: string;
  sheets: WorkbookSheet[];
}

function unsupported(message: string): QuestionnaireFileError {
  return new QuestionnaireFileError("unsupported_type", message);
}

function malformed(message: string): QuestionnaireFileError {
  return new QuestionnaireFileError("malformed", `Not a readable workbook: ${message}.`);
}

/** The entries of a workbook's ZIP, checked and inflated against the limits. */
export function openWorkbook(
  bytes: Uint8Array,
  limits: QuestionnaireLimits,
  fflate: Fflate,
): OpenWorkbook {
  const entries = zipEntries(bytes);
  const byName = new Map(entries.map((entry) => [entry.name, entry]));
  for (const entry of entries) {
    const lower = entry.name.toLowerCase();
    if (lower.endsWith("vbaproject.bin") || lower.endsWith("vbaprojectsignature.bin")) {
      throw unsupported("Macro-enabled workbooks (.xlsm) are not read; save it as .xlsx.");
    }
    if (lower === "xl/workbook.bin") {
      throw unsupported("Binary workbooks (.xlsb) are not read; save it as .xlsx.");
    }
  }
  if (!byName.has("[Content_Types].xml")) {
    throw unsupported("The ZIP file is not an Office Open XML workbook.");
  }
  const budget = new InflateBudget(limits.maxUncompressedBytes);
  const parts = new Map<string, string>();
  const decoder = new TextDecoder("utf-8", { fatal: false });
  const read = (entry: ZipEntry, partBudget: InflateBudget) => {
    const data = inflateEntry(entry, partBudget, fflate);
    if (/\.(xml|rels)$/i.test(entry.name)) parts.set(entry.name, decoder.decode(data));
  };
  // Every entry counts against the budget, read or not, so no part may hide a bomb. The
  // relationships and content types come first: they name the shared strings part, which is
  // inflated against its own, smaller budget as well (SHARED_STRINGS_BUDGET.bytes).
  const first = entries.filter((e) => /\.rels$/i.test(e.name) || e.name === "[Content_Types].xml");
  for (const entry of first) read(entry, budget);
  const shared = sharedStringsPath(parts);
  for (const entry of entries) {
    if (first.includes(entry)) continue;
    read(entry, entry.name === shared ? new PartBudget(budget) : budget);
  }
  const types = parts.get("[Content_Types].xml") ?? "";
  const workbookPath = officeDocument(parts);
  const workbookType = contentTypeOf(types, workbookPath);
  // The workbook's own type, not any line of the list (writers name macro types by default).
  if (workbookType && /macroEnabled/i.test(workbookType)) {
    throw unsupported("Macro-enabled workbooks (.xlsm) are not read; save it as .xlsx.");
  }
  if (!workbookType || !WORKBOOK_TYPES.has(workbookType)) {
    throw unsupported("The file is not an Excel workbook (.xlsx).");
  }
  const workbook = parts.get(workbookPath);
  if (workbook === undefined) throw malformed("the workbook part is missing");
  const rels = relationships(parts, workbookPath);
  const sheets: WorkbookSheet[] = [];
  for (const token of xmlTokens(workbook)) {
    if (token.kind !== "open" || token.name !== "sheet") continue;
    const id = attr(token.attrs, "id");
    const rel = id ? rels.get(id) : undefined;
    if (!rel || !rel.type.endsWith("/worksheet")) continue; // chart and dialog sheets
    const name = token.attrs.name ?? "";
    if (!parts.has(rel.target)) throw malformed(`sheet "${name}" has no part`);
    sheets.push({ name, path: rel.target });
    if (sheets.length > limits.maxSheets) {
      throw new QuestionnaireFileError(
        "over_limit",
        `The workbook has more than ${limits.maxSheets} sheets.`,
      );
    }
  }
  if (sheets.length === 0) throw malformed("it has no worksheet");
  return { entries, parts, workbookPath, sheets };
}

/** The shared strings part the workbook's relationships name, if they name one. */
function sharedStringsPath(parts: Map<string, string>): string | undefined {
  let workbookPath: string;
  try {
    workbookPath = officeDocument(parts);
  } catch {
    return undefined; // refused below, once every entry is counted
  }
  for (const rel of relationships(parts, workbookPath).values()) {
    if (rel.type.endsWith("/sharedStrings")) return rel.target;
  }
  return undefined;
}

/** The shared strings part's own budget, spent together with the whole file's. */
class PartBudget extends InflateBudget {
  constructor(readonly whole: InflateBudget) {
    super(SHARED_STRINGS_BUDGET.bytes);
  }

  override spend(bytes: number): void {
    this.whole.spend(bytes);
    this.used += bytes;
    if (this.used > this.limit) {
      throw new QuestionnaireFileError(
        "over_limit",
        `The workbook's shared strings expand to more than ${this.limit} bytes once unzipped.`,
      );
    }
  }
}

/** An attribute by local name (`r:id` → "id"), whatever its prefix. */
function attr(attrs: Record<string, string>, local: string): string | undefined {
  for (const [key, value] of Object.entries(attrs)) {
    if (key === local || key.endsWith(`:${local}`)) return value;
  }
  return undefined;
}

function officeDocument(parts: Map<string, string>): string {
  const rels = relationships(parts, "");
  for (const rel of rels.values()) {
    if (rel.type.endsWith("/officeDocument")) return rel.target;
  }
  throw unsupported("The ZIP file is not an Office Open XML workbook.");
}

function contentTypeOf(types: string, path: string): string | undefined {
  let byExtension: string | undefined;
  const extension = path.slice(path.lastIndexOf(".") + 1).toLowerCase();
  for (const token of xmlTokens(types)) {
    if (token.kind !== "open") continue;
    if (token.name === "Override" && token.attrs.PartName === `/${path}`) {
      return token.attrs.ContentType;
    }
    if (token.name === "Default" && token.attrs.Extension?.toLowerCase() === extension) {
      byExtension = token.attrs.ContentType;
    }
  }
  return byExtension;
}

interface Relationship {
  id: string;
  type: string;
  /** The target part's name, resolved (external targets are kept as written). */
  target: string;
  external: boolean;
}

function relationships(parts: Map<string, string>, part: string): Map<string, Relationship> {
  const rels = new Map<string, Relationship>();
  const xml = parts.get(relsPathOf(part));
  if (xml === undefined) return rels;
  const base = part.slice(0, part.lastIndexOf("/") + 1);
  for (const token of xmlTokens(xml)) {
    if (token.kind !== "open" || token.name !== "Relationship") continue;
    const { Id: id, Type: type = "", Target: target = "", TargetMode: mode } = token.attrs;
    if (!id) continue;
    const external = mode === "External";
    rels.set(id, { id, type, target: external ? target : resolvePart(base, target), external });
  }
  return rels;
}

// ---------------------------------------------------------------------------------------------
// Cells

/**
 * What the shared strings of one workbook may hold, counted while they are read so a small
 * file cannot make the reader build millions of strings (a 160 KB workbook of 3.9 million
 * one-letter entries took 8 to 25 s and hundreds of MB before it was refused for other
 * reasons): the part's unzipped bytes, entries, and characters plus text runs (a run counts at
 * least 1, so millions of empty rich-text runs count too). 16 MiB, 100,000 entries and 8
 * million units are far above a real
 * questionnaire (the 2,000-question CAIQ-like benchmark workbook has fewer than 5,000 entries and
 * 0.5 million characters). One string is also held to a cell's limit: no cell could show more.
 */
export const SHARED_STRINGS_BUDGET = {
  entries: 100_000,
  units: 8_000_000,
  /** The part's XML once unzipped (checked while inflating, within the file's own budget). */
  bytes: 16 * 1024 * 1024,
};

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

/** One `<c>` element as the tokens showed it. */
interface CellElement {
  row: number;
  column: number;
  attrs: Record<string, string>;
  /** The open tag's span, and the whole element's. */
  openStart: number;
  openEnd: number;
  start: number;
  end: number;
  qname: string;
  hasR: boolean;
  formula: boolean;
  value: string | null;
  inline: string | null;
}

interface RowElement {
  row: number;
  openStart: number;
  openEnd: number;
  /** Where `</row>` starts; null for a self-closing row. */
  closeStart: number | null;
  end: number;
  qname: string;
  hasR: boolean;
  cells: CellElement[];
}

interface SheetLayout {
  rows: RowElement[];
  /** The sheetData element: its open tag span and where its close tag starts (null: `<sheetData/>`). */
  sheetData:
    | { openStart: number; openEnd: number; closeStart: number | null; qname: string }
    | null;
  dimension: { start: number; end: number; qname: string } | null;
  /** The `<cols>` element: where it opens and closes (null: `<cols/>`), and its ranges. */
  cols: {
    openStart: number;
    openEnd: number;
    closeStart: number | null;
    qname: string;
    items: { min: number; max: number; width: string | undefined; start: number }[];
  } | null;
}

/** The rows and cells of a sheet's XML, with their positions. */
function sheetLayout(xml: string): SheetLayout {
  const layout: SheetLayout = { rows: [], sheetData: null, dimension: null, cols: null };
  let row: RowElement | null = null;
  let cell: CellElement | null = null;
  let lastRow = 0;
  let lastColumn = 0;
  let inValue = false;
  let inIs = false;
  let inText = false;
  let phonetic = 0;
  let value: string[] = [];
  let inline: string[] = [];
  const finishCell = (end: number) => {
    if (!cell || !row) return;
    cell.end = end;
    cell.value = cell.value ?? (value.length ? value.join("") : null);
    cell.inline = inline.length ? inline.join("") : cell.inline;
    row.cells.push(cell);
    cell = null;
  };
  for (const token of xmlTokens(xml) as Generator<XmlToken>) {
    if (token.kind === "open") {
      switch (token.name) {
        case "dimension":
          layout.dimension = { start: token.start, end: token.end, qname: token.qname };
          break;
        case "cols":
          if (!row) {
            layout.cols = {
              openStart: token.start,
              openEnd: token.end,
              closeStart: null,
              qname: token.qname,
              items: [],
            };
          }
          break;
        case "col":
          if (layout.cols && !row) {
            layout.cols.items.push({
              min: Number(token.attrs.min),
              max: Number(token.attrs.max),
              width: token.attrs.width,
              start: token.start,
            });
          }
          break;
        case "sheetData":
          layout.sheetData = {
            openStart: token.start,
            openEnd: token.end,
            closeStart: token.selfClosing ? null : -1,
            qname: token.qname,
          };
          break;
        case "row": {
          const r = token.attrs.r ? Number(token.attrs.r) : lastRow + 1;
          if (!Number.isInteger(r) || r < 1 || r > 1048576) throw malformed("a row number");
          lastRow = r;
          lastColumn = 0;
          row = {
            row: r,
            openStart: token.start,
            openEnd: token.end,
            closeStart: null,
            end: token.end,
            qname: token.qname,
            hasR: token.attrs.r !== undefined,
            cells: [],
          };
          if (token.selfClosing) {
            layout.rows.push(row);
            row = null;
          }
          break;
        }
        case "c": {
          if (!row) break;
          const ref = token.attrs.r ? parseCellRef(token.attrs.r) : null;
          if (token.attrs.r && !ref) throw malformed(`a cell reference "${token.attrs.r}"`);
          const column = ref ? ref.column : lastColumn + 1;
          lastColumn = column;
          cell = {
            row: row.row,
            column,
            attrs: token.attrs,
            openStart: token.start,
            openEnd: token.end,
            start: token.start,
            end: token.end,
            qname: token.qname,
            hasR: token.attrs.r !== undefined,
            formula: false,
            value: null,
            inline: null,
          };
          value = [];
          inline = [];
          if (token.selfClosing) finishCell(token.end);
          break;
        }
        case "f":
          if (cell) cell.formula = true;
          break;
        case "v":
          if (cell && !token.selfClosing) inValue = true;
          break;
        case "is":
          if (cell && !token.selfClosing) inIs = true;
          break;
        case "rPh":
          if (!token.selfClosing) phonetic++;
          break;
        case "t":
          if (inIs && !token.selfClosing) inText = true;
          break;
      }
    } else if (token.kind === "close") {
      switch (token.name) {
        case "sheetData":
          if (layout.sheetData) layout.sheetData.closeStart = token.start;
          break;
        case "cols":
          if (layout.cols) layout.cols.closeStart = token.start;
          break;
        case "row":
          if (row) {
            row.closeStart = token.start;
            row.end = token.end;
            layout.rows.push(row);
            row = null;
          }
          break;
        case "c":
          finishCell(token.end);
          break;
        case "v":
          inValue = false;
          break;
        case "is":
          inIs = false;
          break;
        case "rPh":
          phonetic--;
          break;
        case "t":
          inText = false;
          break;
      }
    } else if (cell) {
      if (inValue) value.push(token.text);
      else if (inText && phonetic === 0) inline.push(token.text);
    }
  }
  return layout;
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

// ---------------------------------------------------------------------------------------------
// Writing

/** The cells to write in one sheet: row → column → text (already made inert). */
export type SheetWrites = Map<number, Map<number, string>>;

function prefixOf(qname: string): string {
  const colon = qname.indexOf(":");
  return colon < 0 ? "" : qname.slice(0, colon + 1);
}

function inlineCell(p: string, ref: string, style: string | undefined, text: string): string {
  const s = style !== undefined ? ` s="${escapeXml(style)}"` : "";
  const space = /^\s|\s$|\n/.test(text) ? ' xml:space="preserve"' : "";
  return `<${p}c r="${ref}"${s} t="inlineStr"><${p}is><${p}t${space}>${
    escapeXml(text)
  }</${p}t></${p}is></${p}c>`;
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

/** A cell holding a formula, rewritten as the value it shows (or empty without one). */
function inertCell(cell: CellElement, p: string, ref: string): string {
  const style = cell.attrs.s;
  const s = style !== undefined ? ` s="${escapeXml(style)}"` : "";
  const type = cell.attrs.t ?? "n";
  if (cell.value === null && cell.inline === null) return `<${p}c r="${ref}"${s}/>`;
  if (type === "str" || type === "inlineStr") {
    return inlineCell(p, ref, style, decodeOoxmlEscapes(cell.inline ?? cell.value ?? ""));
  }
  const t = type === "n" ? "" : ` t="${escapeXml(type)}"`;
  return `<${p}c r="${ref}"${s}${t}><${p}v>${escapeXml(cell.value ?? "")}</${p}v></${p}c>`;
}

/**
 * How new cells of a sheet look: they take the style of the cell of `styleColumn` in their row
 * (the answer's), and a new column (`newColumn`) gets the answer column's width, or 40.
 */
export interface SheetLook {
  styleColumn?: number;
  newColumn?: number;
}

/** A sheet's XML with its formulas made values and the writes applied. */
export function patchSheet(xml: string, writes: SheetWrites, look: SheetLook = {}): string {
  const layout = sheetLayout(xml);
  const edits: Edit[] = [];
  const pending = new Map([...writes].map(([row, cells]) => [row, new Map(cells)]));
  let maxRow = 0;
  let maxColumn = 0;
  for (const row of layout.rows) {
    const p = prefixOf(row.qname);
    const wanted = pending.get(row.row);
    pending.delete(row.row);
    maxRow = Math.max(maxRow, row.row);
    const style = look.styleColumn === undefined
      ? undefined
      : row.cells.find((cell) => cell.column === look.styleColumn)?.attrs.s;
    // The row's open tag: an explicit r, and no `spans` hint that new cells could contradict.
    if (!row.hasR || (wanted && /\sspans=/.test(xml.slice(row.openStart, row.openEnd)))) {
      let tag = xml.slice(row.openStart, row.openEnd).replace(/\sspans="[^"]*"/, "");
      if (!row.hasR) tag = tag.replace(/^<[^\s/>]+/, (name) => `${name} r="${row.row}"`);
      if (wanted && row.closeStart === null) tag = tag.replace(/(?<!\s)\s*\/>$/, ">");
      edits.push({ start: row.openStart, end: row.openEnd, text: tag });
    } else if (wanted && row.closeStart === null) {
      edits.push({
        start: row.openStart,
        end: row.openEnd,
        text: xml.slice(row.openStart, row.openEnd).replace(/(?<!\s)\s*\/>$/, ">"),
      });
    }
    for (const cell of row.cells) {
      maxColumn = Math.max(maxColumn, cell.column);
      const ref = `${columnLetters(cell.column)}${cell.row}`;
      if (wanted) {
        // New cells that come before this one, in column order.
        const before = [...wanted].filter(([column]) => column < cell.column)
          .sort(([a], [b]) => a - b);
        for (const [column, value] of before) {
          const at = `${columnLetters(column)}${row.row}`;
          edits.push({
            start: cell.start,
            end: cell.start,
            text: inlineCell(p, at, style, value),
          });
          wanted.delete(column);
        }
      }
      const text = wanted?.get(cell.column);
      if (text !== undefined) {
        const cp = prefixOf(cell.qname);
        edits.push({
          start: cell.start,
          end: cell.end,
          text: inlineCell(cp, ref, cell.attrs.s, text),
        });
        wanted!.delete(cell.column);
      } else if (cell.formula) {
        edits.push({ start: cell.start, end: cell.end, text: inertCell(cell, p, ref) });
      } else if (!cell.hasR) {
        const at = cell.openStart + 1 + cell.qname.length;
        edits.push({ start: at, end: at, text: ` r="${ref}"` });
      }
    }
    if (wanted && wanted.size > 0) {
      const rest = [...wanted].sort(([a], [b]) => a - b);
      const at = row.closeStart ?? row.end;
      let text = rest.map(([column, value]) =>
        inlineCell(p, `${columnLetters(column)}${row.row}`, style, value)
      ).join("");
      for (const [column] of rest) maxColumn = Math.max(maxColumn, column);
      if (row.closeStart === null) text += `</${row.qname}>`;
      edits.push({ start: at, end: at, text });
    }
    if (wanted) {
      for (const [column] of writes.get(row.row)!) maxColumn = Math.max(maxColumn, column);
    }
  }
  // Rows that do not exist yet.
  if (pending.size > 0) {
    const data = layout.sheetData;
    if (!data) throw malformed("a sheet has no sheetData");
    const p = prefixOf(data.qname);
    const newRows = [...pending].sort(([a], [b]) => a - b);
    for (const [number, cells] of newRows) {
      maxRow = Math.max(maxRow, number);
      for (const [column] of cells) maxColumn = Math.max(maxColumn, column);
      const text = `<${p}row r="${number}">${
        [...cells].sort(([a], [b]) => a - b).map(([column, value]) =>
          inlineCell(p, `${columnLetters(column)}${number}`, undefined, value)
        ).join("")
      }</${p}row>`;
      const next = layout.rows.find((row) => row.row > number);
      if (next) edits.push({ start: next.openStart, end: next.openStart, text });
      else if (data.closeStart !== null && data.closeStart >= 0) {
        edits.push({ start: data.closeStart, end: data.closeStart, text });
      } else {
        // `<sheetData/>`: opened and closed around the new rows.
        const open = xml.slice(data.openStart, data.openEnd).replace(/(?<!\s)\s*\/>$/, ">");
        edits.push({
          start: data.openStart,
          end: data.openEnd,
          text: `${open}${text}</${data.qname}>`,
        });
        pending.clear();
        break;
      }
    }
  }
  if (look.newColumn !== undefined) edits.push(...widthEdits(xml, layout, look));
  if (layout.dimension && maxRow > 0 && maxColumn > 0) {
    const p = prefixOf(layout.dimension.qname);
    edits.push({
      start: layout.dimension.start,
      end: layout.dimension.end,
      text: `<${p}dimension ref="A1:${columnLetters(maxColumn)}${maxRow}"/>`,
    });
  }
  return applyEdits(xml, edits);
}

/** A `<col>` giving a new column the answer column's width, unless a range covers it. */
function widthEdits(xml: string, layout: SheetLayout, look: SheetLook): Edit[] {
  const column = look.newColumn!;
  const items = layout.cols?.items ?? [];
  if (items.some((item) => item.min <= column && column <= item.max)) return [];
  const like = look.styleColumn === undefined
    ? undefined
    : items.find((item) => item.min <= look.styleColumn! && look.styleColumn! <= item.max);
  const width = like?.width && /^[0-9.]+$/.test(like.width) ? like.width : "40";
  const cols = layout.cols;
  const p = prefixOf(cols?.qname ?? layout.sheetData?.qname ?? "");
  const tag = `<${p}col min="${column}" max="${column}" width="${width}" customWidth="1"/>`;
  if (cols) {
    const next = items.find((item) => item.min > column);
    if (next) return [{ start: next.start, end: next.start, text: tag }];
    if (cols.closeStart !== null) {
      return [{ start: cols.closeStart, end: cols.closeStart, text: tag }];
    }
    const open = xml.slice(cols.openStart, cols.openEnd).replace(/(?<!\s)\s*\/>$/, ">");
    return [{ start: cols.openStart, end: cols.openEnd, text: `${open}${tag}</${cols.qname}>` }];
  }
  if (!layout.sheetData) return [];
  const at = layout.sheetData.openStart;
  return [{ start: at, end: at, text: `<${p}cols>${tag}</${p}cols>` }];
}

function applyEdits(xml: string, edits: Edit[]): string {
  // Stable by position: insertions at one point keep the order they were made in.
  const ordered = edits.map((edit, index) => ({ edit, index }))
    .sort((a, b) => a.edit.start - b.edit.start || a.index - b.index);
  const out: string[] = [];
  let at = 0;
  for (const { edit } of ordered) {
    out.push(xml.slice(at, edit.start), edit.text);
    at = Math.max(at, edit.end);
  }
  out.push(xml.slice(at));
  return out.join("");
}

/** Worksheet elements that come after `<hyperlinks>` (ECMA-376 CT_Worksheet order). */
const AFTER_HYPERLINKS = new Set([
  "printOptions",
  "pageMargins",
  "pageSetup",
  "headerFooter",
  "rowBreaks",
  "colBreaks",
  "customProperties",
  "cellWatches",
  "ignoredErrors",
  "smartTags",
  "drawing",
  "drawingHF",
  "legacyDrawing",
  "legacyDrawingHF",
  "picture",
  "oleObjects",
  "controls",
  "webPublishItems",
  "tableParts",
  "extLst",
]);

/**
 * A sheet's XML with hyperlinks on the given cells (ref → relationship id): added to its
 * `<hyperlinks>` (replacing a link the cell had) or in a new one at its place in the schema.
 */
export function linkSheet(xml: string, links: Map<string, string>): string {
  if (links.size === 0) return xml;
  const edits: Edit[] = [];
  let depth = 0;
  let root: { qname: string } | null = null;
  let insertAt: number | null = null;
  let hyperlinks: { closeStart: number | null; open: XmlToken & { kind: "open" } } | null = null;
  for (const token of xmlTokens(xml)) {
    if (token.kind === "open") {
      if (depth === 0) root = { qname: token.qname };
      if (depth === 1 && token.name === "hyperlinks") {
        hyperlinks = { closeStart: null, open: token };
      } else if (depth === 1 && insertAt === null && AFTER_HYPERLINKS.has(token.name)) {
        insertAt = token.start;
      } else if (depth === 2 && hyperlinks && token.name === "hyperlink") {
        if (links.has(token.attrs.ref ?? "")) {
          const end = token.selfClosing
            ? token.end
            : xml.indexOf(">", xml.indexOf("</", token.end)) + 1;
          edits.push({ start: token.start, end, text: "" });
        }
      }
      if (!token.selfClosing) depth++;
    } else if (token.kind === "close") {
      depth--;
      if (depth === 1 && token.name === "hyperlinks" && hyperlinks) {
        hyperlinks.closeStart = token.start;
      }
      if (depth === 0 && insertAt === null) insertAt = token.start;
    }
  }
  if (!root || insertAt === null) throw malformed("a sheet has no root element");
  const p = prefixOf(root.qname);
  const items = [...links].map(([ref, id]) =>
    `<${p}hyperlink ref="${ref}" r:id="${escapeXml(id)}" xmlns:r="${REL.slice(0, -1)}"/>`
  ).join("");
  if (hyperlinks && hyperlinks.closeStart !== null) {
    edits.push({ start: hyperlinks.closeStart, end: hyperlinks.closeStart, text: items });
  } else if (hyperlinks) {
    const { open } = hyperlinks;
    const tag = xml.slice(open.start, open.end).replace(/(?<!\s)\s*\/>$/, ">");
    edits.push({ start: open.start, end: open.end, text: `${tag}${items}</${open.qname}>` });
  } else {
    edits.push({
      start: insertAt,
      end: insertAt,
      text: `<${p}hyperlinks>${items}</${p}hyperlinks>`,
    });
  }
  return applyEdits(xml, edits);
}

const RELATIONSHIPS_NS = "http://schemas.openxmlformats.org/package/2006/relationships";

/** Relationship ids not taken in `xml`, for the given links (ref → URL). */
function linkRelationships(
  xml: string | undefined,
  urls: Map<string, string>,
): { xml: string; ids: Map<string, string> } {
  const base = xml ??
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="${RELATIONSHIPS_NS}"></Relationships>`;
  const taken = new Set<string>();
  let close: number | null = null;
  let selfClosing: XmlToken | null = null;
  for (const token of xmlTokens(base)) {
    if (token.kind === "open" && token.name === "Relationship" && token.attrs.Id) {
      taken.add(token.attrs.Id);
    }
    if (token.kind === "open" && token.name === "Relationships" && token.selfClosing) {
      selfClosing = token;
    }
    if (token.kind === "close" && token.name === "Relationships") close = token.start;
  }
  const ids = new Map<string, string>();
  let n = 1;
  const items: string[] = [];
  for (const [ref, url] of urls) {
    while (taken.has(`rIdEvidence${n}`)) n++;
    const id = `rIdEvidence${n++}`;
    ids.set(ref, id);
    items.push(
      `<Relationship Id="${id}" Type="${REL}hyperlink" Target="${
        escapeXml(url)
      }" TargetMode="External"/>`,
    );
  }
  if (close !== null) {
    return { xml: applyEdits(base, [{ start: close, end: close, text: items.join("") }]), ids };
  }
  if (selfClosing) {
    const tag = base.slice(selfClosing.start, selfClosing.end).replace(/(?<!\s)\s*\/>$/, ">");
    return {
      xml: applyEdits(base, [{
        start: selfClosing.start,
        end: selfClosing.end,
        text: `${tag}${items.join("")}</Relationships>`,
      }]),
      ids,
    };
  }
  throw malformed("a relationships part has no root");
}

/**
 * The workbook with the writes applied (sheet index → writes) and links added (sheet index →
 * cell ref → URL, as external hyperlinks in the sheet's relationships), every formula replaced by
 * its cached value, and only the parts and relationships of the allow-list kept (xlsx_package.ts:
 * no connection, macro sheet, OLE object, ActiveX, external link, live defined name or format
 * rule); parts kept and not changed are copied as is.
 */
export function patchWorkbook(
  open: OpenWorkbook,
  writes: Map<number, SheetWrites>,
  links: Map<number, Map<string, string>>,
  looks: Map<number, SheetLook>,
  fflate: Fflate,
): Uint8Array<ArrayBuffer> {
  const plan = planPackage(open);
  const sheetByPath = new Map(open.sheets.map((sheet, index) => [sheet.path, index]));
  // The relationships of each sheet that gets links: the kept ones patched, or new after the sheet.
  const sheetRels = new Map<string, { xml: string; ids: Map<string, string>; sheet: number }>();
  for (const [sheet, urls] of links) {
    if (urls.size === 0) continue;
    const path = relsPathOf(open.sheets[sheet].path);
    const kept = plan.keep.has(path) ? plan.rewritten.get(path) : undefined;
    sheetRels.set(path, { ...linkRelationships(kept, urls), sheet });
  }
  const relsOfSheet = new Map(
    [...sheetRels].map(([path, rels]) => [rels.sheet, { path, ...rels }]),
  );
  const encoder = new TextEncoder();
  const outputs: ZipOutput[] = [];
  for (const entry of open.entries) {
    if (!plan.keep.has(entry.name)) continue;
    if (entry.name.endsWith("/")) {
      outputs.push({ kind: "replace", entry, data: new Uint8Array(0) });
      continue;
    }
    const xml = open.parts.get(entry.name);
    let patched: string | null = null;
    const sheet = sheetByPath.get(entry.name);
    const rels = sheetRels.get(entry.name);
    if (sheet !== undefined && xml !== undefined) {
      patched = plan.sheet(
        entry.name,
        patchSheet(xml, writes.get(sheet) ?? new Map(), looks.get(sheet)),
      );
      const own = relsOfSheet.get(sheet);
      if (own) {
        patched = linkSheet(patched, own.ids);
        if (!plan.keep.has(own.path)) {
          outputs.push({ kind: "replace", entry, data: encoder.encode(patched) });
          outputs.push({ kind: "new", name: own.path, data: encoder.encode(own.xml), like: entry });
          continue;
        }
      }
    } else if (rels) {
      patched = rels.xml;
    } else if (plan.rewritten.has(entry.name)) {
      patched = plan.rewritten.get(entry.name)!;
    }
    if (patched === null || patched === xml) outputs.push({ kind: "copy", entry });
    else outputs.push({ kind: "replace", entry, data: encoder.encode(patched) });
  }
  return writeZip(outputs, fflate);
}
