/**
 * Where each sheet keeps its questions: the columns the service found by their headers, shown
 * as selects of the sheet's own headers and changeable. Saving re-reads the stored file with
 * the new choice and matches again (decisions on rows that still exist are kept).
 */
import { field, h, handleSubmit, uniqueId } from "../../dom.js";
import { plural } from "../../format.js";
import { questionnairePath } from "./common.js";

/** 0 → "A", 25 → "Z", 26 → "AA". */
function columnLetter(index) {
  let n = index + 1;
  let letters = "";
  while (n > 0) {
    const rest = (n - 1) % 26;
    letters = String.fromCharCode(65 + rest) + letters;
    n = Math.floor((n - 1) / 26);
  }
  return letters;
}

/** "AA" → 26. */
function columnIndex(letters) {
  let n = 0;
  for (const c of letters) n = n * 26 + (c.charCodeAt(0) - 64);
  return n - 1;
}

/** The sheet's columns in use plus one free column after them, labelled with their headers. */
function columnOptions(sheet, chosen) {
  const headers = new Map(sheet.headers.map((x) => [x.column, x.text]));
  const last = Math.max(
    sheet.columns,
    ...sheet.headers.map((x) => columnIndex(x.column) + 1),
    ...chosen.filter(Boolean).map((letter) => columnIndex(letter) + 1),
  );
  const options = [];
  for (let i = 0; i <= last; i++) {
    const letter = columnLetter(i);
    const text = headers.get(letter);
    const label = text ? `${letter}: ${text}` : i === last ? `${letter} (a new column)` : letter;
    options.push({ value: letter, label });
  }
  return options;
}

function select(name, options, value, empty) {
  return h(
    "select",
    { name, value: value ?? "" },
    empty && h("option", { value: "" }, empty),
    options.map((o) => h("option", { value: o.value }, o.label)),
  );
}

/** The fields of one sheet; `current` is the choice the rows were read with, if any. */
function sheetFields(sheet, current, index) {
  const choice = current ?? sheet.detected;
  const options = columnOptions(sheet, [
    choice?.question,
    choice?.id,
    choice?.answer,
    choice?.evidence,
  ]);
  const prefix = `s${index}`;
  const legendId = uniqueId("sheet");
  return h(
    "fieldset",
    { class: "sheet-columns", "aria-labelledby": legendId, "data-sheet": sheet.name },
    h(
      "legend",
      { id: legendId },
      `Sheet “${sheet.name}”`,
      h(
        "span",
        { class: "legend-meta" },
        ` ${plural(sheet.rows, "row")}, ${plural(sheet.columns, "column")}`,
      ),
    ),
    h(
      "div",
      { class: "column-grid" },
      field(
        "Question column",
        select(`${prefix}-question`, options, choice?.question, "None: skip this sheet"),
      ),
      field("Question id column", select(`${prefix}-id`, options, choice?.id, "None")),
      field("Answer column", select(`${prefix}-answer`, options, choice?.answer, "Choose…")),
      field(
        "Evidence column",
        select(`${prefix}-evidence`, options, choice?.evidence, "A new column after the last"),
      ),
      field(
        "Header row",
        h("input", {
          name: `${prefix}-header`,
          type: "number",
          inputmode: "numeric",
          min: "1",
          max: String(Math.max(1, sheet.rows)),
          value: String(choice?.headerRow ?? 1),
        }),
      ),
    ),
  );
}

/** The columns chosen in the form, one entry per sheet that has a question column. */
function chosenColumns(sheets, data) {
  const columns = [];
  sheets.forEach((sheet, index) => {
    const get = (key) => String(data.get(`s${index}-${key}`) ?? "");
    const question = get("question");
    if (!question) return;
    const answer = get("answer");
    if (!answer) throw new Error(`Choose the answer column of the sheet “${sheet.name}”`);
    if (answer === question) {
      throw new Error(
        `The sheet “${sheet.name}”: the answers cannot go into the question column`,
      );
    }
    columns.push({
      sheet: sheet.name,
      headerRow: Number(get("header")) || 1,
      question,
      id: get("id") || null,
      answer,
      evidence: get("evidence") || null,
    });
  });
  if (columns.length === 0) throw new Error("Choose the question column of at least one sheet");
  return columns;
}

/** The form of every sheet's columns; `onSaved(questionnaire)` after the re-read. */
export function columnsForm(app, organization, questionnaire, onSaved) {
  const errorSlot = h("div", { class: "form-errors" });
  const current = new Map(questionnaire.columns.map((c) => [c.sheet, c]));
  const fields = questionnaire.sheets.map((sheet, i) =>
    sheetFields(sheet, current.get(sheet.name), i)
  );
  const read = fields.filter((_, i) => current.has(questionnaire.sheets[i].name));
  const unread = fields.filter((_, i) => !current.has(questionnaire.sheets[i].name));
  const form = h(
    "form",
    { class: "form", "aria-label": "Columns of each sheet" },
    read,
    // Sheets without a question column (a cover page, a summary) wait behind a disclosure.
    unread.length > 0 &&
      h(
        "details",
        { class: "disclosure" },
        h("summary", {}, `Sheets not read (${unread.length})`),
        unread,
      ),
    errorSlot,
    h(
      "div",
      { class: "form-actions" },
      h("button", { type: "submit", class: "btn btn-primary" }, "Re-read with these columns"),
    ),
  );
  handleSubmit(form, errorSlot, async (data) => {
    const columns = chosenColumns(questionnaire.sheets, data);
    const saved = await app.api.patch(
      questionnairePath(organization.id, questionnaire.id),
      { columns },
    );
    await onSaved(saved.questionnaire);
  });
  return form;
}
