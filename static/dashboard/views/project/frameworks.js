/**
 * Framework mappings of a project: each control with the SOC 2, ISO/IEC 27001, NIST SSDF and
 * SLSA criteria it supports. Default catalog controls show their built-in mapping; custom
 * controls are mapped here, one criterion per line ("iso27001 A.8.8"), checked by the API
 * against the catalog at /public/frameworks.
 */
import { badge, field, h, handleSubmit, replace, successAlert } from "../../dom.js";
import { card, emptyState } from "../layout.js";
import { privateNotice, projectPath, publicUrls } from "./common.js";

/** "iso27001 A.8.8" per criterion, in the order stored. */
const asLines = (criteria) => criteria.map((c) => `${c.framework} ${c.id}`).join("\n");

/** The lines of the textarea as criteria; blank lines are skipped. */
function parseLines(text) {
  return text.split("\n").map((line) => line.trim()).filter(Boolean).map((line) => {
    const [framework, ...rest] = line.split(/\s+/);
    return { framework: framework.toLowerCase(), id: rest.join(" ") };
  });
}

function criteriaList(catalog, criteria) {
  if (criteria.length === 0) return h("p", { class: "muted" }, "Not mapped");
  const title = (c) =>
    catalog.frameworks.find((f) => f.id === c.framework)?.criteria.find((x) => x.id === c.id)
      ?.title ?? "";
  const name = (id) => catalog.frameworks.find((f) => f.id === id)?.name ?? id;
  return h(
    "ul",
    { class: "criteria-list" },
    criteria.map((c) => h("li", {}, h("code", {}, `${name(c.framework)} ${c.id}`), ` ${title(c)}`)),
  );
}

function mappingForm(app, project, mapping, reload) {
  const errorSlot = h("div", { class: "form-errors" });
  const textarea = h(
    "textarea",
    { name: "criteria", rows: "4", spellcheck: "false" },
    asLines(mapping.criteria),
  );
  const form = h(
    "form",
    { class: "form", "aria-label": `Criteria of ${mapping.publicName}` },
    field(
      "Criteria, one per line",
      textarea,
      "A framework id (soc2, iso27001, ssdf, slsa) and a criterion id, e.g. “iso27001 A.8.8” or “ssdf RV.1.1”. Leave empty to remove the mapping.",
    ),
    errorSlot,
    h(
      "div",
      { class: "form-actions" },
      h("button", { type: "submit", class: "btn btn-primary" }, "Save mapping"),
    ),
  );
  handleSubmit(form, errorSlot, async (data) => {
    const path = projectPath(
      project.id,
      `/controls/${encodeURIComponent(mapping.controlId)}/criteria`,
    );
    await app.api.put(path, { criteria: parseLines(String(data.get("criteria"))) });
    await reload(`Mapping of “${mapping.publicName}” saved`);
  });
  return form;
}

function mappingItem(app, project, catalog, mapping, reload) {
  const headingId = `mapping-${mapping.controlId}`;
  return h(
    "article",
    { class: "update", "aria-labelledby": headingId },
    h(
      "div",
      { class: "update-head" },
      h("h3", { id: headingId }, mapping.publicName, " ", h("code", {}, mapping.key)),
      mapping.source === "catalog" ? badge("Built-in mapping", "info") : badge("Custom", "neutral"),
    ),
    criteriaList(catalog, mapping.criteria),
    mapping.source === "custom"
      ? h(
        "details",
        { class: "disclosure" },
        h("summary", {}, "Edit mapping"),
        mappingForm(app, project, mapping, reload),
      )
      : null,
  );
}

export async function frameworksSection(app, project) {
  const catalog = await app.api.get("/public/frameworks");
  const view = {
    listSlot: h("div", { class: "update-list" }),
    messages: h("div", { class: "form-errors" }),
    load: async () => {
      const { mappings } = await app.api.get(projectPath(project.id, "/control-criteria"));
      replace(
        view.listSlot,
        mappings.length === 0
          ? emptyState("No controls", "This project has no controls configured.")
          : mappings.map((m) => mappingItem(app, project, catalog, m, view.reload)),
      );
    },
    reload: async (message) => {
      await view.load();
      replace(view.messages, successAlert(message));
    },
  };
  await view.load();
  return card("Framework mappings", [
    privateNotice(project),
    view.messages,
    view.listSlot,
  ], {
    description: [
      "The criteria each control's evidence supports, shown on the public ",
      h("a", { href: `${publicUrls(project).page}/frameworks` }, "framework view"),
      " and recorded in each version's OSCAL export. A mapping is not an audit opinion.",
    ],
  });
}
