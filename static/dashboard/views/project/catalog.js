/**
 * The control catalog of a project: every control with its freshness
 * window, a switch to enable it, one to mark it required, an inline editor,
 * and a form for custom controls. Changes are saved one at a time and the
 * table redraws in place.
 */
import { badge, describeError, errorAlert, h, icon, replace, successAlert } from "../../dom.js";
import { capitalize, describeFreshness } from "../../format.js";
import { card, dataTable, detailRow, emptyState, nameWithKey } from "../layout.js";
import { evidenceTypeLabel, projectPath } from "./common.js";
import { controlEditor, customControlForm } from "./control_forms.js";

const COLUMNS = 7;

/** `summary.critical eq 0`: a rule in one line. */
const describeRule = (rule) =>
  [rule.path, rule.op, "value" in rule ? JSON.stringify(rule.value) : ""].join(" ").trim();

/** Puts a saved control into the catalog, redraws the table and announces `message`. */
function applyChange(view, control, message) {
  const { controls } = view;
  view.controls = controls.some((c) => c.id === control.id)
    ? controls.map((c) => (c.id === control.id ? control : c))
    : [...controls, control];
  renderTable(view);
  replace(view.messages, successAlert(message));
  view.onChange(view.controls);
}

/** What each switch saves, and what the vendor is told after it did. */
const SWITCHES = {
  enabled: {
    label: "Enabled",
    said: (name, on) => `“${name}” ${on ? "enabled" : "disabled"}. Recompute to update the status.`,
  },
  required: {
    label: "Required",
    said: (name, on) =>
      on
        ? `“${name}” marked required: from the next published version, the headline counts it, and names it while it has not reported.`
        : `“${name}” no longer required: from the next published version, it counts in the headline only once it reports.`,
  },
};

/** Saves a switch's new state (`field`); on a failure it turns back and says why. */
async function saveSwitch(view, control, field, input) {
  input.disabled = true;
  replace(view.messages);
  try {
    const body = await view.app.api.patch(view.path(control.id), { [field]: input.checked });
    applyChange(view, body.control, SWITCHES[field].said(control.publicName, input.checked));
    view.tableSlot.querySelector(`tr[data-id="${control.id}"] .switch-${field}`)?.focus();
  } catch (error) {
    input.checked = !input.checked;
    input.disabled = false;
    replace(view.messages, errorAlert(describeError(error)));
  }
}

function controlSwitch(view, control, field) {
  const on = control[field] === true;
  const input = h("input", {
    type: "checkbox",
    role: "switch",
    class: `switch-input switch-${field}`,
    checked: on,
    "aria-label": `${SWITCHES[field].label}: ${control.publicName}`,
    on: { change: () => saveSwitch(view, control, field, input) },
  });
  return h(
    "label",
    { class: "switch" },
    input,
    h("span", { class: "switch-text", "aria-hidden": "true" }, on ? "On" : "Off"),
  );
}

/** Closes every open editor and resets the buttons that opened them. */
function closeEditors(view) {
  view.tableSlot.querySelectorAll(".detail-row").forEach((row) => row.remove());
  view.tableSlot.querySelectorAll("[aria-expanded=true]").forEach((b) => {
    b.setAttribute("aria-expanded", "false");
  });
}

/** Opens the editor of `control` under its row, or closes it when it is open. */
function toggleEditor(view, control, button) {
  const id = `edit-${control.id}`;
  const open = document.getElementById(id);
  closeEditors(view);
  if (open) return;
  const close = () => {
    document.getElementById(id)?.remove();
    button.setAttribute("aria-expanded", "false");
    button.focus();
  };
  const form = controlEditor(control, {
    cancel: close,
    save: async (body) => {
      const { control: saved } = await view.app.api.patch(view.path(control.id), body);
      applyChange(view, saved, `“${saved.publicName}” saved`);
      view.tableSlot.querySelector(`tr[data-id="${control.id}"] .edit-button`)?.focus();
    },
  });
  button.closest("tr").after(detailRow(id, COLUMNS, form));
  button.setAttribute("aria-expanded", "true");
  form.querySelector("input").focus();
}

function editButton(view, control) {
  const button = h("button", {
    type: "button",
    class: "btn btn-secondary btn-small edit-button",
    "aria-expanded": "false",
    "aria-controls": `edit-${control.id}`,
    "aria-label": `Edit ${control.publicName}`,
    on: { click: () => toggleEditor(view, control, button) },
  }, "Edit");
  return button;
}

function catalogTable(view) {
  return dataTable(
    "Control catalog",
    [
      { label: "Control", cell: (c) => nameWithKey(c.publicName, c.key) },
      { label: "Category", cell: (c) => badge(capitalize(c.category)) },
      {
        label: "Reads",
        cell: (c) => [
          c.evidenceType ? evidenceTypeLabel(c.evidenceType) : "Collector heartbeats",
          c.rule &&
          h("span", { class: "cell-sub" }, "Rule ", h("code", {}, describeRule(c.rule))),
        ],
      },
      { label: "Freshness window", cell: (c) => describeFreshness(c.freshnessPolicyJson) },
      { label: "Enabled", cell: (c) => controlSwitch(view, c, "enabled") },
      { label: "Required", cell: (c) => controlSwitch(view, c, "required") },
      { label: "Actions", className: "cell-actions", cell: (c) => editButton(view, c) },
    ],
    view.controls,
    { rowId: (c) => c.id },
  );
}

function renderTable(view) {
  replace(
    view.tableSlot,
    view.controls.length === 0
      ? emptyState("No controls", "This project has no controls configured.")
      : catalogTable(view),
  );
}

/** The closed "Add a custom control" disclosure, drawn afresh after every add. */
function renderAddForm(view) {
  replace(
    view.addSlot,
    h(
      "details",
      { class: "disclosure add-control" },
      h("summary", {}, icon("plus"), "Add a custom control"),
      customControlForm({
        create: async (body) => {
          const { control } = await view.app.api.post(view.path(), body);
          renderAddForm(view);
          applyChange(view, control, `“${control.publicName}” added`);
        },
      }),
    ),
  );
}

/** The catalog card; `onChange(controls)` runs after every saved change. */
export function catalogCard(app, project, initial, { onChange }) {
  const view = {
    app,
    controls: initial,
    onChange,
    messages: h("div", { class: "form-errors" }),
    tableSlot: h("div", {}),
    addSlot: h("div", {}),
    path: (id) => projectPath(project.id, `/controls${id ? `/${encodeURIComponent(id)}` : ""}`),
  };
  renderTable(view);
  renderAddForm(view);
  return card("Control catalog", [view.messages, view.tableSlot, view.addSlot], {
    description:
      "Each control reads one stream of evidence or collector heartbeats and is judged against its freshness window. A required control counts in the trust page's headline even before it reports (named there as not reported); one that is not required and never reported is listed apart and leaves the headline to what reported.",
  });
}
