/**
 * The review of a questionnaire's rows, made for hundreds of questions: every row is loaded
 * once (the API's pages followed) into a dense table, one line or two per row, searched and
 * filtered in place (status, score band, sheet, kind of match); the row under review is shown
 * in full beside it (its best suggestion's Markdown rendered, score, why it matched, citations
 * with the control's state, the other suggestions) with its actions. Keyboard shortcuts (listed
 * on screen): j/k next and previous row, a accept, e edit, r reject, u undo, n next row to
 * review, x select, / search. Rows are accepted in bulk by score or by selection. The line
 * of what the answered file holds moves with every decision; the summary's coverage follows.
 * The rows set aside (headings, ignored) are listed with their rule and can be made questions;
 * the row under review can be set aside (set_aside.js).
 */
import { describeError, errorAlert, field, h, handleSubmit, icon, replace } from "../../dom.js";
import { formatRelative, plural } from "../../format.js";
import { markdownLine, renderMarkdown } from "../../markdown.js";
import { href } from "../../routes.js";
import { runButton } from "../../widgets.js";
import { card, emptyState } from "../layout.js";
import { stateBadge } from "../project/state.js";
import { decisionBadge, flaggedRows, questionnairePath } from "./common.js";
import { kindPath, setAsideName, setAsideSection } from "./set_aside.js";

/** Rows per page read from the API (its maximum), and pages read at most (5,000 questions). */
const LOAD_PAGE = 200;
const MAX_LOAD_PAGES = 30;
/** Rows drawn at once in the table; more are drawn as the reviewer goes on. */
const DRAW_STEP = 200;
/** The score from which a suggestion is "high" in the score filter and the bulk accept. */
const HIGH_SCORE = 0.8;
/** How long decisions wait before the summary's coverage is read again (ms). */
const REFRESH_DELAY = 400;

const STATUSES = [
  ["all", "All rows"],
  ["pending", "To review"],
  ["accepted", "Accepted"],
  ["edited", "Edited"],
  ["rejected", "Rejected"],
  ["unanswered", "No answer found"],
];
const BANDS = [
  ["all", "Any score"],
  ["high", `High (${HIGH_SCORE.toFixed(2)} and up)`],
  ["medium", `Medium (below ${HIGH_SCORE.toFixed(2)})`],
  ["low", "Below the threshold"],
  ["none", "None"],
];
const KINDS = [
  ["all", "Any match"],
  ["id", "By question id"],
  ["text", "By text"],
  ["none", "No match"],
];
const SHORTCUTS = [
  [["j", "k"], "next, previous row"],
  [["a"], "accept"],
  [["e"], "edit"],
  [["r"], "reject"],
  [["u"], "undo"],
  [["n"], "next to review"],
  [["x"], "select"],
  [["A"], "accept selected"],
  [["b"], "accept by score"],
  [["/"], "search"],
  [["Esc"], "back to the rows"],
];

/** What a decision did, for the announcement after it. */
const DONE = {
  accepted: "accepted",
  edited: "edited",
  rejected: "rejected",
  pending: "back to review",
};

/** How a row is named to assistive technology and in messages. */
export const rowName = (row) => row.questionId ?? `row ${row.row} of “${row.sheet}”`;

/**
 * "matched by id IAM-02.1", "shared terms: encryption, rest", and when the lead over the next
 * suggestion raised the score, "; 1.73 times the next suggestion's score".
 */
function reasonText(suggestion) {
  if ("questionnaireId" in suggestion.reason) {
    return `matched by id ${suggestion.reason.questionnaireId}`;
  }
  const lead = suggestion.reason.lead;
  return `shared terms: ${suggestion.reason.terms.join(", ")}` +
    (typeof lead === "number" ? `; ${lead} times the next suggestion's score` : "");
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

/** A suggestion's text (Markdown rendered), score and reason, then its citations. */
function suggestionBody(suggestion) {
  return [
    h("div", { class: "suggestion-text" }, renderMarkdown(suggestion.text)),
    h(
      "p",
      { class: "cell-sub" },
      `Score ${suggestion.score.toFixed(2)} · ${reasonText(suggestion)}`,
    ),
    citationList(suggestion.citations),
  ];
}

const sameSuggestion = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/** The text a decision exports when it is not the best suggestion's: an edit, another one. */
function decidedText(row) {
  const { decision } = row;
  if (decision.state === "edited") return decision.answer;
  if (decision.state !== "accepted") return null;
  const chosen = row.suggestions[decision.suggestion ?? 0];
  return chosen && !(row.best && sameSuggestion(chosen, row.best)) ? chosen.text : null;
}

/** What a row would answer with in the file, for the table's line. */
function answerLine(row) {
  if (row.decision.state === "rejected") {
    return h("span", { class: "muted" }, "“No answer” (rejected)");
  }
  const text = decidedText(row);
  if (text !== null) return markdownLine(text);
  if (row.best) return markdownLine(row.best.text);
  return h(
    "span",
    { class: "muted" },
    row.suggestions.length ? `Below the threshold (${row.suggestions.length})` : "No suggestion",
  );
}

/** "1.00 id", "0.62 text", or "0.31 below" for the best suggestion under the threshold. */
function scoreCell(row) {
  const top = row.best ?? row.suggestions[0];
  if (!top) return h("span", { class: "muted" }, "–");
  const kind = row.best ? row.best.by : "below";
  return h(
    "span",
    { class: `score score-${kind}` },
    top.score.toFixed(2),
    h("span", { class: "score-kind" }, ` ${kind}`),
  );
}

// ---------------------------------------------------------------------------------------------
// Filtering

/** Lower-cased words of the search box. */
const searchWords = (query) => query.toLowerCase().split(/\s+/).filter(Boolean);

/** Everything a search looks through for a row. */
function haystack(row) {
  return [
    row.questionId,
    row.question,
    row.sheet,
    row.existingAnswer,
    row.best?.text,
    row.decision.answer,
  ].filter(Boolean).join("\n").toLowerCase();
}

function bandOf(row) {
  if (row.best) return row.best.score >= HIGH_SCORE ? "high" : "medium";
  return row.suggestions.length ? "low" : "none";
}

function matches(view, row) {
  const { status, band, sheet, kind } = view.filter;
  if (
    status === "unanswered" ? row.best !== null : status !== "all" && row.decision.state !== status
  ) {
    return false;
  }
  if (band !== "all" && bandOf(row) !== band) return false;
  if (sheet !== "all" && row.sheet !== sheet) return false;
  if (kind !== "all" && (row.best?.by ?? "none") !== kind) return false;
  const words = view.words;
  if (words.length === 0) return true;
  const text = view.texts.get(row.key) ?? haystack(row);
  view.texts.set(row.key, text);
  return words.every((word) => text.includes(word));
}

// ---------------------------------------------------------------------------------------------
// The table

const domKey = (key) => key.replace(/[^A-Za-z0-9_-]/g, "-");

function tableRowOf(view, row) {
  const current = row.key === view.current;
  const selected = view.selected.has(row.key);
  const name = rowName(row);
  const open = h(
    "button",
    {
      type: "button",
      class: "row-open",
      "data-open": row.key,
      "aria-describedby": `review-decision-${domKey(row.key)}`,
    },
    row.questionId ? h("code", {}, row.questionId) : null,
    row.questionId ? " " : null,
    row.question,
  );
  const box = h("input", {
    type: "checkbox",
    "aria-label": `Select ${name}`,
    "data-select": row.key,
    checked: selected,
  });
  return h(
    "tr",
    {
      "data-key": row.key,
      class: [current ? "is-current" : "", selected ? "is-selected" : ""].join(" ").trim() ||
        null,
      "aria-current": current ? "true" : null,
    },
    h("td", { class: "col-select" }, box),
    h("td", { class: "col-question" }, h("div", { class: "clamp" }, open)),
    h("td", { class: "col-answer" }, h("div", { class: "clamp" }, answerLine(row))),
    h("td", { class: "col-score" }, scoreCell(row)),
    h(
      "td",
      { class: "col-decision", id: `review-decision-${domKey(row.key)}` },
      decisionBadge(row.decision.state),
    ),
  );
}

function drawTable(view) {
  const shown = view.visible.slice(0, view.drawn);
  if (view.visible.length === 0) {
    replace(
      view.list,
      emptyState(
        "No rows",
        view.rows.length === 0
          ? "This questionnaire has no questions."
          : "No row matches the search and filters.",
      ),
    );
  } else {
    view.tbody = h("tbody", {}, shown.map((row) => tableRowOf(view, row)));
    replace(
      view.list,
      h(
        "div",
        { class: "review-scroll" },
        h(
          "table",
          { class: "review-grid" },
          h("caption", { class: "visually-hidden" }, "Questions and their suggested answers"),
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              h(
                "th",
                { scope: "col", class: "col-select" },
                h("span", { class: "visually-hidden" }, "Selected"),
              ),
              h("th", { scope: "col" }, "Question"),
              h("th", { scope: "col" }, "Answer in the file"),
              h("th", { scope: "col", class: "col-score" }, "Score"),
              h("th", { scope: "col", class: "col-decision" }, "Decision"),
            ),
          ),
          view.tbody,
        ),
      ),
    );
  }
  const rest = view.visible.length - shown.length;
  replace(
    view.more,
    rest > 0
      ? h("button", {
        type: "button",
        class: "btn btn-secondary",
        on: {
          click: () => {
            view.drawn += DRAW_STEP;
            drawTable(view);
          },
        },
      }, `Show ${Math.min(rest, DRAW_STEP)} more rows`)
      : null,
  );
  replace(
    view.count,
    view.visible.length === view.rows.length
      ? `${plural(view.rows.length, "row")}`
      : `${view.visible.length} of ${plural(view.rows.length, "row")} match`,
  );
}

/** Redraws one row of the table (after a decision or a selection). */
function redrawRow(view, key) {
  const old = view.tbody?.querySelector(`tr[data-key="${CSS.escape(key)}"]`);
  const row = view.byKey.get(key);
  if (old && row) old.replaceWith(tableRowOf(view, row));
}

/** Applies the search and filters; the current row stays if it still matches. */
function applyFilters(view) {
  view.words = searchWords(view.filter.query);
  view.visible = view.rows.filter((row) => matches(view, row));
  view.drawn = DRAW_STEP;
  if (!view.visible.some((row) => row.key === view.current)) {
    view.current = view.visible[0]?.key ?? null;
  }
  drawTable(view);
  drawDetail(view);
  drawBulk(view);
}

// ---------------------------------------------------------------------------------------------
// Moving through the rows

const indexOfCurrent = (view) => view.visible.findIndex((row) => row.key === view.current);

/** Makes `key` the row under review: highlighted, scrolled into view, shown in full. */
function setCurrent(view, key, { focus = true } = {}) {
  const before = view.current;
  view.current = key;
  const index = indexOfCurrent(view);
  if (index >= view.drawn) {
    view.drawn = index + DRAW_STEP;
    drawTable(view);
  } else {
    if (before) redrawRow(view, before);
    if (key) redrawRow(view, key);
  }
  drawDetail(view);
  const tr = key ? view.tbody?.querySelector(`tr[data-key="${CSS.escape(key)}"]`) : null;
  if (tr) {
    tr.scrollIntoView({ block: "nearest" });
    if (focus) tr.querySelector(".row-open")?.focus({ preventScroll: true });
  }
}

function move(view, step) {
  if (view.visible.length === 0) return;
  const index = indexOfCurrent(view);
  const next = Math.min(view.visible.length - 1, Math.max(0, index + step));
  setCurrent(view, view.visible[next].key);
}

/** The next row still to review after the current one (wrapping), or null. */
function nextPending(view, { after = view.current } = {}) {
  const start = view.visible.findIndex((row) => row.key === after);
  for (let i = 1; i <= view.visible.length; i++) {
    const row = view.visible[(start + i) % view.visible.length];
    if (row.decision.state === "pending") return row;
  }
  return null;
}

function goToNextPending(view) {
  const row = nextPending(view);
  if (!row) {
    announce(view, "No row left to review in this list");
    return;
  }
  setCurrent(view, row.key);
  announce(view, `Next to review: ${rowName(row)}`);
}

function announce(view, message) {
  replace(view.status, message);
}

// ---------------------------------------------------------------------------------------------
// Decisions

const rowPath = (view, row, rest = "") =>
  questionnairePath(
    view.organization.id,
    view.questionnaire.id,
    `/rows/${encodeURIComponent(row.key)}${rest}`,
  );

/** Puts the saved row in place, redraws it, and counts it in the progress line. */
function storeRow(view, saved) {
  const index = view.rows.findIndex((row) => row.key === saved.key);
  if (index >= 0) view.rows[index] = saved;
  const shown = view.visible.findIndex((row) => row.key === saved.key);
  if (shown >= 0) view.visible[shown] = saved;
  view.byKey.set(saved.key, saved);
  view.texts.delete(saved.key);
  redrawRow(view, saved.key);
  drawProgress(view);
  scheduleRefresh(view);
}

/**
 * Sends `body` as the row's decision. With `advance`, the next row to review becomes current
 * (the keyboard's way through a questionnaire); otherwise the focus stays in the detail.
 */
async function decide(view, row, body, { advance = false } = {}) {
  replace(view.messages);
  try {
    const saved = await view.app.api.patch(rowPath(view, row), body);
    storeRow(view, saved.row);
    const done = `${rowName(row)}: ${DONE[body.state]}`;
    if (advance) {
      const next = nextPending(view, { after: row.key });
      if (next && next.key !== row.key) {
        setCurrent(view, next.key);
        announce(view, `${done}. Next: ${rowName(next)}`);
        return;
      }
    }
    drawDetail(view);
    announce(view, done);
    if (!advance) view.detail.querySelector(".detail-actions button")?.focus();
    else view.tbody?.querySelector(`tr[data-key="${CSS.escape(row.key)}"] .row-open`)?.focus();
  } catch (error) {
    replace(view.messages, errorAlert(describeError(error)));
  }
}

/** The current row's accept (its best suggestion), by the keyboard. */
function acceptCurrent(view) {
  const row = view.byKey.get(view.current);
  if (!row) return;
  if (!row.best) {
    announce(
      view,
      `${rowName(row)}: no suggestion reaches the threshold; edit it (e) or choose one below it`,
    );
    return;
  }
  return decide(view, row, { state: "accepted" }, { advance: true });
}

function keyedDecision(view, state) {
  const row = view.byKey.get(view.current);
  if (!row) return;
  if (state === "pending" && row.decision.state === "pending") {
    announce(view, `${rowName(row)} is already to review`);
    return;
  }
  return decide(view, row, { state }, { advance: state !== "pending" });
}

function toggleSelected(view, key) {
  if (!key) return;
  if (view.selected.has(key)) view.selected.delete(key);
  else view.selected.add(key);
  redrawRow(view, key);
  drawBulk(view);
}

// ---------------------------------------------------------------------------------------------
// The row under review

function actionButton(view, row, label, ariaLabel, body, className = "btn-secondary") {
  const button = h("button", {
    type: "button",
    class: `btn ${className} btn-small`,
    "aria-label": ariaLabel,
  }, label);
  button.addEventListener(
    "click",
    () => runButton(button, view.messages, () => decide(view, row, body)),
  );
  return button;
}

/** The other suggestions (or those below the threshold), each with "Use this one". */
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
            { state: "accepted", suggestion: index },
          ),
        )
      ),
    ),
  );
}

function editForm(view, row) {
  const errorSlot = h("div", { class: "form-errors" });
  // What the file would get now: the edit, the suggestion chosen, else the best one.
  const text = decidedText(row) ?? row.best?.text ?? "";
  const close = () => {
    replace(view.editor);
    view.detail.querySelector("[data-action=edit]")?.focus();
  };
  const form = h(
    "form",
    { class: "form", "aria-label": `Edit the answer to ${rowName(row)}` },
    field(
      `Answer to ${rowName(row)}`,
      h("textarea", { name: "answer", rows: "6", required: true, maxlength: "10000" }, text),
      "Markdown, written into the answer column as plain text. Ctrl+Enter saves, Escape cancels.",
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
    if (event.key === "Escape") {
      event.preventDefault();
      close();
    } else if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  handleSubmit(form, errorSlot, async (data) => {
    replace(view.editor);
    await decide(view, row, { state: "edited", answer: String(data.get("answer") ?? "") }, {
      advance: view.editAdvances,
    });
  });
  return form;
}

function openEditor(view, { advance = false } = {}) {
  const row = view.byKey.get(view.current);
  if (!row) return;
  view.editAdvances = advance;
  replace(view.editor, editForm(view, row));
  view.editor.querySelector("textarea")?.focus();
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
      field("Category", h("input", { name: "category", required: true, maxlength: "80" })),
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

function detailActions(view, row) {
  const name = rowName(row);
  const { state } = row.decision;
  const buttons = [];
  if (row.best && state !== "accepted") {
    buttons.push(
      actionButton(view, row, "Accept", `Accept the suggestion for ${name}`, {
        state: "accepted",
      }, "btn-primary"),
    );
  }
  buttons.push(
    h("button", {
      type: "button",
      class: "btn btn-secondary btn-small",
      "data-action": "edit",
      "aria-label": `Edit the answer to ${name}`,
      on: { click: () => openEditor(view) },
    }, "Edit"),
  );
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
    const save = h("button", {
      type: "button",
      class: "btn btn-secondary btn-small",
      "aria-label": `Save to knowledge base: the answer to ${name}`,
      "aria-expanded": "false",
    }, "Save to knowledge base");
    save.addEventListener("click", () => {
      const open = save.getAttribute("aria-expanded") === "true";
      save.setAttribute("aria-expanded", open ? "false" : "true");
      replace(view.editor, open ? null : saveForm(view, row));
      view.editor.querySelector("input")?.focus();
    });
    buttons.push(save);
  }
  return h("div", { class: "row-actions detail-actions" }, buttons);
}

/** Sets the row under review aside as a heading or an ignored row (read again by the service). */
function notAQuestion(view, row) {
  const name = rowName(row);
  const choice = (kind, label) => {
    const button = h("button", {
      type: "button",
      class: "btn btn-secondary btn-small",
      "aria-label": `${label}: ${name}`,
    }, label);
    button.addEventListener("click", () =>
      runButton(button, view.messages, async () => {
        const next = view.visible[indexOfCurrent(view) + 1]?.key ?? null;
        const { questionnaire } = await view.app.api.put(
          kindPath(view.organization.id, view.questionnaire.id, row.key),
          { kind },
        );
        await reclassified(view, questionnaire, next);
        announce(
          view,
          `${name} set aside as ${kind === "heading" ? "a heading" : "an ignored row"}`,
        );
      }));
    return button;
  };
  return h(
    "details",
    { class: "disclosure not-a-question" },
    h("summary", {}, "Not a question?"),
    h(
      "p",
      { class: "hint" },
      "Set this row aside: it leaves the review and the export, and is listed under “Set aside”, where it can be made a question again.",
    ),
    h(
      "div",
      { class: "row-actions" },
      choice("heading", "Set aside as a heading"),
      choice("ignored", "Ignore this row"),
    ),
  );
}

/**
 * After a row changed kind: the rows read again, the set-aside list and the progress redrawn
 * from the questionnaire the service returned, `current` (when still a row) under review, and
 * the summary's coverage and gaps read again.
 */
async function reclassified(view, questionnaire, current) {
  view.questionnaire = questionnaire;
  view.flagged = flaggedRows(questionnaire.flags);
  await loadRows(view);
  view.setAside.draw(questionnaire.setAside);
  applyFilters(view);
  drawProgress(view);
  if (current && view.visible.some((row) => row.key === current)) {
    setCurrent(view, current);
  }
  clearTimeout(view.refreshTimer);
  await view.onChange();
}

function drawDetail(view) {
  replace(view.editor);
  const row = view.byKey.get(view.current);
  if (!row) {
    replace(view.detail, h("p", { class: "muted" }, "No row chosen."));
    return;
  }
  const flags = view.flagged.get(row.key) ?? [];
  const position = indexOfCurrent(view);
  const decided = decidedText(row);
  replace(
    view.detail,
    h(
      "p",
      { class: "detail-where" },
      row.questionId ? h("code", {}, row.questionId) : h("span", { class: "muted" }, "No id"),
      ` · ${row.sheet}, row ${row.row}`,
      position >= 0 ? ` · ${position + 1} of ${view.visible.length}` : null,
    ),
    h("h3", { class: "detail-question" }, row.question),
    row.existingAnswer
      ? h("p", { class: "cell-sub" }, `In the buyer's file: ${row.existingAnswer}`)
      : null,
    flags.map((title) =>
      h("p", {}, h("span", { class: "badge badge-warning badge-wrap" }, icon("warning"), title))
    ),
    h("p", { class: "detail-decision" }, "Decision: ", decisionBadge(row.decision.state)),
    decided !== null
      ? h(
        "div",
        { class: "decision-answer" },
        h(
          "p",
          { class: "detail-label" },
          row.decision.state === "edited" ? "Your answer" : "Chosen answer",
        ),
        renderMarkdown(decided),
      )
      : null,
    detailActions(view, row),
    notAQuestion(view, row),
    view.editor,
    h("p", { class: "detail-label" }, row.best ? "Best suggestion" : "Suggestion"),
    row.best
      ? suggestionBody(row.best)
      : h("p", { class: "muted" }, "No answer in the knowledge base reaches the threshold."),
    otherSuggestions(view, row),
  );
}

// ---------------------------------------------------------------------------------------------
// Progress, bulk accept and filters

/** What the answered file holds now, moved by every decision. */
function drawProgress(view) {
  const counts = { accepted: 0, edited: 0, rejected: 0, pending: 0 };
  for (const row of view.rows) counts[row.decision.state]++;
  const total = view.rows.length;
  const answered = counts.accepted + counts.edited;
  replace(
    view.progress,
    h("strong", {}, `${answered} of ${total} answered in the file`),
    ` (${counts.accepted} accepted, ${counts.edited} edited) · ${counts.pending} to review · ` +
      `${counts.rejected} rejected`,
  );
  view.progress.style.setProperty(
    "--done",
    total ? `${Math.round((100 * (total - counts.pending)) / total)}%` : "0%",
  );
}

/** The summary's coverage, read again once decisions pause. */
function scheduleRefresh(view) {
  clearTimeout(view.refreshTimer);
  view.refreshTimer = setTimeout(async () => {
    try {
      await view.onChange();
    } catch (error) {
      replace(view.messages, errorAlert(describeError(error)));
    }
  }, REFRESH_DELAY);
}

/** Every row, reading the API's pages (bounded: a file holds at most 5,000 questions). */
async function loadRows(view) {
  const rows = [];
  let cursor = null;
  for (let page = 0; page < MAX_LOAD_PAGES; page++) {
    const query = new URLSearchParams({ limit: String(LOAD_PAGE) });
    if (cursor) query.set("cursor", cursor);
    const body = await view.app.api.get(
      questionnairePath(view.organization.id, view.questionnaire.id, `/rows?${query}`),
    );
    rows.push(...body.rows);
    cursor = body.nextCursor;
    if (!cursor) break;
  }
  view.rows = rows;
  view.byKey = new Map(rows.map((row) => [row.key, row]));
  view.texts = new Map();
  for (const key of [...view.selected]) if (!view.byKey.has(key)) view.selected.delete(key);
}

/** Pending rows a score bulk accept would take. */
const aboveScore = (view, score) =>
  view.rows.filter((row) =>
    row.decision.state === "pending" && row.best && row.best.score >= score
  );

async function bulkAccept(view, button, body, what) {
  await runButton(button, view.messages, async () => {
    const { accepted } = await view.app.api.post(
      questionnairePath(view.organization.id, view.questionnaire.id, "/accept-rows"),
      body,
    );
    await loadRows(view);
    if (body.keys) view.selected.clear();
    applyFilters(view);
    drawProgress(view);
    announce(view, `${plural(accepted, "row")} accepted ${what}`);
    scheduleRefresh(view);
  });
}

function drawBulk(view) {
  const score = Number(view.scoreInput.value);
  const valid = view.scoreInput.value !== "" && score >= 0 && score <= 1;
  const count = valid ? aboveScore(view, score).length : 0;
  view.scoreButton.disabled = !valid || count === 0;
  replace(view.scoreButton, valid ? `Accept ${plural(count, "row")}` : "Accept");
  const chosen = [...view.selected].filter((key) => view.byKey.get(key)?.best).length;
  view.selectedButton.disabled = chosen === 0;
  replace(view.selectedButton, `Accept selected (${view.selected.size})`);
  view.clearButton.disabled = view.selected.size === 0;
}

function bulkBar(view) {
  view.scoreInput = h("input", {
    id: "review-min-score",
    type: "number",
    min: "0",
    max: "1",
    step: "0.05",
    value: HIGH_SCORE.toFixed(2),
    class: "input-score",
    on: { input: () => drawBulk(view) },
  });
  view.scoreButton = h("button", { type: "button", class: "btn btn-primary btn-small" }, "Accept");
  view.scoreButton.addEventListener("click", () =>
    bulkAccept(
      view,
      view.scoreButton,
      { minScore: Number(view.scoreInput.value) },
      `scoring at least ${Number(view.scoreInput.value).toFixed(2)}`,
    ));
  const scoreForm = h(
    "form",
    {
      class: "bulk-score",
      "aria-label": "Accept by score",
      on: {
        submit: (event) => {
          event.preventDefault();
          if (!view.scoreButton.disabled) view.scoreButton.click();
        },
      },
    },
    h("label", { for: view.scoreInput.id }, "Accept every row to review scoring at least"),
    view.scoreInput,
    view.scoreButton,
  );
  view.selectedButton = h("button", { type: "button", class: "btn btn-secondary btn-small" });
  view.selectedButton.addEventListener(
    "click",
    () => bulkAccept(view, view.selectedButton, { keys: [...view.selected] }, "from the selection"),
  );
  const selectShown = h("button", {
    type: "button",
    class: "btn btn-secondary btn-small",
    on: {
      click: () => {
        for (const row of view.visible) view.selected.add(row.key);
        drawTable(view);
        drawBulk(view);
        announce(view, `${plural(view.selected.size, "row")} selected`);
      },
    },
  }, "Select the rows shown");
  view.clearButton = h("button", {
    type: "button",
    class: "btn btn-secondary btn-small",
    on: {
      click: () => {
        view.selected.clear();
        drawTable(view);
        drawBulk(view);
        announce(view, "Selection cleared");
      },
    },
  }, "Clear selection");
  const idMatches = h(
    "button",
    { type: "button", class: "btn btn-secondary btn-small" },
    "Accept all id matches",
  );
  idMatches.addEventListener("click", () =>
    runButton(idMatches, view.messages, async () => {
      const { accepted } = await view.app.api.post(
        questionnairePath(view.organization.id, view.questionnaire.id, "/accept-id-matches"),
      );
      await loadRows(view);
      applyFilters(view);
      drawProgress(view);
      announce(view, accepted === 1 ? "1 id match accepted" : `${accepted} id matches accepted`);
      scheduleRefresh(view);
    }));
  return h(
    "div",
    { class: "bulk-bar" },
    scoreForm,
    h(
      "div",
      { class: "bulk-selection" },
      view.selectedButton,
      selectShown,
      view.clearButton,
      idMatches,
    ),
  );
}

function selectFilter(view, id, label, name, options) {
  const select = h(
    "select",
    {
      id,
      on: {
        change: () => {
          view.filter[name] = select.value;
          applyFilters(view);
        },
      },
    },
    options.map(([value, text]) => h("option", { value }, text)),
  );
  return h("div", { class: "field field-inline" }, h("label", { for: id }, label), select);
}

function filterBar(view) {
  view.search = h("input", {
    id: "review-search",
    type: "search",
    placeholder: "Words, an id…",
    autocomplete: "off",
    on: {
      input: () => {
        clearTimeout(view.searchTimer);
        view.searchTimer = setTimeout(() => {
          view.filter.query = view.search.value;
          applyFilters(view);
        }, 120);
      },
      keydown: (event) => {
        if (event.key === "Enter") {
          event.preventDefault();
          clearTimeout(view.searchTimer);
          view.filter.query = view.search.value;
          applyFilters(view);
          if (view.current) setCurrent(view, view.current);
        }
      },
    },
  });
  const sheets = [...new Set(view.rows.map((row) => row.sheet))];
  return h(
    "div",
    { class: "filter-bar" },
    h(
      "div",
      { class: "field field-inline field-search" },
      h("label", { for: "review-search" }, "Search"),
      view.search,
    ),
    selectFilter(view, "review-status-filter", "Show", "status", STATUSES),
    selectFilter(view, "review-band-filter", "Score", "band", BANDS),
    sheets.length > 1
      ? selectFilter(view, "review-sheet-filter", "Sheet", "sheet", [
        ["all", "Every sheet"],
        ...sheets.map((sheet) => [sheet, sheet]),
      ])
      : null,
    selectFilter(view, "review-kind-filter", "Match", "kind", KINDS),
  );
}

function legend() {
  return h(
    "div",
    { class: "shortcut-legend" },
    h("span", { class: "legend-title" }, "Keys:"),
    h(
      "ul",
      { class: "shortcut-list", "aria-label": "Keyboard shortcuts" },
      SHORTCUTS.map(([keys, what]) =>
        h(
          "li",
          {},
          keys.flatMap((key, i) => [i ? " " : null, h("kbd", {}, key)]),
          ` ${what}`,
        )
      ),
    ),
  );
}

/** True when a key typed there is text, not a shortcut. */
function typing(target) {
  return target instanceof Element &&
    (target.closest("input, textarea, select, [contenteditable]") !== null);
}

function onKey(view, event) {
  if (!view.root.isConnected) {
    document.removeEventListener("keydown", view.keyListener);
    return;
  }
  if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
  // Escape leaves the search and score fields for the row under review.
  if (
    event.key === "Escape" && (event.target === view.search || event.target === view.scoreInput)
  ) {
    event.preventDefault();
    if (view.current) setCurrent(view, view.current);
    return;
  }
  if (typing(event.target)) return;
  // A dialog or another form elsewhere keeps its own keys.
  if (
    event.target instanceof Element && event.target.closest("form") &&
    !view.root.contains(event.target)
  ) {
    return;
  }
  const actions = {
    j: () => move(view, 1),
    k: () => move(view, -1),
    a: () => acceptCurrent(view),
    e: () => openEditor(view, { advance: true }),
    r: () => keyedDecision(view, "rejected"),
    u: () => keyedDecision(view, "pending"),
    n: () => goToNextPending(view),
    x: () => toggleSelected(view, view.current),
    A: () => {
      if (view.selected.size === 0) announce(view, "No row is selected (x selects one)");
      else view.selectedButton.click();
    },
    b: () => {
      view.scoreInput.focus();
      view.scoreInput.select();
    },
    "/": () => view.search.focus(),
  };
  const action = actions[event.key];
  if (!action) return;
  event.preventDefault();
  action();
}

/**
 * The review card. `onChange()` runs once decisions pause (the summary's coverage is redrawn
 * from a fresh read of the questionnaire).
 */
export async function reviewCard(app, organization, questionnaire, onChange) {
  const view = {
    app,
    organization,
    questionnaire,
    onChange,
    filter: { query: "", status: "all", band: "all", sheet: "all", kind: "all" },
    words: [],
    rows: [],
    byKey: new Map(),
    texts: new Map(),
    visible: [],
    drawn: DRAW_STEP,
    current: null,
    selected: new Set(),
    editAdvances: false,
    flagged: flaggedRows(questionnaire.flags),
    tbody: null,
    list: h("div", { class: "review-list" }),
    more: h("div", { class: "load-more" }),
    detail: h("div", { class: "review-detail-body" }),
    editor: h("div", { class: "review-editor" }),
    messages: h("div", { class: "form-errors" }),
    status: h("p", { class: "review-status", role: "status" }),
    progress: h("p", { class: "review-progress" }),
    count: h("p", { class: "hint review-count" }),
  };
  await loadRows(view);
  view.setAside = setAsideSection({
    organizationId: organization.id,
    questionnaireId: questionnaire.id,
    messages: view.messages,
    api: app.api,
    onQuestion: async (row, saved) => {
      await reclassified(view, saved, row.key);
      announce(
        view,
        view.visible.some((shown) => shown.key === row.key)
          ? `${setAsideName(row)} is now a question to review`
          : `${setAsideName(row)} is now a question (hidden by the search or filters)`,
      );
    },
  });
  view.setAside.draw(questionnaire.setAside);
  const bulk = bulkBar(view);
  const filters = filterBar(view);
  view.root = h(
    "div",
    { class: "review" },
    view.progress,
    view.setAside.root,
    filters,
    bulk,
    legend(),
    view.status,
    view.messages,
    h(
      "div",
      { class: "review-split" },
      h(
        "div",
        { class: "review-table-pane" },
        h(
          "div",
          { class: "review-table-head" },
          view.count,
          h("button", {
            type: "button",
            class: "btn btn-secondary btn-small",
            on: { click: () => goToNextPending(view) },
          }, "Next to review"),
        ),
        view.list,
        view.more,
      ),
      h(
        "section",
        { class: "review-detail", "aria-label": "The row under review" },
        view.detail,
      ),
    ),
  );
  view.root.addEventListener("click", (event) => {
    const target = event.target instanceof Element ? event.target : null;
    const select = target?.closest("[data-select]");
    if (select) {
      toggleSelected(view, select.getAttribute("data-select"));
      view.tbody?.querySelector(`[data-select="${CSS.escape(select.getAttribute("data-select"))}"]`)
        ?.focus();
      return;
    }
    const tr = target?.closest(".review-grid tbody tr");
    if (tr && !target.closest("a")) setCurrent(view, tr.getAttribute("data-key"));
  });
  view.keyListener = (event) => onKey(view, event);
  document.addEventListener("keydown", view.keyListener);
  drawProgress(view);
  applyFilters(view);
  return card("Review", view.root, {
    description:
      "Accept a suggestion, edit it, or reject it (the row is exported as “No answer”). Choose a row to see it in full; the keys below work anywhere outside a text field. An accepted or edited answer can be saved to the knowledge base.",
    className: "review-card",
  });
}
