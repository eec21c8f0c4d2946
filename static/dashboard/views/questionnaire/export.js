/**
 * What leaves a questionnaire: the gap list (questions the knowledge base cannot answer yet,
 * also as CSV), the buyer's own file with the answer and evidence columns filled, the signed
 * manifest beside it, and sharing the answered file with the buyer through the access-link
 * flow of the Documents view.
 */
import { h, replace } from "../../dom.js";
import { href } from "../../routes.js";
import { runButton, saveFile } from "../../widgets.js";
import { dataTable, emptyState } from "../layout.js";
import { questionnairePath } from "./common.js";

/** How many gaps the card lists before pointing at the CSV. */
const SHOWN_GAPS = 10;

/** A file name from the questionnaire's name: letters, digits, spaces, dots and dashes. */
const safeName = (name) => name.replace(/[^\p{L}\p{N} ._-]+/gu, "").trim() || "questionnaire";

/** A button that downloads `path` (`type` in Accept) as `fallbackName` unless the API names it. */
function downloadButton(app, errorSlot, { label, path, type, fallbackName, primary = false }) {
  const button = h("button", {
    type: "button",
    class: `btn ${primary ? "btn-primary" : "btn-secondary"}`,
  }, label);
  button.addEventListener("click", () =>
    runButton(button, errorSlot, async () => {
      const { blob, filename } = await app.api.download(path, type);
      saveFile(blob, filename ?? fallbackName);
    }));
  return button;
}

/** The gap list's body: the first questions, and the CSV of all of them. */
export async function gapsContent(app, organization, questionnaire) {
  const path = questionnairePath(organization.id, questionnaire.id, "/gaps");
  const csvPath = `${path}?format=csv`;
  const { gaps } = await app.api.get(path);
  const errorSlot = h("div", { class: "form-errors" });
  if (gaps.length === 0) {
    return emptyState("No gaps", "The knowledge base has a suggestion for every question.");
  }
  return h(
    "div",
    {},
    h(
      "p",
      {},
      gaps.length === 1
        ? "1 question has no answer in the knowledge base. "
        : `${gaps.length} questions have no answer in the knowledge base. `,
      "Answer them in ",
      h("a", { href: href.answers(organization.id) }, "Answers"),
      " with their ids, or edit the rows here and save them to the knowledge base.",
    ),
    dataTable(
      "Questions without an answer",
      [
        {
          label: "Question",
          cell: (g) => h("span", { class: "question-text" }, g.question),
        },
        { label: "Id", cell: (g) => (g.questionId ? h("code", {}, g.questionId) : "None") },
        { label: "Where", cell: (g) => `${g.sheet}, row ${g.row}` },
      ],
      gaps.slice(0, SHOWN_GAPS),
      { className: "gaps-table" },
    ),
    gaps.length > SHOWN_GAPS
      ? h("p", { class: "hint" }, `The first ${SHOWN_GAPS} are listed; the CSV has all of them.`)
      : null,
    errorSlot,
    h(
      "div",
      { class: "form-actions" },
      downloadButton(app, errorSlot, {
        label: "Download the gap list (CSV)",
        path: csvPath,
        type: "text/csv",
        fallbackName: `${safeName(questionnaire.name)} gaps.csv`,
      }),
    ),
  );
}

/** The export card's body: the answered file, the manifest, and sharing. */
export function exportContent(app, organization, questionnaire) {
  const base = (rest) => questionnairePath(organization.id, questionnaire.id, rest);
  const errorSlot = h("div", { class: "form-errors" });
  const shared = h("div", {});
  const owner = organization.role === "owner";
  const share = owner
    ? h("button", { type: "button", class: "btn btn-secondary" }, "Share with the buyer")
    : null;
  share?.addEventListener("click", () =>
    runButton(share, errorSlot, async () => {
      const result = await app.api.post(base("/share"));
      replace(
        shared,
        h(
          "div",
          { class: "alert alert-success", role: "status" },
          h(
            "p",
            {},
            `Shared as the restricted documents “${result.document.title}” and ` +
              `“${result.manifest.title}”. They are unlisted: no public page names them. Send ` +
              "the buyer the request link below; they ask for both there, accept the NDA, and " +
              "download them through an access link once approved (every download is logged). ",
            h("a", { href: href.documents(organization.id) }, "Manage access links"),
          ),
          h(
            "p",
            {},
            "Request link for the buyer: ",
            h("a", { href: result.requestAccessUrl }, h("code", {}, result.requestAccessUrl)),
          ),
          result.warning ? h("p", {}, result.warning) : null,
        ),
      );
    }));
  return h(
    "div",
    {},
    h(
      "p",
      {},
      "The buyer's own file with the answer column filled (accepted and edited rows; " +
        "“No answer” elsewhere) and an evidence column linking each answer to its public source, " +
        "pinned to the published version. The signed manifest lists every answered row's hashes " +
        "and citations, so the buyer can check them offline with the verifier kit.",
    ),
    errorSlot,
    h(
      "div",
      { class: "form-actions" },
      downloadButton(app, errorSlot, {
        label: "Download the answered file",
        path: base("/export"),
        fallbackName: `${safeName(questionnaire.name)} answered.${questionnaire.format}`,
        primary: true,
      }),
      downloadButton(app, errorSlot, {
        label: "Download the signed manifest",
        path: base("/manifest"),
        type: "application/jose",
        fallbackName: `${safeName(questionnaire.name)} manifest.jws`,
      }),
      share,
    ),
    owner ? null : h("p", { class: "hint" }, "Owners share the answered file with the buyer."),
    shared,
  );
}
