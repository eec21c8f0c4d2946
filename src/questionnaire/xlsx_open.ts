/**
 * Opening a buyer's XLSX workbook (see xlsx.ts): the ZIP (zip.ts) is checked for what we refuse
 * (macro-enabled, binary or encrypted workbooks, anything that is not a spreadsheet), every
 * entry is inflated against one running budget (the shared strings against their own as well),
 * then `workbook.xml` and its relationships name the worksheets.
 */
import { QuestionnaireFileError, type QuestionnaireLimits } from "./types.ts";
import { xmlTokens } from "./xml.ts";
import { relsPathOf, resolvePart } from "./xlsx_package.ts";
import { InflateBudget, inflateEntry, zipEntries, type ZipEntry } from "./zip.ts";

export type Fflate = typeof import("fflate");

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

export function malformed(message: string): QuestionnaireFileError {
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

export function relationships(parts: Map<string, string>, part: string): Map<string, Relationship> {
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
