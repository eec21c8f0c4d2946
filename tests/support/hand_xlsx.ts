/**
 * Workbooks built by hand as SpreadsheetML (inline strings, formulas with cached values,
 * anything after sheetData such as data validations) and zipped with fflate: written by no
 * spreadsheet library, so what reads them (ours, SheetJS) shares no code with what wrote them.
 */
import { strToU8, zipSync } from "fflate";
import { SheetJS } from "../deps.ts";

const MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
const REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";

export type Cell = string | number | { f: string; v: string | number };

function escape(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;");
}

function cellXml(ref: string, cell: Cell): string {
  if (typeof cell === "number") return `<c r="${ref}"><v>${cell}</v></c>`;
  if (typeof cell === "string") {
    return `<c r="${ref}" t="inlineStr"><is><t>${escape(cell)}</t></is></c>`;
  }
  const t = typeof cell.v === "string" ? ' t="str"' : "";
  return `<c r="${ref}"${t}><f>${escape(cell.f)}</f><v>${escape(String(cell.v))}</v></c>`;
}

/** A sheet: rows of cells (null: empty), and what follows sheetData (validations). */
export function sheetXml(rows: (Cell | null)[][], after = ""): string {
  const body = rows.map((cells, i) => {
    const items = cells.map((cell, c) =>
      cell === null ? "" : cellXml(`${SheetJS.utils.encode_col(c)}${i + 1}`, cell)
    ).join("");
    return items ? `<row r="${i + 1}">${items}</row>` : "";
  }).join("");
  return `<worksheet xmlns="${MAIN}"><sheetData>${body}</sheetData>${after}</worksheet>`;
}

export function workbook(sheets: [string, string][]): Uint8Array {
  const files: Record<string, Uint8Array> = {
    "[Content_Types].xml": strToU8(
      `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
        `<Default Extension="xml" ContentType="application/xml"/>` +
        `<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
        `<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>` +
        sheets.map((_, i) =>
          `<Override PartName="/xl/worksheets/sheet${
            i + 1
          }.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`
        ).join("") + `</Types>`,
    ),
    "_rels/.rels": strToU8(
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
        `<Relationship Id="r1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    ),
    "xl/workbook.xml": strToU8(
      `<workbook xmlns="${MAIN}" xmlns:r="${REL}"><sheets>` +
        sheets.map(([name], i) =>
          `<sheet name="${escape(name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`
        ).join("") + `</sheets></workbook>`,
    ),
    "xl/_rels/workbook.xml.rels": strToU8(
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
        sheets.map((_, i) =>
          `<Relationship Id="rId${i + 1}" Type="${REL}/worksheet" Target="worksheets/sheet${
            i + 1
          }.xml"/>`
        ).join("") + `</Relationships>`,
    ),
  };
  sheets.forEach(([, xml], i) => files[`xl/worksheets/sheet${i + 1}.xml`] = strToU8(xml));
  return zipSync(files, { mtime: new Date(Date.UTC(2026, 0, 1)) });
}
