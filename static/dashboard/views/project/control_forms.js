/**
 * The two control forms: edit one control of the catalog, and add a custom
 * control. Both leave validation to the API and show its errors inline.
 */
import { field, h, handleSubmit, replace } from "../../dom.js";
import { durationField, readDuration, readRule, ruleFields } from "./control_fields.js";
import { EVIDENCE_TYPES } from "./common.js";

const same = (a, b) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

function actions(submitLabel, cancel) {
  return h(
    "div",
    { class: "form-actions" },
    h("button", { type: "submit", class: "btn btn-primary" }, submitLabel),
    cancel &&
      h("button", { type: "button", class: "btn btn-secondary", on: { click: cancel } }, "Cancel"),
  );
}

/** Policy fields of `control`: its freshness window and degradation thresholds. */
function policyFields(control) {
  const window = control.freshnessPolicyJson;
  const degradation = control.degradationPolicyJson;
  return h(
    "fieldset",
    { class: "policy" },
    h("legend", {}, "Ageing"),
    h(
      "p",
      { class: "hint" },
      "Ages count from the latest observation. Past the freshness window a control is degraded, or stale when no stale age is set.",
    ),
    h(
      "div",
      { class: "duration-grid" },
      durationField(
        "freshFor",
        "Freshness window",
        window.kind === "time_window" ? window.windowSeconds : null,
        "Empty: evidence never ages out.",
      ),
      durationField(
        "degradedAfter",
        "Degraded after",
        degradation.degradedAfterSeconds,
        "Optional.",
      ),
      durationField("staleAfter", "Stale after", degradation.staleAfterSeconds, "Optional."),
    ),
  );
}

/** The PATCH body for what the editor changed of `control`. */
function changes(control, data) {
  const fresh = readDuration(data, "freshFor");
  const next = {
    publicName: String(data.get("publicName") ?? "").trim(),
    freshnessPolicyJson: fresh === null
      ? { kind: "none" }
      : { kind: "time_window", windowSeconds: fresh },
    degradationPolicyJson: {
      staleAfterSeconds: readDuration(data, "staleAfter"),
      degradedAfterSeconds: readDuration(data, "degradedAfter"),
    },
  };
  if (control.evidenceType) next.rule = readRule(data);
  return Object.fromEntries(Object.entries(next).filter(([key, v]) => !same(control[key], v)));
}

/** The editor of one control; `save(body)` sends the PATCH, `cancel` closes it. */
export function controlEditor(control, { save, cancel }) {
  const errorSlot = h("div", { class: "form-errors" });
  const form = h(
    "form",
    { class: "form control-editor", "aria-label": `Edit ${control.publicName}` },
    field(
      "Public name",
      h("input", {
        name: "publicName",
        required: true,
        maxlength: "200",
        value: control.publicName,
      }),
      "How trust pages and trust.json name the control.",
    ),
    policyFields(control),
    control.evidenceType && ruleFields(control.rule),
    errorSlot,
    actions("Save control", cancel),
  );
  handleSubmit(form, errorSlot, async (data) => {
    const body = changes(control, data);
    if (Object.keys(body).length === 0) {
      replace(
        errorSlot,
        h("div", { class: "alert alert-info", role: "status" }, "Nothing to save"),
      );
      return;
    }
    await save(body);
  });
  return form;
}

/** The form adding a custom control; `create(body)` sends the POST. */
export function customControlForm({ create }) {
  const errorSlot = h("div", { class: "form-errors" });
  const form = h(
    "form",
    { class: "form" },
    h(
      "div",
      { class: "form-grid" },
      field(
        "Key",
        h(
          "input",
          {
            name: "key",
            required: true,
            class: "input-mono",
            autocomplete: "off",
            spellcheck: "false",
            value: "custom.",
          },
        ),
        'Stable and public: "custom." then lowercase letters, digits, ".", "_" or "-".',
      ),
      field("Public name", h("input", { name: "publicName", required: true, maxlength: "200" })),
      field(
        "Evidence type",
        h(
          "select",
          { name: "evidenceType" },
          EVIDENCE_TYPES.map(([value, label]) => h("option", { value }, label)),
        ),
        "The control reads the latest record of this type.",
      ),
    ),
    ruleFields(null),
    errorSlot,
    actions("Add control"),
  );
  handleSubmit(form, errorSlot, async (data) => {
    const rule = readRule(data);
    await create({
      key: String(data.get("key")).trim(),
      publicName: String(data.get("publicName")).trim(),
      evidenceType: data.get("evidenceType"),
      ...(rule ? { rule } : {}),
    });
  });
  return form;
}
