/**
 * A sheet's XML patched (see xlsx.ts): answer and evidence cells written as inline strings
 * keeping their `s` style, formulas replaced by their cached values, `r` made explicit, new
 * rows and cells in order, a new column given the answer column's width, the dimension updated.
 */
import { columnLetters } from "./grid.ts";
import { decodeOoxmlEscapes, escapeXml } from "./xml.ts";
import { malformed } from "./xlsx_open.ts";
import { type CellElement, type SheetLayout, sheetLayout } from "./xlsx_sheet.ts";

/** The cells to write in one sheet: row → column → text (already made inert). */
export type SheetWrites = Map<number, Map<number, string>>;

export function prefixOf(qname: string): string {
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

export interface Edit {
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

export function applyEdits(xml: string, edits: Edit[]): string {
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
