/**
 * The rows and cells of a worksheet's XML with their positions (see xlsx.ts): what the reader
 * takes the cells' values from and the patcher edits in place. Cells and rows without an `r`
 * attribute follow the one before.
 */
import { parseCellRef } from "./grid.ts";
import { type XmlToken, xmlTokens } from "./xml.ts";
import { malformed } from "./xlsx_open.ts";

/** One `<c>` element as the tokens showed it. */
export interface CellElement {
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

export interface RowElement {
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

export interface SheetLayout {
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
export function sheetLayout(xml: string): SheetLayout {
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
