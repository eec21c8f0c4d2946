/**
 * What the service made of each evidence record, for the Evidence table: the reading taken
 * when it arrived (the format recognized and the probe's one line, or that nothing could be
 * read), and the control it decides with that control's current state, so a document the
 * service could not read never looks like a good one.
 */
import { badge, h } from "../../dom.js";
import { stateBadge } from "./state.js";

/** VEX documents are sent as vulnerability scans and applied to the scans' findings. */
const VEX_FORMATS = ["openvex", "cyclonedx-vex", "csaf-vex"];

/** The reading cell: the summary, under a badge when the service could not read the record. */
export function readingCell(record) {
  const reading = record.reading;
  if (!reading) return h("span", { class: "muted" }, "Not recorded");
  if (!reading.understood) {
    return h(
      "div",
      { class: "reading reading-unread" },
      badge("Not understood", "warning", "warning"),
      h("span", { class: "cell-sub" }, reading.summary),
    );
  }
  return h(
    "div",
    { class: "reading" },
    h("span", {}, reading.summary),
    reading.format && h("span", { class: "cell-sub" }, "Format ", h("code", {}, reading.format)),
  );
}

/**
 * What the control cell needs: the enabled controls by evidence type and each control's
 * stored evaluation, from the project's controls and evaluations.
 */
export function controlIndex(controls, evaluations) {
  const byType = new Map();
  for (const control of controls.filter((c) => c.enabled && c.evidenceType)) {
    byType.set(control.evidenceType, [...(byType.get(control.evidenceType) ?? []), control]);
  }
  const evaluation = new Map(evaluations.map((e) => [e.trustControlId, e]));
  return { byType, evaluation };
}

/** One control's line: its name and state when this record decides it, else why not. */
function controlLine(record, control, evaluation) {
  if (evaluation?.latestEvidenceRecordId === record.id) {
    return h(
      "li",
      {},
      h("span", { class: "control-name" }, control.publicName),
      " ",
      stateBadge(evaluation.state),
    );
  }
  const why = !evaluation || evaluation.latestEvidenceRecordId === null
    ? "not evaluated yet"
    : "a newer record decides it";
  return h("li", { class: "muted" }, `${control.publicName}: ${why}`);
}

/** The control cell: the controls that read the record's type, and what it did to them. */
export function controlCell(record, index) {
  if (VEX_FORMATS.includes(record.reading?.format)) {
    const scans = index.byType.get("vulnerability_scan") ?? [];
    return h(
      "span",
      { class: "muted" },
      scans.length
        ? `Applied to the findings of ${scans.map((c) => c.publicName).join(", ")}`
        : "No enabled control reads vulnerability scans",
    );
  }
  const controls = index.byType.get(record.evidenceType) ?? [];
  if (controls.length === 0) return h("span", { class: "muted" }, "No enabled control reads it");
  return h(
    "ul",
    { class: "control-effects" },
    controls.map((control) => controlLine(record, control, index.evaluation.get(control.id))),
  );
}
