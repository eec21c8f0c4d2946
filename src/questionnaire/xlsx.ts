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
 *
 * The work is split by concern: opening the ZIP and naming the sheets in xlsx_open.ts, a
 * sheet's rows and cells with their positions in xlsx_sheet.ts, reading grids and list
 * validations in xlsx_read.ts, patching a sheet's cells in xlsx_patch.ts, and hyperlinks and
 * the whole workbook written back in xlsx_write.ts. This module keeps their exports.
 */
export {
  type OpenWorkbook,
  openWorkbook,
  SHARED_STRINGS_BUDGET,
  type WorkbookSheet,
} from "./xlsx_open.ts";
export { readWorkbookGrids } from "./xlsx_read.ts";
export { patchSheet, type SheetLook, type SheetWrites } from "./xlsx_patch.ts";
export { linkSheet, patchWorkbook } from "./xlsx_write.ts";
