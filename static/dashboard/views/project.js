/**
 * A project: its overview (facts and control catalog) and its settings.
 * Sections are listed in PROJECT_SECTIONS; each renders below the shared
 * header and tabs, so later features add a section, not a page.
 */
import { badge, field, h, handleSubmit, replace } from "../dom.js";
import { capitalize, describeFreshness, formatDate } from "../format.js";
import { href } from "../routes.js";
import { card, dataTable, emptyState, facts, pageHeader, tabs, visibilityBadge } from "./layout.js";
import { visibilityChoice } from "./onboarding.js";

const projectPath = (id) => `/projects/${encodeURIComponent(id)}`;

function trustHost(app) {
  try {
    return new URL(app.config.trustPageBase).host;
  } catch {
    return "";
  }
}

function hostedAddress(app, project) {
  return project.hostedSubdomain ? `${project.hostedSubdomain}.${trustHost(app)}` : "Not set";
}

/** Says what private means; `where` points at the control that changes it. */
function privateNotice(project, where) {
  if (project.visibility === "public") return null;
  return h(
    "div",
    { class: "alert alert-info" },
    h("strong", {}, "This project is private. "),
    "Its public trust page, trust.json and feeds answer 404 until you set the visibility to public ",
    where,
    ".",
  );
}

function controlsTable(controls) {
  if (controls.length === 0) {
    return emptyState("No controls", "This project has no controls configured.");
  }
  return dataTable("Control catalog", [
    { label: "Key", cell: (c) => h("code", {}, c.key) },
    { label: "Public name", cell: (c) => c.publicName },
    { label: "Category", cell: (c) => badge(capitalize(c.category)) },
    { label: "Freshness window", cell: (c) => describeFreshness(c.freshnessPolicyJson) },
    {
      label: "Enabled",
      cell: (c) => (c.enabled ? badge("Enabled", "success") : badge("Disabled")),
    },
  ], controls);
}

async function overviewSection(app, project) {
  const { controls } = await app.api.get(`${projectPath(project.id)}/controls`);
  const enabled = controls.filter((c) => c.enabled).length;
  return [
    privateNotice(project, [
      "in ",
      h("a", { href: href.project(project.id, "settings") }, "Settings"),
    ]),
    h(
      "section",
      { class: "card summary-card", "aria-label": "Project details" },
      facts([
        ["Slug", h("code", {}, project.slug)],
        ["Hosted subdomain", hostedAddress(app, project)],
        ["Auto-publish", project.autoPublish ? "On" : "Off"],
        ["Controls enabled", `${enabled} of ${controls.length}`],
        ["Created", h("time", { datetime: project.createdAt }, formatDate(project.createdAt))],
      ]),
    ),
    card("Control catalog", controlsTable(controls), {
      description:
        "Each control reads one stream of evidence or collector heartbeats and is judged against its freshness window.",
    }),
  ];
}

/** The fields of `next` that differ from `project`, as a PATCH body. */
function changes(project, next) {
  const body = {};
  for (const [key, value] of Object.entries(next)) {
    if (project[key] !== value) body[key] = value;
  }
  return body;
}

function settingsSection(app, project) {
  const errorSlot = h("div", { class: "form-errors" });
  const host = trustHost(app);
  const form = h(
    "form",
    { class: "form" },
    field(
      "Project name",
      h("input", { name: "name", required: true, maxlength: "200", value: project.name }),
    ),
    field(
      "Slug",
      h("input", { name: "slug", readonly: true, value: project.slug, class: "input-mono" }),
      "Fixed at creation: it is part of every public URL of the project, so it never changes.",
    ),
    field(
      "Hosted subdomain (optional)",
      h("input", {
        name: "hostedSubdomain",
        value: project.hostedSubdomain ?? "",
        class: "input-mono",
        autocomplete: "off",
        spellcheck: "false",
        maxlength: "63",
        pattern: "[a-z0-9]([a-z0-9\\-]{0,61}[a-z0-9])?",
        title: "1-63 lowercase letters, digits or inner hyphens",
      }),
      host
        ? `The trust page is also served at <subdomain>.${host}. Leave empty for none.`
        : "Leave empty for none.",
    ),
    visibilityChoice("visibility", project.visibility),
    h(
      "div",
      { class: "field" },
      h(
        "div",
        { class: "choice" },
        h("input", {
          type: "checkbox",
          id: "autoPublish",
          name: "autoPublish",
          checked: project.autoPublish,
        }),
        h(
          "label",
          { for: "autoPublish" },
          h("span", { class: "choice-label" }, "Auto-publish"),
          h(
            "span",
            { class: "choice-description" },
            "Publish a new version by itself when a recompute changes any control state (after the first publication).",
          ),
        ),
      ),
    ),
    errorSlot,
    h(
      "div",
      { class: "form-actions" },
      h("button", { type: "submit", class: "btn btn-primary" }, "Save changes"),
    ),
  );
  handleSubmit(form, errorSlot, async (data) => {
    const subdomain = String(data.get("hostedSubdomain") ?? "").trim();
    const body = changes(project, {
      name: String(data.get("name")).trim(),
      hostedSubdomain: subdomain === "" ? null : subdomain,
      visibility: data.get("visibility"),
      autoPublish: data.get("autoPublish") === "on",
    });
    if (Object.keys(body).length === 0) {
      replace(
        errorSlot,
        h("div", { class: "alert alert-info", role: "status" }, "Nothing to save"),
      );
      return;
    }
    await app.api.patch(projectPath(project.id), body);
    app.flash("Changes saved");
    app.rerender();
  });
  return [
    privateNotice(project, "below"),
    h("div", { class: "constrained" }, card("Project settings", form)),
  ];
}

/** Sections of a project, in tab order; `render` returns the nodes under the tabs. */
export const PROJECT_SECTIONS = [
  { id: "overview", label: "Overview", render: overviewSection },
  { id: "settings", label: "Settings", render: settingsSection },
];

export async function projectView(app, projectId, sectionId = "overview") {
  const section = PROJECT_SECTIONS.find((s) => s.id === sectionId);
  if (!section) return app.notFoundView();
  const { project } = await app.api.get(projectPath(projectId));
  const organization = await app.requireOrganization(project.organizationId);
  app.setTitle(section.label, project.name);
  const content = await section.render(app, project);
  return h(
    "div",
    {},
    pageHeader({
      title: project.name,
      crumbs: [{ label: organization.name, href: href.organization(organization.id) }],
      badges: [visibilityBadge(project.visibility)],
      meta: [`Updated ${formatDate(project.updatedAt, true)}`],
    }),
    tabs(
      "Project",
      PROJECT_SECTIONS.map((s) => ({
        label: s.label,
        href: href.project(project.id, s.id === "overview" ? undefined : s.id),
        current: s.id === section.id,
      })),
    ),
    content,
  );
}
