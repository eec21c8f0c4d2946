/**
 * One imported questionnaire: its coverage at a glance and the flags raised on the knowledge
 * base, the review of its rows (questionnaire/review.js), the columns read from each sheet and
 * changeable (questionnaire/columns.js), the gap list, and the export, manifest and sharing
 * (questionnaire/export.js).
 */
import { h, replace } from "../dom.js";
import { formatDate, plural } from "../format.js";
import { href } from "../routes.js";
import { confirmAction, runButton } from "../widgets.js";
import { card, facts } from "./layout.js";
import { organizationHeader } from "./organization.js";
import { columnsForm } from "./questionnaire/columns.js";
import { coverageBlock, flagsBlock, questionnairePath } from "./questionnaire/common.js";
import { exportContent, gapsContent } from "./questionnaire/export.js";
import { reviewCard } from "./questionnaire/review.js";

const ENCODINGS = {
  "utf-8": "UTF-8",
  "utf-16le": "UTF-16 (little-endian)",
  "utf-16be": "UTF-16 (big-endian)",
  "windows-1252": "Windows-1252",
};

function fileFacts(questionnaire) {
  const format = questionnaire.format === "csv"
    ? `CSV, ${ENCODINGS[questionnaire.encoding] ?? questionnaire.encoding}`
    : `XLSX, ${plural(questionnaire.sheets.length, "sheet")}`;
  return facts([
    ["File", format],
    ["Questions", String(questionnaire.coverage.questions)],
    [
      "Imported",
      h("time", { datetime: questionnaire.createdAt }, formatDate(questionnaire.createdAt, true)),
    ],
  ]);
}

/**
 * "Match again": the same columns re-read and every row matched against the knowledge base and
 * the latest published versions as they are now (answers saved since, a new version); decisions
 * on the rows are kept.
 */
function matchAgain(app, organization, questionnaire, messages) {
  const button = h("button", { type: "button", class: "btn" }, "Match again");
  button.addEventListener("click", () =>
    runButton(button, messages, async () => {
      const { questionnaire: saved } = await app.api.patch(
        questionnairePath(organization.id, questionnaire.id),
        { columns: questionnaire.columns },
      );
      app.flash(`“${saved.name}” matched again: ${saved.coverage.text}`);
      await app.rerender();
    }));
  return button;
}

/** The summary card's body: the facts, the coverage, the flags, matching again, and removal. */
function summary(app, organization, questionnaire, messages) {
  return h(
    "div",
    {},
    fileFacts(questionnaire),
    coverageBlock(questionnaire.coverage),
    flagsBlock(questionnaire.flags),
    h(
      "div",
      { class: "form-actions" },
      matchAgain(app, organization, questionnaire, messages),
      confirmAction({
        label: "Delete questionnaire",
        question: `Delete “${questionnaire.name}” and its review?`,
        confirmLabel: "Delete",
        errorSlot: messages,
        run: async () => {
          await app.api.delete(questionnairePath(organization.id, questionnaire.id));
          app.flash(`“${questionnaire.name}” deleted`);
          app.navigate(href.questionnaires(organization.id));
        },
      }),
    ),
  );
}

export async function questionnaireView(app, organizationId, questionnaireId) {
  const organization = await app.requireOrganization(organizationId);
  const path = questionnairePath(organization.id, questionnaireId);
  let { questionnaire } = await app.api.get(path);
  app.setTitle(questionnaire.name, "Questionnaires", organization.name);
  const messages = h("div", { class: "form-errors" });
  const summarySlot = h("div", {});
  const gapsSlot = h("div", {});
  const drawSummary = () =>
    replace(summarySlot, summary(app, organization, questionnaire, messages));
  /** After a decision: the coverage and the gaps from a fresh read. */
  const refresh = async () => {
    ({ questionnaire } = await app.api.get(path));
    drawSummary();
    replace(gapsSlot, await gapsContent(app, organization, questionnaire));
  };
  drawSummary();
  const [review, gaps] = await Promise.all([
    reviewCard(app, organization, questionnaire, refresh),
    gapsContent(app, organization, questionnaire),
  ]);
  replace(gapsSlot, gaps);
  const reread = async (saved) => {
    app.flash(
      `“${saved.name}” re-read with the chosen columns: ${
        plural(saved.coverage.questions, "question")
      }`,
    );
    await app.rerender();
  };
  return h(
    "div",
    { class: "questionnaire-page" },
    organizationHeader(organization, "questionnaires"),
    h(
      "p",
      { class: "back-link" },
      h("a", { href: href.questionnaires(organization.id) }, "All questionnaires"),
    ),
    card(questionnaire.name, [messages, summarySlot], {
      description: "Matched against the knowledge base and the latest published versions.",
      className: "questionnaire-summary",
    }),
    review,
    card("Gaps", gapsSlot, {
      description: "Questions no answer in the knowledge base reaches: write these next.",
    }),
    card("Export", exportContent(app, organization, questionnaire)),
    card("Columns", columnsForm(app, organization, questionnaire, reread), {
      description:
        "Found by their headers; change them when a sheet was read wrong. The file is re-read and matched again; decisions on rows that remain are kept.",
    }),
  );
}
