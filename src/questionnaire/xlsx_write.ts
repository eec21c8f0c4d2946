/**
 * Writing a workbook back (`patchWorkbook`, see xlsx.ts): only the parts and relationships of an
 * allow-list are kept (xlsx_package.ts), those not changed copied byte for byte; the sheets are
 * patched (xlsx_patch.ts), an evidence URL made the cell's hyperlink, and the workbook, the
 * relationships and the content types rewritten where they must change.
 */
import { escapeXml, type XmlToken, xmlTokens } from "./xml.ts";
import { type Fflate, malformed, type OpenWorkbook } from "./xlsx_open.ts";
import { planPackage, relsPathOf } from "./xlsx_package.ts";
import {
  applyEdits,
  type Edit,
  patchSheet,
  prefixOf,
  type SheetLook,
  type SheetWrites,
} from "./xlsx_patch.ts";
import { writeZip, type ZipOutput } from "./zip.ts";

const REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/";

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
