/**
 * The suggestion to disable controls the vendor does not collect: an enabled control that
 * has never received evidence is "not reported" on the trust page. The page keeps reported
 * and not reported apart, but a control the vendor will never feed only adds noise, so the
 * dashboard lists them with a Disable button each, and Mark required for one buyers should
 * count on: a required control that has not reported leads the page's headline ("Not
 * reported: <name> (required)") from the next published version.
 */
import { badge, h, icon } from "../../dom.js";
import { plural } from "../../format.js";
import { runButton } from "../../widgets.js";
import { projectPath } from "./common.js";

/**
 * Controls enabled now (`controls`, the catalog) whose latest evaluation is unknown without any
 * evidence ever received.
 */
export function unreportedControls(evaluations, controls) {
  const enabled = new Set(controls.filter((c) => c.enabled).map((c) => c.id));
  return evaluations.filter((e) =>
    enabled.has(e.control.id) && e.state === "unknown" && e.latestEvidenceAt === null
  );
}

/** The notice, or null when every enabled control has reported at least once. */
export function unreportedNotice(app, project, evaluations, controls) {
  const silent = unreportedControls(evaluations, controls);
  if (silent.length === 0) return null;
  const errorSlot = h("div", { class: "form-errors" });
  const required = new Set(controls.filter((c) => c.required).map((c) => c.id));
  const save = (button, body, message) =>
    runButton(button, errorSlot, async () => {
      await app.api.patch(
        projectPath(project.id, `/controls/${encodeURIComponent(button.dataset.id)}`),
        body,
      );
      app.flash(message);
      await app.rerender();
    });
  const item = (e) => {
    const name = e.control.publicName;
    const marked = required.has(e.control.id);
    const disable = h("button", {
      type: "button",
      class: "btn btn-secondary btn-small",
      "data-id": e.control.id,
      "aria-label": `Disable ${name}`,
    }, "Disable");
    disable.addEventListener(
      "click",
      () =>
        save(
          disable,
          { enabled: false },
          `“${name}” disabled: the next version no longer lists it`,
        ),
    );
    const mark = h("button", {
      type: "button",
      class: "btn btn-secondary btn-small",
      "data-id": e.control.id,
      "aria-label": marked ? `Unmark required: ${name}` : `Mark required: ${name}`,
    }, marked ? "Unmark required" : "Mark required");
    mark.addEventListener("click", () =>
      save(
        mark,
        { required: !marked },
        marked
          ? `“${name}” is no longer required: from the next version, it is listed apart`
          : `“${name}” marked required: until it reports, the next version's headline names it`,
      ));
    return h(
      "li",
      { class: "unreported-item" },
      h(
        "span",
        {},
        name,
        " ",
        h("code", {}, e.control.key),
        marked ? [" ", badge("Required", "warning")] : null,
      ),
      h("span", { class: "unreported-actions" }, mark, disable),
    );
  };
  return h(
    "section",
    {
      class: "alert alert-info alert-icon unreported",
      "aria-labelledby": "unreported-title",
    },
    icon("question"),
    h(
      "div",
      {},
      h(
        "h2",
        { id: "unreported-title", class: "alert-title" },
        `${plural(silent.length, "control")} never reported`,
      ),
      h(
        "p",
        {},
        "The trust page lists these apart as not reported: no evidence has ever arrived for them, ",
        "and they do not change its headline. If you do not collect this evidence, disable them, ",
        "so buyers see only what you report. If buyers should count on one, mark it required: ",
        "until it reports, the headline then says it is not reported. ",
        "Marks take effect at the next published version.",
      ),
      h("ul", { class: "unreported-list" }, silent.map(item)),
      errorSlot,
    ),
  );
}
