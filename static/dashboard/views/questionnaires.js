/**
 * An organization's questionnaires: a buyer's XLSX or CSV imported (chosen or dropped, named),
 * the files imported so far with their coverage, in pages. Owners and members both import and
 * review; one questionnaire opens in questionnaire.js.
 */
import { field, h, handleSubmit, replace } from "../dom.js";
import { formatDate } from "../format.js";
import { href } from "../routes.js";
import { runButton } from "../widgets.js";
import { card, dataTable, emptyState } from "./layout.js";
import { organizationHeader } from "./organization.js";
import { coverageText, questionnairePath, refusalAlert } from "./questionnaire/common.js";

const PAGE_SIZE = 25;
const XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
const ACCEPT = `.xlsx,.csv,${XLSX_TYPE},text/csv`;

/**
 * The file as sent: typed by its extension (the service reads the type from the bytes; a CSV
 * saved by a spreadsheet program often comes typed as something else).
 */
function typedFile(file) {
  const name = file.name.toLowerCase();
  const type = name.endsWith(".xlsx")
    ? XLSX_TYPE
    : name.endsWith(".csv")
    ? "text/csv"
    : "application/octet-stream";
  return new Blob([file], { type });
}

/** "SIG Lite 2026.xlsx" → "SIG Lite 2026". */
const baseName = (name) => name.replace(/\.[^.]+$/, "");

/**
 * The drop area around the file input: a dropped file lands in the input, as if chosen. The
 * input itself stays the keyboard's way in.
 */
function dropZone(input, ...content) {
  const zone = h("div", { class: "dropzone" }, content);
  const over = (on) => zone.classList.toggle("dropzone-over", on);
  zone.addEventListener("dragover", (event) => {
    event.preventDefault();
    over(true);
  });
  zone.addEventListener("dragleave", () => over(false));
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    over(false);
    const files = event.dataTransfer?.files;
    if (!files || files.length === 0) return;
    input.files = files;
    input.dispatchEvent(new Event("change", { bubbles: true }));
  });
  return zone;
}

function importForm(app, organization) {
  const errorSlot = h("div", { class: "form-errors" });
  const file = h("input", { type: "file", name: "file", accept: ACCEPT, required: true });
  const name = h("input", { name: "name", required: true, maxlength: "200" });
  const chosen = h("p", { class: "hint", role: "status" });
  file.addEventListener("change", () => {
    const picked = file.files?.[0];
    replace(chosen, picked ? `Chosen: ${picked.name}` : "");
    if (picked && !name.value.trim()) name.value = baseName(picked.name);
  });
  const form = h(
    "form",
    { class: "form", "aria-label": "Import a questionnaire" },
    dropZone(
      file,
      field(
        "Questionnaire file",
        file,
        "The buyer's own file: XLSX (every sheet) or CSV (UTF-8, UTF-16 or Windows-1252), at " +
          "most 10 MiB, 50 sheets and 5,000 questions. Choose it or drop it here. Formulas, " +
          "macros and external links are never run or kept.",
      ),
      chosen,
    ),
    field("Name", name, "How the questionnaire is listed, e.g. the buyer and the form."),
    errorSlot,
    h(
      "div",
      { class: "form-actions" },
      h("button", { type: "submit", class: "btn btn-primary" }, "Import questionnaire"),
    ),
  );
  handleSubmit(form, errorSlot, async (data) => {
    const picked = file.files?.[0];
    if (!picked) throw new Error("Choose a file first");
    const query = new URLSearchParams({ name: String(data.get("name") ?? "").trim() });
    // A refusal (413, 415, 422) gets its own alert: what it means, the service's reason.
    let saved;
    try {
      saved = await app.api.postFile(
        `${questionnairePath(organization.id)}?${query}`,
        typedFile(picked),
      );
    } catch (error) {
      replace(errorSlot, refusalAlert(error));
      return;
    }
    const { questionnaire } = saved;
    app.flash(`“${questionnaire.name}” imported: ${coverageText(questionnaire.coverage)}`);
    app.navigate(href.questionnaire(organization.id, questionnaire.id));
  });
  return form;
}

function questionnaireTable(organization, questionnaires) {
  return dataTable(
    "Questionnaires of the organization",
    [
      {
        label: "Questionnaire",
        cell: (q) =>
          h(
            "a",
            { href: href.questionnaire(organization.id, q.id), class: "strong-link" },
            q.name,
          ),
      },
      {
        label: "File",
        cell: (q) => q.format.toUpperCase(),
      },
      { label: "Questions", cell: (q) => String(q.coverage.questions), className: "cell-number" },
      {
        label: "From the knowledge base",
        cell: (q) => `${q.coverage.answered} answered, ${q.coverage.needAnswer} to write`,
      },
      {
        label: "Imported",
        cell: (q) => h("time", { datetime: q.createdAt }, formatDate(q.createdAt)),
      },
    ],
    questionnaires,
    { rowId: (q) => q.id },
  );
}

export async function questionnairesView(app, organizationId) {
  const organization = await app.requireOrganization(organizationId);
  app.setTitle("Questionnaires", organization.name);
  const listSlot = h("div", {});
  const more = h("div", { class: "load-more" });
  const messages = h("div", { class: "form-errors" });
  const path = (cursor) => {
    const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
    if (cursor) query.set("cursor", cursor);
    return `${questionnairePath(organization.id)}?${query}`;
  };
  function moreButton(cursor) {
    if (!cursor) return null;
    const button = h("button", {
      type: "button",
      class: "btn btn-secondary",
      on: {
        click: () =>
          runButton(button, messages, async () => {
            const page = await app.api.get(path(cursor));
            listSlot.querySelector("tbody").append(
              ...questionnaireTable(organization, page.questionnaires).querySelectorAll("tbody tr"),
            );
            replace(more, moreButton(page.nextCursor));
          }),
      },
    }, "More questionnaires");
    return button;
  }
  const { questionnaires, nextCursor } = await app.api.get(path());
  replace(
    listSlot,
    questionnaires.length === 0
      ? emptyState(
        "No questionnaires yet",
        "Import a buyer's questionnaire below: it is answered from your knowledge base.",
      )
      : questionnaireTable(organization, questionnaires),
  );
  replace(more, moreButton(nextCursor));
  return h(
    "div",
    {},
    organizationHeader(organization, "questionnaires"),
    h(
      "div",
      { class: "layout-split" },
      card("Questionnaires", [messages, listSlot, more], {
        description: [
          "A buyer's own file, answered from the ",
          h("a", { href: href.answers(organization.id) }, "answers"),
          " by question id first, then by shared terms; each suggestion cites the controls of the latest published version. No language model is involved.",
        ],
      }),
      card("Import a questionnaire", importForm(app, organization)),
    ),
  );
}
