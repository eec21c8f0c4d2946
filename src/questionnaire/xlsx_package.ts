/**
 * What the answered workbook keeps of the buyer's package: an allow-list of parts and
 * relationships, so that nothing that runs, fetches or calls out when the vendor opens the file
 * comes back (docs/questionnaires.md, "Nothing live comes back").
 *
 * Kept: `[Content_Types].xml`, `_rels/.rels`, the workbook part and its relationships, the
 * worksheets the workbook lists, shared strings, styles, the theme, and `docProps/core.xml` and
 * `docProps/app.xml` (plain metadata: title, author, sheet titles). Every other part goes
 * (connections, query tables, XLM macro sheets, chart and dialog sheets, OLE objects, ActiveX,
 * external links, custom XML, drawings, comments, tables, pivot caches, printer settings, the
 * calculation chain, custom properties, thumbnails), with the relationships that name it, its
 * content-type override and the workbook's `<sheet>` entry. Inside the parts kept:
 *
 * - the workbook keeps only its inert elements (file version and sharing, properties,
 *   protection, views, sheets, defined names, calculation settings); `localSheetId`, `activeTab`
 *   and `firstSheet` follow the sheets that remain; defined names go when they auto-run
 *   (`Auto_Open`, `Auto_Close`, …), are marked as macros (`xlm`, `function`, `vbProcedure`),
 *   belong to or name a sheet removed, or hold a live formula;
 * - a worksheet keeps only its inert elements (cells, views, widths, merges, protection,
 *   autofilter, conditional formats, validation, hyperlinks, print settings, breaks), so OLE
 *   objects, controls, drawings, tables and extensions go; a conditional format rule or a data
 *   validation whose formula is live goes; a hyperlink stays when it points inside the workbook
 *   (`location`) or at an http(s) or mailto address, any other (`file:`, a UNC or relative path,
 *   another scheme) goes with its relationship; a reference to a relationship removed
 *   (a printer-settings `r:id`) is dropped from its element.
 *
 * A formula is live when, string literals aside, it calls a function (`WEBSERVICE(`,
 * `HYPERLINK(`, `AND(`: no allow-list of harmless ones), refers outside the workbook (`[1]`,
 * `'C:\…\[book.xlsx]Sheet'!A1`) or is a DDE call (`cmd|'/C calc'!A0`).
 */
import { QuestionnaireFileError } from "./types.ts";
import { type XmlToken, xmlTokens } from "./xml.ts";
import type { ZipEntry } from "./zip.ts";

/** What the planner needs of an opened workbook (see xlsx.ts's OpenWorkbook). */
export interface PackageSource {
  entries: ZipEntry[];
  parts: Map<string, string>;
  workbookPath: string;
  sheets: { name: string; path: string }[];
}

export interface PackagePlan {
  /** Names of the entries the answered workbook keeps (some with new content, below). */
  keep: Set<string>;
  /** New XML for kept parts that change: the workbook, the relationships, the content types. */
  rewritten: Map<string, string>;
  /** A kept worksheet's XML without what the allow-list removes. */
  sheet(path: string, xml: string): string;
}

type Open = XmlToken & { kind: "open" };

interface Edit {
  start: number;
  end: number;
  text: string;
}

const CONTENT_TYPES = "[Content_Types].xml";
const ROOT_RELS = "_rels/.rels";

/** Relationship types (by their last segment) the package's root keeps. */
const ROOT_KEPT = new Set(["officeDocument", "core-properties", "extended-properties"]);
/** Relationship types (by their last segment) the workbook keeps, besides its worksheets. */
const WORKBOOK_KEPT = new Set(["worksheet", "sharedStrings", "styles", "theme"]);

/** The workbook's children that run nothing (CT_Workbook; the others are removed). */
const WORKBOOK_ELEMENTS = new Set([
  "fileVersion",
  "fileSharing",
  "workbookPr",
  "workbookProtection",
  "bookViews",
  "sheets",
  "definedNames",
  "calcPr",
  "customWorkbookViews",
  "fileRecoveryPr",
]);

/** A worksheet's children that run nothing (CT_Worksheet; the others are removed). */
const SHEET_ELEMENTS = new Set([
  "sheetPr",
  "dimension",
  "sheetViews",
  "sheetFormatPr",
  "cols",
  "sheetData",
  "sheetCalcPr",
  "sheetProtection",
  "protectedRanges",
  "scenarios",
  "autoFilter",
  "sortState",
  "dataConsolidate",
  "customSheetViews",
  "mergeCells",
  "phoneticPr",
  "conditionalFormatting",
  "dataValidations",
  "hyperlinks",
  "printOptions",
  "pageMargins",
  "pageSetup",
  "headerFooter",
  "rowBreaks",
  "colBreaks",
  "ignoredErrors",
]);

/** Defined names Excel runs by themselves (XLM and VBA auto macros). */
const AUTO_RUN = /^(?:_xlnm\.)?auto_(?:open|close|activate|deactivate)/i;

function malformed(message: string): QuestionnaireFileError {
  return new QuestionnaireFileError("malformed", `Not a readable workbook: ${message}.`);
}

/**
 * Whether a formula (a defined name, a conditional format's or a validation's) could do
 * anything but read this workbook's cells: a function call, a reference outside the workbook
 * (`[n]`, a path) or a DDE call (`app|topic!item`). String literals are left out first, then
 * quoted sheet names (which may hold parentheses but never brackets, slashes or bars).
 */
export function liveFormula(formula: string): boolean {
  const bare = formula.replace(/"(?:[^"]|"")*"/g, '""');
  if (/[[\]|\\]/.test(bare)) return true;
  // A name character right before "(" (spaces aside) is a call; a bare "(" only groups.
  return /[\w.]\(/.test(bare.replace(/'(?:[^']|'')*'/g, "''").replace(/\s+/g, ""));
}

/** The relationships part of a part. */
export function relsPathOf(part: string): string {
  const slash = part.lastIndexOf("/");
  return `${part.slice(0, slash + 1)}_rels/${part.slice(slash + 1)}.rels`;
}

/** A relationship's target resolved against the folder of the part that names it. */
export function resolvePart(base: string, target: string): string {
  const path = target.startsWith("/") ? target.slice(1) : base + target;
  const out: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "..") out.pop();
    else if (segment !== "." && segment !== "") out.push(segment);
  }
  return out.join("/");
}

/** An attribute by local name (`r:id` → "id"), whatever its prefix. */
function attr(attrs: Record<string, string>, local: string): string | undefined {
  for (const [key, value] of Object.entries(attrs)) {
    if (key === local || key.endsWith(`:${local}`)) return value;
  }
  return undefined;
}

function lastSegment(type: string): string {
  return type.slice(type.lastIndexOf("/") + 1);
}

function applyEdits(xml: string, edits: Edit[]): string {
  const ordered = edits.map((edit, index) => ({ edit, index }))
    // The widest edit first at one point: a removed element swallows edits of its own tag.
    .sort((a, b) => a.edit.start - b.edit.start || b.edit.end - a.edit.end || a.index - b.index);
  const out: string[] = [];
  let at = 0;
  for (const { edit } of ordered) {
    if (edit.start < at) continue; // inside a span already removed
    out.push(xml.slice(at, edit.start), edit.text);
    at = Math.max(at, edit.end);
  }
  out.push(xml.slice(at));
  return out.join("");
}

/** A start tag's text with one attribute (by exact name) set to `value`, or removed (null). */
function withAttribute(tag: string, name: string, value: string | null): string {
  const pattern = new RegExp(`\\s${name.replace(/[.:]/g, "\\$&")}\\s*=\\s*("[^"]*"|'[^']*')`);
  if (value === null) return tag.replace(pattern, "");
  if (pattern.test(tag)) return tag.replace(pattern, ` ${name}="${value}"`);
  return tag.replace(/^<[^\s/>]+/, (head) => `${head} ${name}="${value}"`);
}

/**
 * Walks the elements of `xml`, each once its end is known (children before their parent):
 * `visit` gets the start tag, its depth, where the whole element ends, the text inside it,
 * and the start tags of the elements around it (`parents[0]` is the root).
 */
function elements(
  xml: string,
  visit: (token: Open, depth: number, end: number, text: string, parents: Open[]) => void,
): void {
  const stack: { token: Open; text: string[] }[] = [];
  const parents = () => stack.map((frame) => frame.token);
  for (const token of xmlTokens(xml)) {
    if (token.kind === "open") {
      if (token.selfClosing) visit(token, stack.length, token.end, "", parents());
      else stack.push({ token, text: [] });
    } else if (token.kind === "close") {
      const frame = stack.pop()!;
      const text = frame.text.join("");
      if (stack.length > 0) stack[stack.length - 1].text.push(text);
      visit(frame.token, stack.length, token.end, text, parents());
    } else if (stack.length > 0) stack[stack.length - 1].text.push(token.text);
  }
}

/** Relationship XML keeping only the relationships `keep` accepts. */
function keepRelationships(
  xml: string,
  keep: (rel: { id: string; type: string; target: string; external: boolean }) => boolean,
): { xml: string; kept: number; dropped: Set<string> } {
  const edits: Edit[] = [];
  const dropped = new Set<string>();
  let kept = 0;
  elements(xml, (token, depth, end) => {
    if (depth !== 1 || token.name !== "Relationship") return;
    const { Id: id = "", Type: type = "", Target: target = "", TargetMode: mode } = token.attrs;
    if (keep({ id, type, target, external: mode === "External" })) kept++;
    else {
      dropped.add(id);
      edits.push({ start: token.start, end, text: "" });
    }
  });
  return { xml: applyEdits(xml, edits), kept, dropped };
}

/** The plan for `open`: what is kept, and the new XML of what changes. */
export function planPackage(open: PackageSource): PackagePlan {
  const names = new Map(open.entries.map((entry) => [entry.name.toLowerCase(), entry.name]));
  const exists = (part: string) => names.get(part.toLowerCase());
  const keep = new Set<string>();
  const rewritten = new Map<string, string>();
  const add = (part: string) => {
    const name = exists(part);
    if (name) keep.add(name);
    return name !== undefined;
  };
  add(CONTENT_TYPES);

  // The package's root: the workbook and the two metadata parts.
  const rootXml = open.parts.get(ROOT_RELS);
  if (rootXml === undefined) throw malformed("the package has no relationships");
  const root = keepRelationships(rootXml, (rel) => {
    if (rel.external || !ROOT_KEPT.has(lastSegment(rel.type))) return false;
    const target = resolvePart("", rel.target);
    if (lastSegment(rel.type) === "officeDocument") return target === open.workbookPath;
    return /^docProps\/(core|app)\.xml$/i.test(target) && add(target);
  });
  add(ROOT_RELS);
  rewritten.set(ROOT_RELS, root.xml);
  add(open.workbookPath);

  // The workbook's relationships: its worksheets, shared strings, styles and theme.
  const base = open.workbookPath.slice(0, open.workbookPath.lastIndexOf("/") + 1);
  const sheetPaths = new Set(open.sheets.map((sheet) => sheet.path));
  const workbookRelsPath = relsPathOf(open.workbookPath);
  const workbookRels = open.parts.get(workbookRelsPath);
  if (workbookRels === undefined) throw malformed("the workbook has no relationships");
  const keptSheetIds = new Set<string>();
  const books = keepRelationships(workbookRels, (rel) => {
    const kind = lastSegment(rel.type);
    if (rel.external || !WORKBOOK_KEPT.has(kind)) return false;
    const target = resolvePart(base, rel.target);
    if (kind === "worksheet") {
      if (!sheetPaths.has(target) || !add(target)) return false;
      keptSheetIds.add(rel.id);
      return true;
    }
    return add(target);
  });
  add(workbookRelsPath);
  rewritten.set(workbookRelsPath, books.xml);
  const workbookXml = open.parts.get(open.workbookPath) ?? "";
  rewritten.set(open.workbookPath, patchWorkbookXml(workbookXml, keptSheetIds));

  // Each worksheet's relationships: http(s) and mailto hyperlinks only.
  const droppedOfSheet = new Map<string, Set<string>>();
  for (const path of sheetPaths) {
    if (!keep.has(path)) continue;
    const relsPath = relsPathOf(path);
    const xml = open.parts.get(exists(relsPath) ?? relsPath);
    if (xml === undefined) {
      droppedOfSheet.set(path, new Set());
      continue;
    }
    const sheetRels = keepRelationships(
      xml,
      (rel) =>
        rel.external && lastSegment(rel.type) === "hyperlink" &&
        /^(?:https?:\/\/|mailto:)/i.test(rel.target.trim()),
    );
    droppedOfSheet.set(path, sheetRels.dropped);
    if (sheetRels.kept > 0 && add(relsPath)) rewritten.set(exists(relsPath)!, sheetRels.xml);
  }

  // Directory entries of folders that still hold something.
  for (const entry of open.entries) {
    if (!entry.name.endsWith("/")) continue;
    const folder = entry.name.toLowerCase();
    if ([...keep].some((name) => name.toLowerCase().startsWith(folder))) keep.add(entry.name);
  }
  const types = open.parts.get(CONTENT_TYPES);
  if (types === undefined) throw malformed("the package has no content types");
  rewritten.set(CONTENT_TYPES, patchContentTypes(types, keep));
  return {
    keep,
    rewritten,
    sheet: (path, xml) => patchSheetParts(xml, droppedOfSheet.get(path) ?? new Set()),
  };
}

/** Content types with overrides only for kept parts and defaults only for extensions in use. */
function patchContentTypes(xml: string, keep: Set<string>): string {
  const kept = new Set([...keep].map((name) => name.toLowerCase()));
  const extensions = new Set(["rels", "xml"]);
  for (const name of keep) {
    const file = name.slice(name.lastIndexOf("/") + 1);
    if (file.includes(".")) extensions.add(file.slice(file.lastIndexOf(".") + 1).toLowerCase());
  }
  const edits: Edit[] = [];
  elements(xml, (token, depth, end) => {
    if (depth !== 1) return;
    if (token.name === "Override") {
      const part = (token.attrs.PartName ?? "").replace(/^\//, "").toLowerCase();
      if (!kept.has(part)) edits.push({ start: token.start, end, text: "" });
    } else if (token.name === "Default") {
      const extension = (token.attrs.Extension ?? "").toLowerCase();
      if (!extensions.has(extension)) edits.push({ start: token.start, end, text: "" });
    }
  });
  return applyEdits(xml, edits);
}

/**
 * The workbook XML with only its inert elements, only the sheets kept (`keptIds`: their
 * relationship ids), and the defined names that neither run nor reach outside.
 */
function patchWorkbookXml(xml: string, keptIds: Set<string>): string {
  // First pass: which sheets stay, and their new positions.
  const sheets: { token: Open; kept: boolean; name: string }[] = [];
  elements(xml, (token, depth, _end, _text, parents) => {
    if (depth === 2 && token.name === "sheet" && parents[1].name === "sheets") {
      const id = attr(token.attrs, "id") ?? "";
      sheets.push({ token, kept: keptIds.has(id), name: token.attrs.name ?? "" });
    }
  });
  const position = new Map<number, number>();
  let next = 0;
  sheets.forEach((sheet, index) => {
    if (sheet.kept) position.set(index, next++);
  });
  const removedNames = sheets.filter((sheet) => !sheet.kept).map((sheet) => sheet.name);
  const refersToRemoved = (formula: string) =>
    removedNames.some((name) =>
      formula.includes(`${name}!`) || formula.includes(`'${name.replaceAll("'", "''")}'!`)
    );
  const remap = (value: string | undefined) => {
    const index = Number(value);
    return Number.isInteger(index) ? position.get(index) : undefined;
  };

  const edits: Edit[] = [];
  let names = 0;
  let namesKept = 0;
  const namesSpan: Edit[] = [];
  const visible = sheets.some((sheet) =>
    sheet.kept && (sheet.token.attrs.state ?? "visible") === "visible"
  );
  const firstKept = sheets.find((sheet) => sheet.kept);
  elements(xml, (token, depth, end, text, parents) => {
    const parent = parents[depth - 1]?.name;
    const tag = xml.slice(token.start, token.end);
    if (depth === 1 && !WORKBOOK_ELEMENTS.has(token.name)) {
      edits.push({ start: token.start, end, text: "" });
    } else if (depth === 1 && token.name === "definedNames") {
      namesSpan.push({ start: token.start, end, text: "" });
    } else if (depth === 2 && token.name === "sheet" && parent === "sheets") {
      const sheet = sheets.find((s) => s.token.start === token.start)!;
      if (!sheet.kept) edits.push({ start: token.start, end, text: "" });
      else if (!visible && sheet === firstKept) {
        // Excel needs one visible sheet; the buyer's visible ones may all have gone.
        edits.push({ start: token.start, end: token.end, text: withAttribute(tag, "state", null) });
      }
    } else if (depth === 2 && token.name === "definedName" && parent === "definedNames") {
      names++;
      const name = token.attrs.name ?? "";
      const flagged = ["xlm", "function", "vbProcedure"].some((key) =>
        /^(?:1|true)$/.test(token.attrs[key] ?? "")
      );
      const local = token.attrs.localSheetId;
      const moved = local === undefined ? undefined : remap(local);
      if (
        AUTO_RUN.test(name) || flagged || liveFormula(text) || refersToRemoved(text) ||
        (local !== undefined && moved === undefined)
      ) {
        edits.push({ start: token.start, end, text: "" });
      } else {
        namesKept++;
        if (moved !== undefined && String(moved) !== local) {
          edits.push({
            start: token.start,
            end: token.end,
            text: withAttribute(tag, "localSheetId", String(moved)),
          });
        }
      }
    } else if (depth === 2 && token.name === "workbookView") {
      let view = tag;
      for (const key of ["activeTab", "firstSheet"]) {
        const value = token.attrs[key];
        if (value === undefined) continue;
        const moved = remap(value) ?? 0;
        if (String(moved) !== value) view = withAttribute(view, key, String(moved));
      }
      if (view !== tag) edits.push({ start: token.start, end: token.end, text: view });
    }
  });
  // An empty `<definedNames>` is not allowed: it goes with its last name.
  if (names > 0 && namesKept === 0) edits.push(...namesSpan);
  return applyEdits(xml, edits);
}

/**
 * A worksheet's XML with only its inert elements: live conditional formats and validations,
 * hyperlinks whose relationship was dropped (`dropped`), and references to dropped
 * relationships removed.
 */
function patchSheetParts(xml: string, dropped: Set<string>): string {
  const edits: Edit[] = [];
  // Per container (by where it starts): children seen and removed.
  const containers = new Map<number, { seen: number; removed: number }>();
  elements(xml, (token, depth, end, text, parents) => {
    if (depth === 1 && !SHEET_ELEMENTS.has(token.name)) {
      edits.push({ start: token.start, end, text: "" });
      return;
    }
    const parent = depth === 2 ? parents[1] : undefined;
    const child = parent && (
      (parent.name === "conditionalFormatting" && token.name === "cfRule") ||
      (parent.name === "dataValidations" && token.name === "dataValidation") ||
      (parent.name === "hyperlinks" && token.name === "hyperlink")
    );
    if (parent && child) {
      let counts = containers.get(parent.start);
      if (!counts) containers.set(parent.start, counts = { seen: 0, removed: 0 });
      counts.seen++;
      const id = attr(token.attrs, "id");
      const live = token.name === "hyperlink"
        ? id !== undefined && dropped.has(id)
        : liveFormula(text);
      if (live) {
        counts.removed++;
        edits.push({ start: token.start, end, text: "" });
        return;
      }
    }
    const counts = depth === 1 ? containers.get(token.start) : undefined;
    if (counts && counts.removed > 0) {
      // A container left empty goes (the schema wants one child at least); a count follows.
      if (counts.removed === counts.seen) edits.push({ start: token.start, end, text: "" });
      else if (token.name === "dataValidations") {
        const tag = withAttribute(
          xml.slice(token.start, token.end),
          "count",
          String(counts.seen - counts.removed),
        );
        edits.push({ start: token.start, end: token.end, text: tag });
      }
      return;
    }
    // A kept element naming a relationship that went (a printer-settings r:id): the reference goes.
    for (const [key, value] of Object.entries(token.attrs)) {
      if (/^[^:]+:id$/.test(key) && dropped.has(value)) {
        const tag = xml.slice(token.start, token.end);
        edits.push({ start: token.start, end: token.end, text: withAttribute(tag, key, null) });
      }
    }
  });
  return applyEdits(xml, edits);
}
