/**
 * The suggestion to disable controls the vendor does not collect: an enabled control that
 * has never received evidence is "not reported" on the trust page. The page keeps reported
 * and not reported apart, but a control the vendor will never feed only adds noise, so the
 * dashboard lists them with a Disable button each.
 */
import { h, icon } from "../../dom.js";
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
  const item = (e) => {
    const button = h("button", {
      type: "button",
      class: "btn btn-secondary btn-small",
      "aria-label": `Disable ${e.control.publicName}`,
    }, "Disable");
    button.addEventListener("click", () =>
      runButton(button, errorSlot, async () => {
        await app.api.patch(
          projectPath(project.id, `/controls/${encodeURIComponent(e.control.id)}`),
          { enabled: false },
        );
        app.flash(
          `“${e.control.publicName}” disabled: the next version no longer lists it`,
        );
        await app.rerender();
      }));
    return h(
      "li",
      { class: "unreported-item" },
      h("span", {}, e.control.publicName, " ", h("code", {}, e.control.key)),
      button,
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
        "The trust page lists these as not reported: no evidence has ever arrived for them. ",
        "If you do not collect this evidence, disable them, so buyers see only what you report.",
      ),
      h("ul", { class: "unreported-list" }, silent.map(item)),
      errorSlot,
    ),
  );
}
