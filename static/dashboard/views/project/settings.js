/**
 * A project's settings: name, hosted subdomain and visibility, and its own evidence retention. Automatic publishing is
 * turned on and off beside the Publish button (publish.js), where the README says it is.
 */
import { field, h, handleSubmit, replace } from "../../dom.js";
import { card } from "../layout.js";
import { dangerZone } from "../danger_zone.js";
import { visibilityChoice } from "../onboarding.js";
import { retentionForm } from "../retention.js";
import { privateNotice, projectPath, trustHost } from "./common.js";

/** The fields of `next` that differ from `project`, as a PATCH body. */
function changes(project, next) {
  const body = {};
  for (const [key, value] of Object.entries(next)) {
    if (project[key] !== value) body[key] = value;
  }
  return body;
}

function subdomainField(app, project) {
  const host = trustHost(app);
  return field(
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
  );
}

function settingsForm(app, project, errorSlot) {
  return h(
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
    subdomainField(app, project),
    visibilityChoice("visibility", project.visibility),
    errorSlot,
    h(
      "div",
      { class: "form-actions" },
      h("button", { type: "submit", class: "btn btn-primary" }, "Save changes"),
    ),
  );
}

/** Saves what the form changed, or says there is nothing to save. */
async function save(app, project, data, errorSlot) {
  const subdomain = String(data.get("hostedSubdomain") ?? "").trim();
  const body = changes(project, {
    name: String(data.get("name")).trim(),
    hostedSubdomain: subdomain === "" ? null : subdomain,
    visibility: data.get("visibility"),
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
}

export async function settingsSection(app, project) {
  const errorSlot = h("div", { class: "form-errors" });
  const form = settingsForm(app, project, errorSlot);
  handleSubmit(form, errorSlot, (data) => save(app, project, data, errorSlot));
  const [organization, { retention }] = await Promise.all([
    app.requireOrganization(project.organizationId),
    app.api.get(`${projectPath(project.id)}/retention`),
  ]);
  return [
    privateNotice(project, "below"),
    h("div", { class: "constrained" }, card("Project settings", form)),
    h(
      "div",
      { class: "constrained" },
      card(
        "Evidence retention",
        retentionForm(app, {
          path: `${projectPath(project.id)}/retention`,
          retention,
          isOwner: organization.role === "owner",
          scope: "project",
        }),
        {
          description:
            "How long this project keeps evidence: always the latest of each type and what a published version cites; otherwise the days, or the newest records of each type, whichever keeps more.",
        },
      ),
    ),
    await dangerZone(app, {
      kind: "project",
      path: `${projectPath(project.id)}/deletion`,
      slug: project.slug,
      owner: organization.role === "owner",
      what:
        "its evidence, collectors, controls, versions, updates, domains, webhooks and subscribers",
    }),
  ];
}
