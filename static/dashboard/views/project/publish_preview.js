/**
 * The review step before a publish: what the next version would change, per
 * control (state before → after, with the reason), from
 * GET /projects/{id}/publish/preview. The operator confirms or cancels.
 */
import { h } from "../../dom.js";
import { plural } from "../../format.js";
import { dataTable, nameWithKey } from "../layout.js";
import { stateBadge } from "./state.js";

const muted = (text) => h("span", { class: "muted" }, text);

/** A state badge, or what its absence means on that side of the arrow. */
const stateOrNone = (state, none) => state ? stateBadge(state) : muted(none);

/** "Unknown → Pass", read as one phrase. */
function transition(from, to, { before, after }) {
  return h(
    "span",
    { class: "state-change" },
    stateOrNone(from, before),
    h("span", { class: "state-arrow", "aria-hidden": "true" }, "→"),
    h("span", { class: "visually-hidden" }, " becomes "),
    stateOrNone(to, after),
  );
}

function changesTable(preview) {
  return dataTable(
    `Changes in version ${preview.version}`,
    [
      { label: "Control", cell: (c) => nameWithKey(c.name, c.key) },
      {
        label: "State",
        cell: (c) => transition(c.from, c.to, { before: "Not published", after: "Removed" }),
      },
      { label: "Reason", cell: (c) => h("span", { class: "reason" }, c.reason ?? "") },
    ],
    preview.controls,
    { className: "preview-table" },
  );
}

function summary(preview) {
  const changed = preview.controls.length;
  if (preview.previousVersion === null) {
    return `Version 1 publishes ${plural(changed, "control")} for the first time.`;
  }
  if (changed === 0) {
    return `No control changes state since version ${preview.previousVersion}; publishing adds version ${preview.version} with the same states and new times.`;
  }
  return `${plural(changed, "control")} ${
    changed === 1 ? "changes" : "change"
  } state since version ${preview.previousVersion}; ${plural(preview.unchangedCount, "other")} ${
    preview.unchangedCount === 1 ? "stays" : "stay"
  } the same.`;
}

/**
 * The review panel. `confirm` is the button that publishes, `cancel` the one
 * that closes the panel; the heading takes focus when the panel opens.
 */
export function previewPanel(preview, { confirm, cancel }) {
  const headingId = `publish-preview-${preview.version}`;
  return h(
    "section",
    { class: "publish-preview", "aria-labelledby": headingId },
    h("h3", { id: headingId, tabindex: "-1" }, `Review version ${preview.version}`),
    h("p", {}, summary(preview)),
    h(
      "p",
      { class: "preview-overall" },
      h("strong", {}, "Overall state: "),
      transition(preview.overallState.from, preview.overallState.to, {
        before: "Not published",
        after: "—",
      }),
    ),
    preview.controls.length > 0 && changesTable(preview),
    h(
      "p",
      { class: "hint" },
      "States are evaluated again at the instant you publish, so evidence arriving meanwhile is included.",
    ),
    h("div", { class: "form-actions" }, confirm, cancel),
  );
}
