/**
 * The control catalog of a project: every control with its freshness
 * window, a switch to enable it, an inline editor, and a form for custom
 * controls. Changes are saved one at a time and the table redraws in place.
 */
import { badge, describeError, errorAlert, h, icon, replace, successAlert } from "../../dom.js";
import { capitalize, describeFreshness } from "../../format.js";
import { card, dataTable, detailRow, emptyState, nameWithKey } from "../layout.js";
import { evidenceTypeLabel, projectPath } from "./common.js";
import { controlEditor, customControlForm } from "./control_forms.js";

const COLUMNS = 6;

/** `summary.critical eq 0`: a rule in one line. */
const describeRule = (rule) =>
  [rule.path, rule.op, "value" in rule ? JSON.stringify(rule.value) : ""].join(" ").trim();

/** The catalog card; `onChange(controls)` runs after every saved change. */
export function catalogCard(app, project, initial, { onChange }) {
  let controls = initial;
  const messages = h("div", { class: "form-errors" });
  const tableSlot = h("div", {});
  const path = (id) =>
    projectPath(project.id, `/controls${id ? `/${encodeURIComponent(id)}` : ""}`);

  const changed = (control, message) => {
    controls = controls.some((c) => c.id === control.id)
      ? controls.map((c) => (c.id === control.id ? control : c))
      : [...controls, control];
    render();
    replace(messages, successAlert(message));
    onChange(controls);
  };

  function enabledSwitch(control) {
    const input = h("input", {
      type: "checkbox",
      role: "switch",
      class: "switch-input",
      checked: control.enabled,
      "aria-label": `Enabled: ${control.publicName}`,
      on: {
        change: async () => {
          input.disabled = true;
          replace(messages);
          try {
            const body = await app.api.patch(path(control.id), { enabled: input.checked });
            changed(
              body.control,
              `“${control.publicName}” ${
                input.checked ? "enabled" : "disabled"
              }. Recompute to update the status.`,
            );
            tableSlot.querySelector(`tr[data-id="${control.id}"] .switch-input`)?.focus();
          } catch (error) {
            input.checked = !input.checked;
            input.disabled = false;
            replace(messages, errorAlert(describeError(error)));
          }
        },
      },
    });
    return h(
      "label",
      { class: "switch" },
      input,
      h("span", { class: "switch-text", "aria-hidden": "true" }, control.enabled ? "On" : "Off"),
    );
  }

  function toggleEditor(control, button) {
    const id = `edit-${control.id}`;
    const open = document.getElementById(id);
    tableSlot.querySelectorAll(".detail-row").forEach((row) => row.remove());
    tableSlot.querySelectorAll("[aria-expanded=true]").forEach((b) => {
      b.setAttribute("aria-expanded", "false");
    });
    if (open) return;
    const close = () => {
      document.getElementById(id)?.remove();
      button.setAttribute("aria-expanded", "false");
      button.focus();
    };
    const form = controlEditor(control, {
      cancel: close,
      save: async (body) => {
        const { control: saved } = await app.api.patch(path(control.id), body);
        changed(saved, `“${saved.publicName}” saved`);
        tableSlot.querySelector(`tr[data-id="${control.id}"] .edit-button`)?.focus();
      },
    });
    button.closest("tr").after(detailRow(id, COLUMNS, form));
    button.setAttribute("aria-expanded", "true");
    form.querySelector("input").focus();
  }

  function editButton(control) {
    const button = h("button", {
      type: "button",
      class: "btn btn-secondary btn-small edit-button",
      "aria-expanded": "false",
      "aria-controls": `edit-${control.id}`,
      "aria-label": `Edit ${control.publicName}`,
      on: { click: () => toggleEditor(control, button) },
    }, "Edit");
    return button;
  }

  function render() {
    if (controls.length === 0) {
      replace(tableSlot, emptyState("No controls", "This project has no controls configured."));
      return;
    }
    replace(
      tableSlot,
      dataTable(
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
          { label: "Enabled", cell: enabledSwitch },
          { label: "Actions", className: "cell-actions", cell: editButton },
        ],
        controls,
        { rowId: (c) => c.id },
      ),
    );
  }

  const addSlot = h("div", {});
  const renderAddForm = () =>
    replace(
      addSlot,
      h(
        "details",
        { class: "disclosure add-control" },
        h("summary", {}, icon("plus"), "Add a custom control"),
        customControlForm({
          create: async (body) => {
            const { control } = await app.api.post(path(), body);
            renderAddForm();
            changed(control, `“${control.publicName}” added`);
          },
        }),
      ),
    );

  render();
  renderAddForm();
  return card("Control catalog", [messages, tableSlot, addSlot], {
    description:
      "Each control reads one stream of evidence or collector heartbeats and is judged against its freshness window.",
  });
}
