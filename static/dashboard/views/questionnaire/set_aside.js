/**
 * The rows of a questionnaire that are not questions (headings, ignored rows), each with the
 * rule that set it aside in plain words and a button that makes it a question: nothing in the
 * buyer's file is dropped silently (docs/questionnaires.md). Collapsed by default with its
 * count; the review (review.js) reads the rows again after a choice.
 */
import { badge, h, replace } from "../../dom.js";
import { plural } from "../../format.js";
import { runButton } from "../../widgets.js";
import { questionnairePath } from "./common.js";

/** "12 rows set aside: 9 headings, 3 ignored". */
export function setAsideSummary(setAside) {
  if (setAside.total === 0) return "No row set aside: every non-empty row is a question";
  const parts = [];
  if (setAside.headings) parts.push(plural(setAside.headings, "heading"));
  if (setAside.ignored) parts.push(`${setAside.ignored} ignored`);
  return `${plural(setAside.total, "row")} set aside: ${parts.join(", ")}`;
}

/** The path that changes what a row is (question, heading, ignored). */
export const kindPath = (organizationId, questionnaireId, key) =>
  questionnairePath(organizationId, questionnaireId, `/rows/${encodeURIComponent(key)}/kind`);

/** "row 7 of “Sheet1”", how a row set aside is named in labels and messages. */
export const setAsideName = (row) => `row ${row.row} of “${row.sheet}”`;

function kindBadge(kind) {
  return kind === "heading" ? badge("Heading", "info") : badge("Ignored", "neutral");
}

/**
 * The "Set aside" section. `onQuestion(row, questionnaire)` runs after a row was made a
 * question, with the questionnaire the service read again. Returns the element and `draw`,
 * which redraws it from a questionnaire's `setAside` (the open or closed state kept).
 */
export function setAsideSection({ organizationId, questionnaireId, messages, onQuestion, api }) {
  const summary = h("summary", {});
  const body = h("div", { class: "set-aside-body" });
  const root = h("details", { class: "disclosure set-aside" }, summary, body);

  const makeQuestion = (row, button) =>
    runButton(button, messages, async () => {
      const { questionnaire } = await api.put(
        kindPath(organizationId, questionnaireId, row.key),
        { kind: "question" },
      );
      await onQuestion(row, questionnaire);
    });

  const lineOf = (row) => {
    // A row with nothing in its question column cannot be a question (the service says 400).
    const action = row.rule === "no_question_cell"
      ? h("span", { class: "muted" }, "No question text")
      : h("button", {
        type: "button",
        class: "btn btn-secondary btn-small",
        "data-set-aside": row.key,
        "aria-label": `Make it a question: ${setAsideName(row)}`,
        on: { click: (event) => makeQuestion(row, event.currentTarget) },
      }, "Make it a question");
    return h(
      "tr",
      { "data-key": row.key },
      h("td", { class: "col-where" }, `${row.sheet}, row ${row.row}`),
      h("td", { class: "col-text" }, row.text || h("span", { class: "muted" }, "(no text)")),
      h("td", { class: "col-kind" }, kindBadge(row.kind)),
      h("td", { class: "col-rule" }, row.ruleText),
      h("td", { class: "col-action" }, action),
    );
  };

  const draw = (setAside) => {
    replace(summary, setAsideSummary(setAside));
    if (setAside.total === 0) {
      replace(
        body,
        h("p", { class: "hint" }, "Every non-empty row of the sheets read is a question."),
      );
      return;
    }
    replace(
      body,
      h(
        "p",
        { class: "hint" },
        "Rows read as headings or ignored, and the rule that decided it. A row made a question is matched and joins the rows to review; a question can be set aside from the row under review.",
      ),
      setAside.rows.length < setAside.total
        ? h(
          "p",
          { class: "hint" },
          `The first ${setAside.rows.length} of ${setAside.total} are listed.`,
        )
        : null,
      h(
        "div",
        { class: "review-scroll set-aside-scroll" },
        h(
          "table",
          { class: "set-aside-grid" },
          h("caption", { class: "visually-hidden" }, "Rows set aside and why"),
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              h("th", { scope: "col" }, "Where"),
              h("th", { scope: "col" }, "Text"),
              h("th", { scope: "col" }, "Read as"),
              h("th", { scope: "col" }, "Why"),
              h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, "Action")),
            ),
          ),
          h("tbody", {}, setAside.rows.map(lineOf)),
        ),
      ),
    );
  };

  return { root, draw };
}
