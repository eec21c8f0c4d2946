/**
 * What the questionnaire views share: the API paths, the coverage sentence ("212 of 261
 * answered from the knowledge base: 180 by id, 32 by text; 49 need an answer"), the flags
 * raised on the knowledge base, and a refused file's message.
 */
import { ApiError } from "../../api.js";
import { badge, h, icon } from "../../dom.js";
import { plural } from "../../format.js";

/** `/organizations/{id}/questionnaires[/{questionnaireId}]` plus `rest`. */
export function questionnairePath(organizationId, questionnaireId, rest = "") {
  const list = `/organizations/${encodeURIComponent(organizationId)}/questionnaires`;
  return questionnaireId ? `${list}/${encodeURIComponent(questionnaireId)}${rest}` : list;
}

/**
 * "212 of 261 answered from the knowledge base: 180 by id, 32 by text; 49 need an answer":
 * the service's own sentence, so every surface words it the same.
 */
export const coverageText = (coverage) => coverage.text;

/** "3 accepted, 1 edited, 1 rejected; 256 to review". */
export function reviewText(coverage) {
  const { accepted, edited, rejected, pending } = coverage;
  return `${accepted} accepted, ${edited} edited, ${rejected} rejected; ${pending} to review`;
}

/**
 * The coverage at a glance: the sentence, the review's progress, and what the answered file
 * holds (moved by every decision; the sentence counts what matching found).
 */
export function coverageBlock(coverage) {
  const done = coverage.needAnswer === 0;
  return h(
    "div",
    { class: `overall coverage ${done ? "overall-success" : "overall-warning"}` },
    h(
      "div",
      { class: "overall-state" },
      h("span", { class: "overall-label" }, "Coverage"),
      h("p", { class: "coverage-text" }, coverageText(coverage)),
    ),
    h(
      "div",
      { class: "overall-meta" },
      h("p", {}, "Review: ", reviewText(coverage)),
      h("p", { class: "answered-in-file" }, answeredText(coverage)),
    ),
  );
}

/** "In the answered file: 213 of 300 questions answered" (accepted and edited rows). */
export function answeredText(coverage) {
  const answered = coverage.accepted + coverage.edited;
  return `In the answered file: ${answered} of ${plural(coverage.questions, "question")} answered`;
}

/** A flag's kind in words. */
const FLAG_TITLES = {
  duplicate_id: "Two answers claim the same question id",
  contradiction: "Answers contradict each other's citations",
};

/** The rows each flag names: row key → the flags' titles. */
export function flaggedRows(flags) {
  const rows = new Map();
  for (const flag of flags ?? []) {
    for (const key of flag.rowKeys ?? []) {
      const title = FLAG_TITLES[flag.kind] ?? "Check the knowledge base";
      rows.set(key, [...new Set([...(rows.get(key) ?? []), title])]);
    }
  }
  return rows;
}

/** One flag: its kind in words, then the service's message. */
function flagItem(flag) {
  const title = FLAG_TITLES[flag.kind] ?? "Check the knowledge base";
  return h("li", {}, h("strong", {}, title), `: ${flag.message}`);
}

/** The flags raised on the knowledge base while matching, or null when there are none. */
export function flagsBlock(flags) {
  if (!flags || flags.length === 0) return null;
  return h(
    "div",
    { class: "alert alert-warning flags", role: "note" },
    h(
      "p",
      { class: "alert-title" },
      icon("warning"),
      ` ${plural(flags.length, "flag")} on the knowledge base`,
    ),
    h("ul", { class: "plain-list" }, flags.map(flagItem)),
  );
}

/** How each review state is shown. */
const DECISIONS = {
  pending: { label: "To review", tone: "neutral", icon: "question" },
  accepted: { label: "Accepted", tone: "success", icon: "check" },
  edited: { label: "Edited", tone: "info", icon: "check" },
  rejected: { label: "Rejected", tone: "danger", icon: "cross" },
};

/** The badge of a row's review state. */
export function decisionBadge(state) {
  const meta = DECISIONS[state] ?? DECISIONS.pending;
  return badge(meta.label, meta.tone, meta.icon);
}

/** What the service said when it refused a file, with what it means for the upload. */
const REFUSALS = {
  413: "The file is over a limit",
  415: "This is not a workbook (.xlsx) or a CSV file",
  422: "No questions could be read from this file",
};

/** An alert for a failed import: a title by status, then the service's own message. */
export function refusalAlert(error) {
  const title = error instanceof ApiError ? REFUSALS[error.status] : null;
  return h(
    "div",
    { class: "alert alert-error refusal", role: "alert" },
    title && h("p", { class: "alert-title" }, `${title} (HTTP ${error.status})`),
    h("p", {}, error?.message || "The upload failed; please try again"),
    title && h("p", {}, "Nothing was stored."),
  );
}
