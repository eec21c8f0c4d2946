/**
 * Text written into a spreadsheet cell or CSV field so no spreadsheet ever reads it as a formula
 * (CSV or formula injection): shared by the answers export (serve/answers_export.ts) and the
 * filled buyer's questionnaire (questionnaire/workbook.ts).
 */

/**
 * Where a spreadsheet could start reading a formula: the start of the field, or, since a
 * reader in a locale whose separator is ";" (or a tab) splits the field there and a line
 * break may end a row, right after ";", ",", a tab, CR or LF.
 */
const FORMULA_TRIGGER = /(?<=^|[;,\t\r\n])(?=[=+\-@\t\r])/g;

/**
 * The text with an apostrophe before every `=`, `+`, `-`, `@`, tab or CR where a formula could
 * start (see FORMULA_TRIGGER), as OWASP advises against CSV injection; other text unchanged.
 */
export function inertSpreadsheetText(value: string): string {
  // Zero-width, so a tab or CR that triggers is also the separator before the next trigger.
  return value.replace(FORMULA_TRIGGER, "'");
}

/**
 * One CSV field (RFC 4180), inert in any spreadsheet (see `inertSpreadsheetText`); such a field
 * is quoted, as is one that holds a comma, semicolon, quote or line break, so no reader splits
 * it, whatever its separator.
 */
export function csvField(value: string): string {
  const inert = inertSpreadsheetText(value);
  return inert !== value || /[",;\t\r\n]/.test(inert) ? `"${inert.replaceAll('"', '""')}"` : inert;
}

/**
 * A spreadsheet cell's text, inert: an apostrophe before a leading `=`, `+`, `-`, `@`, tab or CR,
 * the only place a spreadsheet reads a formula from when the cell is edited (a cell is not split
 * by separators, so the later trigger points `inertSpreadsheetText` also covers do not apply).
 */
export function inertCellText(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}
