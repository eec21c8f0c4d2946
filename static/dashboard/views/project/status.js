/**
 * The live status of a project: the overall state, each enabled control's
 * evaluation and a recompute on demand.
 */
import { h, icon, replace, successAlert } from "../../dom.js";
import { formatPercent, plural } from "../../format.js";
import { runButton } from "../../widgets.js";
import { card, dataTable, emptyState, nameWithKey, timeAgo } from "../layout.js";
import { projectPath } from "./common.js";
import { overallState, stateBadge, stateCounts, stateMeta } from "./state.js";

const muted = (text) => h("span", { class: "muted" }, text);

/** A time, or why there is none: `none` once evidence exists, a dash before any. */
const optionalTime = (e, iso, none) => iso ? timeAgo(iso) : muted(e.latestEvidenceAt ? none : "—");

function evaluationsTable(evaluations) {
  return dataTable(
    "Control status",
    [
      { label: "Control", cell: (e) => nameWithKey(e.control.publicName, e.control.key) },
      { label: "State", cell: (e) => stateBadge(e.state) },
      { label: "Confidence", cell: (e) => formatPercent(e.confidence), className: "cell-number" },
      { label: "Reason", cell: (e) => h("span", { class: "reason" }, e.reason) },
      {
        label: "Evidence age",
        cell: (e) => (e.latestEvidenceAt ? timeAgo(e.latestEvidenceAt) : muted("No evidence")),
      },
      { label: "Fresh until", cell: (e) => optionalTime(e, e.freshUntil, "No window") },
      { label: "Next check", cell: (e) => optionalTime(e, e.nextCheckAt, "None scheduled") },
    ],
    evaluations,
    { className: "status-table" },
  );
}

/** The overall state, how many controls are in each state, and when they were evaluated. */
function overallPanel(evaluations) {
  const states = evaluations.map((e) => e.state);
  const overall = stateMeta(overallState(states));
  const latest = evaluations.map((e) => e.updatedAt).sort().at(-1);
  return h(
    "div",
    { class: `overall overall-${overall.tone}` },
    h(
      "div",
      { class: "overall-state" },
      h("span", { class: "overall-label" }, "Overall state"),
      h("span", { class: "overall-value" }, icon(overall.icon), overall.label),
    ),
    h(
      "ul",
      { class: "overall-counts", "aria-label": "Controls by state" },
      stateCounts(states).map(([state, n]) => h("li", {}, stateBadge(state), ` ${n}`)),
    ),
    latest && h("p", { class: "overall-meta" }, "Evaluated ", timeAgo(latest)),
  );
}

/** The status card; `enabledCount()` says how many controls a recompute would evaluate. */
export function statusCard(app, project, evaluations, enabledCount) {
  const body = h("div", {});
  const messages = h("div", { class: "form-errors" });
  const show = (list) => {
    replace(
      body,
      list.length === 0
        ? emptyState(
          "Not evaluated yet",
          `Recompute to evaluate the ${enabledCount()} enabled controls against the evidence received so far.`,
        )
        : [overallPanel(list), evaluationsTable(list)],
    );
  };
  const button = h(
    "button",
    {
      type: "button",
      class: "btn btn-primary",
      on: {
        click: () =>
          runButton(button, messages, async () => {
            const { evaluations: fresh } = await app.api.post(
              projectPath(project.id, "/evaluations/recompute"),
            );
            show(fresh);
            replace(messages, successAlert(`Recomputed ${plural(fresh.length, "control")}`));
          }),
      },
    },
    icon("refresh"),
    "Recompute now",
  );
  show(evaluations);
  return card("Status", [messages, body], {
    description:
      "Each enabled control judged against its latest evidence. Recomputes also run by themselves when evidence arrives or ages.",
    actions: button,
  });
}
