/**
 * Answers to security questions of an organization: the knowledge base buyers search on the
 * trust center and download for their questionnaires. Owners add, edit and remove answers;
 * members read. Answers show here as their Markdown text (the dashboard never parses HTML).
 */
import { badge, field, h, handleSubmit, replace, successAlert } from "../dom.js";
import { formatDate } from "../format.js";
import { confirmAction, runButton } from "../widgets.js";
import { card, emptyState } from "./layout.js";
import { organizationHeader, trustCenterUrl } from "./organization.js";
import { citableControls, controlPicker, importForm } from "./answer_import.js";

const listPath = (id) => `/organizations/${encodeURIComponent(id)}/answers`;
const QUESTIONNAIRES = ["caiq-v4", "sig", "other"];

/** "caiq-v4 IAM-02.1" per line. */
const refLines = (refs) => refs.map((r) => `${r.questionnaire} ${r.id}`).join("\n");
/** "control <id>" per line. */
const citationLines = (citations) => citations.map((c) => `${c.kind} ${c.id}`).join("\n");

/** Non-empty lines as `[first word, rest]`. */
function pairs(text) {
  return String(text).split("\n").map((l) => l.trim()).filter(Boolean).map((line) => {
    const [first, ...rest] = line.split(/\s+/);
    return [first.toLowerCase(), rest.join(" ")];
  });
}

function answerFields(answer, controls = []) {
  const citations = h(
    "textarea",
    { name: "citations", rows: "3", spellcheck: "false" },
    citationLines(answer?.citations ?? []),
  );
  return [
    field(
      "Question",
      h(
        "textarea",
        { name: "question", required: true, rows: "2", maxlength: "1000" },
        answer?.question ?? "",
      ),
    ),
    field(
      "Answer (Markdown)",
      h(
        "textarea",
        { name: "answer", required: true, rows: "6", maxlength: "10000" },
        answer?.answer ?? "",
      ),
      "Markdown: **bold**, lists, links (http, https and mailto only). HTML shows as text.",
    ),
    field(
      "Category",
      h("input", {
        name: "category",
        required: true,
        maxlength: "80",
        value: answer?.category ?? "",
      }),
    ),
    field(
      "Visibility",
      h(
        "select",
        { name: "visibility" },
        h("option", { value: "public", selected: answer?.visibility !== "restricted" }, "Public"),
        h(
          "option",
          { value: "restricted", selected: answer?.visibility === "restricted" },
          "Restricted (after an approved access request)",
        ),
      ),
    ),
    field(
      "Questionnaire ids, one per line",
      h(
        "textarea",
        { name: "refs", rows: "3", spellcheck: "false" },
        refLines(answer?.questionnaireRefs ?? []),
      ),
      `The questionnaire (${
        QUESTIONNAIRES.join(", ")
      }) and the question id, e.g. “caiq-v4 IAM-02.1” or “sig A.1”.`,
    ),
    controlPicker(controls, citations),
    field(
      "Citations, one per line",
      citations,
      "The kind (control, document, certification) and the id, e.g. “document 3f1c9a52-…”. Controls and documents must be the organization's: pick a control above.",
    ),
  ];
}

function formBody(data) {
  return {
    // A question is one line: line breaks pasted from a questionnaire become spaces.
    question: String(data.get("question")).replace(/\s*[\r\n]+\s*/g, " ").trim(),
    answer: String(data.get("answer")),
    category: String(data.get("category")).trim(),
    visibility: data.get("visibility"),
    questionnaireRefs: pairs(data.get("refs")).map(([questionnaire, id]) => ({
      questionnaire,
      id,
    })),
    citations: pairs(data.get("citations")).map(([kind, id]) => ({ kind, id })),
  };
}

function answerForm(app, organization, answer, onSaved, controls = []) {
  const errorSlot = h("div", { class: "form-errors" });
  const form = h(
    "form",
    { class: "form", "aria-label": answer ? `Edit ${answer.question}` : "New answer" },
    answerFields(answer, controls),
    errorSlot,
    h(
      "div",
      { class: "form-actions" },
      h(
        "button",
        { type: "submit", class: "btn btn-primary" },
        answer ? "Save answer" : "Add answer",
      ),
    ),
  );
  handleSubmit(form, errorSlot, async (data) => {
    const path = answer
      ? `${listPath(organization.id)}/${encodeURIComponent(answer.id)}`
      : listPath(organization.id);
    const body = formBody(data);
    const saved = answer ? await app.api.patch(path, body) : await app.api.post(path, body);
    if (!answer) form.reset();
    await onSaved(`“${saved.answer.question}” ${answer ? "saved" : "added"}`);
  });
  return form;
}

/** An answer's citations, controls named (with their id, which the form asks for). */
function citationList(answer, controls) {
  if (answer.citations.length === 0) return null;
  const names = new Map(controls.map((c) => [c.id, c.label]));
  return h(
    "ul",
    { class: "update-meta", "aria-label": "Citations" },
    ...answer.citations.map((c) =>
      h(
        "li",
        {},
        c.kind === "control" && names.has(c.id)
          ? `Control: ${names.get(c.id)} — ${c.id}`
          : `${c.kind[0].toUpperCase()}${c.kind.slice(1)}: ${c.id}`,
      )
    ),
  );
}

function answerItem(app, organization, answer, { reload, messages, controls }) {
  const isOwner = organization.role === "owner";
  const headingId = `answer-${answer.id}`;
  const refs = answer.questionnaireRefs.map((r) => `${r.questionnaire} ${r.id}`).join(", ");
  return h(
    "article",
    { class: "update", "aria-labelledby": headingId },
    h(
      "div",
      { class: "update-head" },
      h("h3", { id: headingId }, answer.question),
      badge(answer.category, "info"),
      answer.visibility === "restricted" ? badge("Restricted", "warning", "lock") : null,
      isOwner
        ? h(
          "div",
          { class: "row-actions" },
          confirmAction({
            label: "Delete",
            ariaLabel: `Delete ${answer.question}`,
            question: `Delete the answer to “${answer.question}”?`,
            errorSlot: messages,
            run: async () => {
              await app.api.delete(`${listPath(organization.id)}/${encodeURIComponent(answer.id)}`);
              await reload(`“${answer.question}” deleted`);
            },
          }),
        )
        : null,
    ),
    h(
      "p",
      { class: "update-meta" },
      `Updated ${formatDate(answer.updatedAt, true)} by ${answer.updatedBy.email ?? "an owner"}`,
      refs ? ` · ${refs}` : "",
      answer.aliases?.length
        ? ` · also asked as: ${answer.aliases.map((a) => `“${a.text}”`).join(", ")}`
        : "",
    ),
    h("p", { class: "update-body" }, answer.answer),
    citationList(answer, controls),
    isOwner
      ? h(
        "details",
        { class: "disclosure" },
        h("summary", {}, "Edit"),
        answerForm(app, organization, answer, reload, controls),
      )
      : null,
  );
}

export async function answersView(app, organizationId) {
  const organization = await app.requireOrganization(organizationId);
  app.setTitle("Answers", organization.name);
  const isOwner = organization.role === "owner";
  const listSlot = h("div", { class: "update-list" });
  const messages = h("div", { class: "form-errors" });
  const more = h("div", {});
  // The controls to cite, by name (owners write citations); a failure leaves the id field.
  const controls = isOwner ? await citableControls(app, organization).catch(() => []) : [];
  const items = (answers) =>
    answers.map((a) => answerItem(app, organization, a, { reload, messages, controls }));
  /** The button that appends the page of answers after `cursor`; null when there is none. */
  function moreButton(cursor) {
    if (!cursor) return null;
    const button = h("button", {
      type: "button",
      class: "btn btn-secondary",
      on: {
        click: () =>
          runButton(button, messages, async () => {
            const page = await app.api.get(
              `${listPath(organization.id)}?cursor=${encodeURIComponent(cursor)}`,
            );
            listSlot.append(...items(page.answers));
            replace(more, moreButton(page.nextCursor));
          }),
      },
    }, "More answers");
    return button;
  }
  async function load() {
    const { answers, nextCursor } = await app.api.get(listPath(organization.id));
    replace(
      listSlot,
      answers.length === 0
        ? emptyState("No answers yet", "Answer the questions buyers' questionnaires ask most.")
        : items(answers),
    );
    replace(more, moreButton(nextCursor));
  }
  async function reload(message) {
    await load();
    replace(messages, successAlert(message));
  }
  await load();
  const publicPage = `${trustCenterUrl(organization)}/answers`;
  return h(
    "div",
    {},
    organizationHeader(organization, "answers"),
    h(
      "div",
      { class: "layout-split" },
      card("Answers", [messages, listSlot, more], {
        description: [
          "Searchable on the ",
          h("a", { href: publicPage }, "public answers page"),
          " and the trust pages, and downloadable as CSV and XLSX keyed by questionnaire id. Restricted answers open through an approved access request.",
        ],
      }),
      h(
        "div",
        {},
        isOwner
          ? card("Add an answer", answerForm(app, organization, null, reload, controls))
          : card(
            "Add an answer",
            h("p", {}, "Only owners of the organization can change answers."),
          ),
        isOwner
          ? card(
            "Import answered questionnaires",
            importForm(app, organization, () => load()),
          )
          : null,
      ),
    ),
  );
}
