/**
 * The review of a questionnaire's rows, a page at a time with the API's cursor: each question
 * with its best suggestion (text, score, why it matched, citations with the control's state,
 * evidence age and published version), accepted, edited or rejected in place; a filter by
 * status; "Accept all id matches"; and an accepted or edited answer saved back into the
 * knowledge base with the question's id learned (owners: they write the answers).
 */
import { describeError, errorAlert, field, h, handleSubmit, icon, replace } from "../../dom.js";
import { formatRelative, plural } from "../../format.js";
import { href } from "../../routes.js";
import { runButton } from "../../widgets.js";
import { card, dataTable, detailRow, emptyState, tableRow } from "../layout.js";
import { stateBadge } from "../project/state.js";
import { decisionBadge, flaggedRows, questionnairePath } from "./common.js";

const PAGE_SIZE = 25;
const COLUMNS = 4;
const STATUSES = [
  ["all", "All rows"],
  ["pending", "To review"],
  ["accepted", "Accepted"],
  ["edited", "Edited"],
  ["rejected", "Rejected"],
  ["unanswered", "No suggestion"],
];

/** What a decision did, for the announcement after it. */
const DONE = { accepted: "accepted", rejected: "rejected", pending: "back to review" };

/** How a row is named to assistive technology and in messages. */
export const rowName = (row) => row.questionId ?? `row ${row.row} of “${row.sheet}”`;

/** Ids safe in `id` attributes for a row key ("0:12"). */
const domId = (prefix, row) => `${prefix}-${row.key.replace(/[^A-Za-z0-9_-]/g, "-")}`;

/** "matched by id IAM-02.1" or "shared terms: encryption, rest". */
function reasonText(suggestion) {
  return "questionnaireId" in suggestion.reason
    ? `matched by id ${suggestion.reason.questionnaireId}`
    : `shared terms: ${suggestion.reason.terms.join(", ")}`;
}

/** A link when the citation has a public address, else its text. */
const linked = (url, text) => (url ? h("a", { href: url }, text) : text);

function citationItem(citation) {
  switch (citation.kind) {
    case "answer":
      return h("li", {}, "Answer: ", citation.question);
    case "control":
      return h(
        "li",
        { class: "citation-control" },
        linked(citation.url, `${citation.controlId} ${citation.title}`),
        " ",
        stateBadge(citation.state),
        h(
          "span",
          { class: "cell-sub" },
          citation.evidenceObservedAt
            ? [
              "evidence ",
              h(
                "time",
                { datetime: citation.evidenceObservedAt },
                formatRelative(citation.evidenceObservedAt),
              ),
            ]
            : "no evidence",
          ` · ${citation.projectSlug} v${citation.version}`,
        ),
      );
    case "criterion":
      return h("li", {}, `${citation.framework} ${citation.criterionId}: ${citation.title}`);
    case "certification":
      return h("li", {}, linked(citation.url, citation.title), ` (${citation.status})`);
    case "document":
      return h("li", {}, "Document: ", linked(citation.url, citation.title));
    default:
      return null;
  }
}

function citationList(citations) {
  if (citations.length === 0) return null;
  return h("ul", { class: "citations", "aria-label": "Citations" }, citations.map(citationItem));
}

/** A suggestion's text, score and reason, then its citations. */
function suggestionBody(suggestion) {
  return [
    h("p", { class: "suggestion-text" }, suggestion.text),
    h(
      "p",
      { class: "cell-sub" },
      `Score ${suggestion.score.toFixed(2)} · ${reasonText(suggestion)}`,
    ),
    citationList(suggestion.citations),
  ];
}

/** The suggestions below the threshold or after the best one, each with "Use this one". */
function otherSuggestions(view, row) {
  const others = row.suggestions
    .map((s, index) => ({ s, index }))
    .filter(({ s }) => !(row.best && sameSuggestion(s, row.best)));
  if (others.length === 0) return null;
  return h(
    "details",
    { class: "disclosure other-suggestions" },
    h(
      "summary",
      {},
      row.best ? `Other suggestions (${others.length})` : `Below the threshold (${others.length})`,
    ),
    h(
      "ol",
      { class: "plain-list" },
      others.map(({ s, index }) =>
        h(
          "li",
          {},
          suggestionBody(s),
          actionButton(
            view,
            row,
            "Use this one",
            `Use this one: suggestion ${index + 1} for ${rowName(row)}`,
            {
              state: "accepted",
              suggestion: index,
            },
          ),
        )
      ),
    ),
  );
}

const sameSuggestion = (a, b) => JSON.stringify(a) === JSON.stringify(b);

function suggestionCell(view, row) {
  return [
    row.best
      ? suggestionBody(row.best)
      : h("p", { class: "muted" }, "No answer in the knowledge base reaches the threshold."),
    otherSuggestions(view, row),
  ];
}

/** The text a decision exports when it is not the best suggestion's: an edit, another one. */
function decidedText(row) {
  const { decision } = row;
  if (decision.state === "edited") return decision.answer;
  if (decision.state !== "accepted") return null;
  const chosen = row.suggestions[decision.suggestion ?? 0];
  return chosen && !(row.best && sameSuggestion(chosen, row.best)) ? chosen.text : null;
}

function decisionCell(row) {
  const text = decidedText(row);
  return [
    decisionBadge(row.decision.state),
    text ? h("p", { class: "suggestion-text decision-answer" }, text) : null,
  ];
}

/** A button that sends `body` as the row's decision. */
function actionButton(view, row, label, ariaLabel, body, className = "btn-secondary") {
  const button = h("button", {
    type: "button",
    class: `btn ${className} btn-small`,
    "aria-label": ariaLabel,
  }, label);
  button.addEventListener("click", () =>
    runButton(button, view.messages, async () => {
      const saved = await view.app.api.patch(rowPath(view, row), body);
      await updateRow(view, row, saved.row, `${rowName(row)}: ${DONE[body.state]}`);
    }));
  return button;
}

const rowPath = (view, row, rest = "") =>
  questionnairePath(
    view.organization.id,
    view.questionnaire.id,
    `/rows/${encodeURIComponent(row.key)}${rest}`,
  );

/** Opens `content` under the row (or closes it when it is open), tied to `button`. */
function toggleDetail(button, id, build) {
  const open = document.getElementById(id);
  if (open) {
    open.remove();
    button.setAttribute("aria-expanded", "false");
    return;
  }
  button.closest("tr").after(detailRow(id, COLUMNS, build()));
  button.setAttribute("aria-expanded", "true");
  document.getElementById(id).querySelector("textarea, input, select")?.focus();
}

function editForm(view, row, close) {
  const errorSlot = h("div", { class: "form-errors" });
  const text = row.decision.answer ?? row.best?.text ?? "";
  const form = h(
    "form",
    { class: "form", "aria-label": `Edit the answer to ${rowName(row)}` },
    field(
      `Answer to ${rowName(row)}`,
      h("textarea", { name: "answer", rows: "5", required: true, maxlength: "10000" }, text),
      "Written into the answer column as typed.",
    ),
    errorSlot,
    h(
      "div",
      { class: "form-actions" },
      h("button", { type: "submit", class: "btn btn-primary" }, "Save edit"),
      h("button", { type: "button", class: "btn btn-secondary", on: { click: close } }, "Cancel"),
    ),
  );
  form.addEventListener("keydown", (event) => {
    if (event.key === "Escape") close();
  });
  handleSubmit(form, errorSlot, async (data) => {
    const saved = await view.app.api.patch(rowPath(view, row), {
      state: "edited",
      answer: String(data.get("answer") ?? ""),
    });
    await updateRow(view, row, saved.row, `${rowName(row)}: edited`);
  });
  return form;
}

function saveForm(view, row) {
  const errorSlot = h("div", { class: "form-errors" });
  const form = h(
    "form",
    { class: "form", "aria-label": `Save the answer to ${rowName(row)} to the knowledge base` },
    h(
      "p",
      { class: "hint" },
      row.questionId
        ? `The answer is added to the knowledge base with the id ${row.questionId} learned, so the next questionnaire asking it matches by id.`
        : "The answer is added to the knowledge base under this question.",
    ),
    h(
      "div",
      { class: "form-row" },
      field(
        "Category",
        h("input", { name: "category", required: true, maxlength: "80" }),
      ),
      field(
        "Visibility",
        h(
          "select",
          { name: "visibility" },
          h("option", { value: "restricted" }, "Restricted (after an approved access request)"),
          h("option", { value: "public" }, "Public"),
        ),
      ),
    ),
    errorSlot,
    h(
      "div",
      { class: "form-actions" },
      h("button", { type: "submit", class: "btn btn-primary" }, "Save to knowledge base"),
    ),
  );
  handleSubmit(form, errorSlot, async (data) => {
    const { answer } = await view.app.api.post(rowPath(view, row, "/save-answer"), {
      category: String(data.get("category") ?? "").trim(),
      visibility: String(data.get("visibility")),
    });
    replace(
      form,
      h(
        "p",
        { class: "alert alert-success", role: "status" },
        `Saved to the knowledge base: “${answer.question}”. `,
        h("a", { href: href.answers(view.organization.id) }, "See the answers"),
      ),
    );
  });
  return form;
}

function actionsCell(view, row) {
  const name = rowName(row);
  const { state } = row.decision;
  const buttons = [];
  if (row.best && state !== "accepted") {
    buttons.push(
      actionButton(
        view,
        row,
        "Accept",
        `Accept the suggestion for ${name}`,
        { state: "accepted" },
        "btn-primary",
      ),
    );
  }
  const editId = domId("edit", row);
  const edit = h("button", {
    type: "button",
    class: "btn btn-secondary btn-small",
    "aria-label": `Edit the answer to ${name}`,
    "aria-expanded": "false",
    "aria-controls": editId,
  }, "Edit");
  const close = () => {
    document.getElementById(editId)?.remove();
    edit.setAttribute("aria-expanded", "false");
    edit.focus();
  };
  edit.addEventListener(
    "click",
    () => toggleDetail(edit, editId, () => editForm(view, row, close)),
  );
  buttons.push(edit);
  if (state !== "rejected") {
    buttons.push(
      actionButton(view, row, "Reject", `Reject the answer to ${name}`, { state: "rejected" }),
    );
  }
  if (state !== "pending") {
    buttons.push(
      actionButton(view, row, "Undo", `Undo the decision on ${name}`, { state: "pending" }),
    );
  }
  // Saving into the knowledge base writes answers, which owners do (members review).
  if ((state === "accepted" || state === "edited") && view.organization.role === "owner") {
    const saveId = domId("save", row);
    const save = h("button", {
      type: "button",
      class: "btn btn-secondary btn-small",
      "aria-label": `Save to knowledge base: the answer to ${name}`,
      "aria-expanded": "false",
      "aria-controls": saveId,
    }, "Save to knowledge base");
    save.addEventListener("click", () => toggleDetail(save, saveId, () => saveForm(view, row)));
    buttons.push(save);
  }
  return h("div", { class: "row-actions" }, buttons);
}

function questionCell(view, row) {
  const flags = view.flagged.get(row.key) ?? [];
  return h(
    "div",
    { class: "cell-name" },
    row.questionId ? h("code", {}, row.questionId) : h("span", { class: "muted" }, "No id"),
    h("span", { class: "cell-primary question-text" }, row.question),
    h("span", { class: "cell-sub" }, `${row.sheet}, row ${row.row}`),
    row.existingAnswer
      ? h("span", { class: "cell-sub" }, `In the buyer's file: ${row.existingAnswer}`)
      : null,
    flags.map((title) =>
      h("span", { class: "badge badge-warning badge-wrap" }, icon("warning"), title)
    ),
  );
}

function columns(view) {
  return [
    { label: "Question", cell: (row) => questionCell(view, row) },
    { label: "Best suggestion", cell: (row) => suggestionCell(view, row) },
    { label: "Decision", cell: decisionCell },
    { label: "Actions", cell: (row) => actionsCell(view, row), className: "cell-actions" },
  ];
}

const rowId = (row) => row.key;

/**
 * Puts `updated` where `row` was (its open editors close), refreshes the coverage and
 * announces `message`; focus goes to the new row's first action.
 */
async function updateRow(view, row, updated, message) {
  const old = view.table?.querySelector(`tr[data-id="${CSS.escape(row.key)}"]`);
  if (old) {
    for (const prefix of ["edit", "save"]) document.getElementById(domId(prefix, row))?.remove();
    const next = tableRow(columns(view), updated ?? row, { rowId });
    old.replaceWith(next);
    next.querySelector(".row-actions button")?.focus();
  }
  replace(view.status, message);
  await view.onChange();
}

function rowsPath(view, cursor) {
  const query = new URLSearchParams({ limit: String(PAGE_SIZE), status: view.filter });
  if (cursor) query.set("cursor", cursor);
  return questionnairePath(view.organization.id, view.questionnaire.id, `/rows?${query}`);
}

function moreButton(view, cursor) {
  if (!cursor) return null;
  const button = h("button", {
    type: "button",
    class: "btn btn-secondary",
    on: {
      click: () =>
        runButton(button, view.messages, async () => {
          const page = await view.app.api.get(rowsPath(view, cursor));
          view.table.querySelector("tbody").append(
            ...page.rows.map((row) => tableRow(columns(view), row, { rowId })),
          );
          view.shown += page.rows.length;
          replace(view.count, `${plural(view.shown, "row")} shown`);
          replace(view.more, moreButton(view, page.nextCursor));
        }),
    },
  }, "More rows");
  return button;
}

/** Loads the first page of rows with the chosen status. */
async function load(view) {
  const page = await view.app.api.get(rowsPath(view));
  view.shown = page.rows.length;
  view.table = page.rows.length
    ? dataTable("Questions and their suggested answers", columns(view), page.rows, {
      rowId,
      className: "review-table",
    })
    : null;
  replace(
    view.list,
    view.table ??
      emptyState(
        "No rows",
        view.filter === "all" ? "This questionnaire has no questions." : "No row has this status.",
      ),
  );
  replace(view.count, page.rows.length ? `${plural(view.shown, "row")} shown` : "");
  replace(view.more, moreButton(view, page.nextCursor));
}

function statusFilter(view) {
  const filter = h(
    "select",
    {
      id: "review-status-filter",
      on: {
        change: async () => {
          view.filter = filter.value;
          replace(view.messages);
          try {
            await load(view);
          } catch (error) {
            replace(view.messages, errorAlert(describeError(error)));
          }
        },
      },
    },
    STATUSES.map(([value, label]) => h("option", { value }, label)),
  );
  return filter;
}

function acceptIdMatches(view) {
  const button = h("button", { type: "button", class: "btn btn-primary" }, "Accept all id matches");
  button.addEventListener("click", () =>
    runButton(button, view.messages, async () => {
      const { accepted } = await view.app.api.post(
        questionnairePath(view.organization.id, view.questionnaire.id, "/accept-id-matches"),
      );
      await load(view);
      replace(
        view.status,
        accepted === 1 ? "1 id match accepted" : `${accepted} id matches accepted`,
      );
      await view.onChange();
    }));
  return button;
}

/**
 * The review card. `onChange()` runs after every decision (the coverage is redrawn from a
 * fresh read of the questionnaire).
 */
export async function reviewCard(app, organization, questionnaire, onChange) {
  const view = {
    app,
    organization,
    questionnaire,
    onChange,
    filter: "all",
    flagged: flaggedRows(questionnaire.flags),
    table: null,
    shown: 0,
    list: h("div", { class: "review-list" }),
    more: h("div", { class: "load-more" }),
    messages: h("div", { class: "form-errors" }),
    status: h("p", { class: "review-status", role: "status" }),
    count: h("p", { class: "hint" }),
  };
  const filter = statusFilter(view);
  await load(view);
  return card(
    "Review",
    [
      h(
        "div",
        { class: "toolbar" },
        h(
          "div",
          { class: "field field-inline" },
          h("label", { for: filter.id }, "Show"),
          filter,
        ),
        view.count,
        acceptIdMatches(view),
      ),
      view.status,
      view.messages,
      view.list,
      view.more,
    ],
    {
      description:
        "Accept a suggestion, edit it, or reject it (the row is exported as “No answer”). An accepted or edited answer can be saved to the knowledge base.",
    },
  );
}
