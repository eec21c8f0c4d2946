/**
 * The evidence retention form of an organization (its default) or of one project (its own
 * rule): the setting, the rule in force and where each half of it comes from. After a save the
 * form is drawn again from the API's answer, so the rule shown is the one now in force, and
 * `onSaved` lets the view refresh what depends on it.
 */
import { field, h, handleSubmit, replace, successAlert } from "../dom.js";
import { plural } from "../format.js";

const FROM = {
  service: "the service's default",
  organization: "the organization's default",
  project: "this project's own",
};

/** "Now: 30 days (the organization's default) or the newest 5 a type (this project's own)." */
export function describeRule(effective) {
  return `Now: ${plural(effective.days, "day")} (${
    FROM[effective.daysFrom]
  }) or the newest ${effective.recordsPerType} records a type (${
    FROM[effective.recordsPerTypeFrom]
  }).`;
}

/**
 * The retention card's content. `path` is the retention resource (GET/PUT), `retention` its
 * current value, `isOwner` whether the form may save, `scope` "organization" or "project".
 */
export function retentionForm(app, { path, retention, isOwner, scope, onSaved }) {
  const slot = h("div", {});
  const draw = (current, message) => {
    const errorSlot = h("div", { class: "form-errors" });
    const prefix = scope === "project" ? "project-retention" : "org-retention";
    const inherit = scope === "project"
      ? "Empty: the organization's default, else the service's."
      : "Empty: the service's default.";
    const number = (name, value, max) =>
      h("input", {
        name,
        id: `${prefix}-${name}`,
        type: "number",
        min: "1",
        max: String(max),
        step: "1",
        inputmode: "numeric",
        value: value ?? "",
        placeholder: "inherit",
        disabled: !isOwner,
      });
    const form = h(
      "form",
      { class: "form" },
      h("p", { class: "retention-rule", role: "status" }, describeRule(current.effective)),
      message && successAlert(message),
      field("Keep evidence for (days)", number("days", current.setting.days, 36500), inherit),
      field(
        "Keep the newest records of each type",
        number("recordsPerType", current.setting.recordsPerType, 100000),
        inherit,
      ),
      errorSlot,
      isOwner &&
        h(
          "div",
          { class: "form-actions" },
          h("button", { type: "submit", class: "btn btn-primary" }, "Save retention"),
        ),
    );
    handleSubmit(form, errorSlot, async (data) => {
      const read = (name) => {
        const text = String(data.get(name) ?? "").trim();
        return text === "" ? null : Number(text);
      };
      const saved = await app.api.put(path, {
        days: read("days"),
        recordsPerType: read("recordsPerType"),
      });
      draw(
        saved.retention,
        scope === "project"
          ? "Retention saved for this project."
          : "Retention saved; projects without their own setting use it.",
      );
      slot.querySelector("button[type=submit]")?.focus();
      await onSaved?.(saved.retention);
    });
    replace(slot, form);
  };
  draw(retention);
  return slot;
}
