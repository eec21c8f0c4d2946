/**
 * The knowledge base's ways in beside the one-answer form: importing answered questionnaires
 * (upload → preview table → confirm, POST …/answer-imports), and the organization's controls
 * to cite, by name, with the id the citation needs.
 */
import {
  badge,
  describeError,
  errorAlert,
  field,
  h,
  handleSubmit,
  replace,
  successAlert,
} from "../dom.js";
import { dataTable } from "./layout.js";
import { projectsPath } from "./organization.js";

const XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
/** Projects whose controls are offered for citing (an organization rarely has more). */
const MAX_CITED_PROJECTS = 50;

const importPath = (organization) =>
  `/organizations/${encodeURIComponent(organization.id)}/answer-imports`;

/** The file as sent, typed by its extension (the service reads the type from the bytes). */
function typedFile(file) {
  const name = file.name.toLowerCase();
  const type = name.endsWith(".xlsx")
    ? XLSX_TYPE
    : name.endsWith(".csv")
    ? "text/csv"
    : "application/octet-stream";
  return new Blob([file], { type });
}

const ACTION_TEXT = { create: "New answer", merge: "Merge", skip: "Skipped" };
const ACTION_TONE = { create: "success", merge: "info", skip: "warning" };

/** The preview as a table, one row per item, each with its "import" checkbox. */
function previewTable(preview) {
  const boxes = new Map();
  const columns = [
    {
      label: "Import",
      cell: (item) => {
        const box = h("input", {
          type: "checkbox",
          checked: item.action !== "skip",
          disabled: item.action === "skip",
          "aria-label": `Import “${item.question}”`,
        });
        boxes.set(item.index, box);
        return box;
      },
    },
    {
      label: "Action",
      cell: (item) => [
        badge(ACTION_TEXT[item.action], ACTION_TONE[item.action]),
        " ",
        item.action === "merge"
          ? `into “${item.mergeInto.question}”${
            item.mergeInto.sameAnswer ? "" : " (its own text is kept: compare them)"
          }`
          : item.action === "skip"
          ? item.reason
          : item.category,
      ],
    },
    { label: "Question", cell: (item) => item.question },
    {
      label: "Ids",
      cell: (item) =>
        [...new Set(item.phrasings.map((p) => p.id).filter(Boolean))].join(", ") ||
        "—",
    },
    { label: "Phrasings", cell: (item) => String(item.phrasings.length) },
    {
      label: "Answer",
      cell: (item) => `${item.answer}${item.answerLength > item.answer.length ? "…" : ""}`,
    },
  ];
  return { table: dataTable("What the import does", columns, preview.items), boxes };
}

/** Upload an answered questionnaire, see what it would create and merge, then confirm. */
export function importForm(app, organization, onDone) {
  const errorSlot = h("div", { class: "form-errors" });
  const previewSlot = h("div", { role: "region", "aria-label": "Import preview" });
  const file = h("input", {
    type: "file",
    name: "file",
    accept: `.xlsx,.csv,${XLSX_TYPE},text/csv`,
    required: true,
  });
  const visibility = h(
    "select",
    { name: "visibility" },
    h("option", { value: "restricted", selected: true }, "Restricted (review before publishing)"),
    h("option", { value: "public" }, "Public"),
  );
  const form = h(
    "form",
    { class: "form", "aria-label": "Import answered questionnaires" },
    field(
      "Answered questionnaire",
      file,
      "A questionnaire you already answered (XLSX or CSV, any layout the questionnaire import reads). " +
        "Each answered question becomes an answer, keeping every phrasing and its ids (CAIQ, SIG, the buyer's own); " +
        "answers you already have are merged. Nothing is saved before you confirm.",
    ),
    field("New answers are", visibility),
    errorSlot,
    h(
      "div",
      { class: "form-actions" },
      h("button", { type: "submit", class: "btn btn-secondary" }, "Preview import"),
    ),
    previewSlot,
  );
  file.addEventListener("change", () => replace(previewSlot));
  handleSubmit(form, errorSlot, async () => {
    const picked = file.files?.[0];
    if (!picked) throw new Error("Choose a file first");
    const body = typedFile(picked);
    const preview = await app.api.postFile(`${importPath(organization)}/preview`, body);
    const { counts } = preview;
    const { table, boxes } = previewTable(preview);
    const confirm = h("button", { type: "button", class: "btn btn-primary" }, "Import");
    const summary = h(
      "p",
      { role: "status" },
      `${counts.create} new answer(s), ${counts.merge} merged into answers you have, ` +
        `${counts.skip} skipped; ${counts.unanswered} unanswered row(s) left out. ` +
        `Room for ${preview.room} more answer(s).`,
    );
    const confirmErrors = h("div", { class: "form-errors" });
    confirm.addEventListener("click", async () => {
      const skip = [...boxes].filter(([, box]) => !box.checked).map(([index]) => index);
      const query = new URLSearchParams({ digest: preview.digest, visibility: visibility.value });
      if (skip.length) query.set("skip", skip.join(","));
      confirm.disabled = true;
      try {
        const done = await app.api.postFile(`${importPath(organization)}?${query}`, body);
        replace(
          previewSlot,
          successAlert(
            `Imported: ${done.created.length} new answer(s), ${done.merged.length} merged, ` +
              `${done.skipped} skipped.`,
          ),
        );
        await onDone?.();
      } catch (error) {
        confirm.disabled = false;
        replace(confirmErrors, errorAlert(describeError(error)));
      }
    });
    replace(
      previewSlot,
      summary,
      table,
      confirmErrors,
      h("div", { class: "form-actions" }, confirm),
    );
  });
  return form;
}

/**
 * The organization's controls, to cite by name: `[{ id, label }]`, label "Project · control
 * name (key)"; at most MAX_CITED_PROJECTS projects are read.
 */
export async function citableControls(app, organization) {
  const { items: projects } = await app.api.getAll(projectsPath(organization), "projects");
  const lists = await Promise.all(
    projects.slice(0, MAX_CITED_PROJECTS).map(async (project) => {
      const { controls } = await app.api.get(
        `/projects/${encodeURIComponent(project.id)}/controls`,
      );
      return controls.map((control) => ({
        id: control.id,
        label: `${project.name} · ${control.publicName} (${control.key})`,
      }));
    }),
  );
  return lists.flat();
}

/**
 * A select of the controls and a button adding "control <id>" to the citations textarea, so
 * citing a control never asks for an id the dashboard does not show.
 */
export function controlPicker(controls, textarea) {
  if (controls.length === 0) return null;
  const select = h(
    "select",
    {},
    ...controls.map((c) => h("option", { value: c.id }, `${c.label} — ${c.id}`)),
  );
  const add = h("button", { type: "button", class: "btn btn-secondary" }, "Cite this control");
  add.addEventListener("click", () => {
    const line = `control ${select.value}`;
    const lines = textarea.value.split("\n").map((l) => l.trim()).filter(Boolean);
    if (!lines.includes(line)) textarea.value = [...lines, line].join("\n");
  });
  return h(
    "div",
    {},
    field("Cite a control", select, "Adds “control <id>” to the citations below."),
    add,
  );
}
