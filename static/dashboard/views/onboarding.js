/** First run for a user without an organization: one workspace and its first project. */
import { field, h, handleSubmit } from "../dom.js";
import { href } from "../routes.js";
import { card } from "./layout.js";

const SLUG_PATTERN = "[a-z0-9]([a-z0-9\\-]{0,61}[a-z0-9])?";
const SLUG_TITLE = "1-63 lowercase letters, digits or inner hyphens";

function optional(value) {
  const text = String(value ?? "").trim();
  return text === "" ? undefined : text;
}

/** A radio group choosing private or public, private first and checked. */
export function visibilityChoice(name, current = "private") {
  const option = (value, label, description) => {
    const id = `${name}-${value}`;
    return h(
      "div",
      { class: "choice" },
      h("input", { type: "radio", id, name, value, checked: current === value }),
      h(
        "label",
        { for: id },
        h("span", { class: "choice-label" }, label),
        h("span", { class: "choice-description" }, description),
      ),
    );
  };
  return h(
    "fieldset",
    { class: "field choices" },
    h("legend", {}, "Visibility"),
    option(
      "private",
      "Private",
      "Only members see the project. Public trust pages, trust.json and feeds answer 404.",
    ),
    option("public", "Public", "Anyone can read the published trust profile, without signing in."),
  );
}

/** A slug input with the same rule the API enforces. */
export function slugInput(name, extra = {}) {
  return h("input", {
    name,
    autocomplete: "off",
    spellcheck: "false",
    maxlength: "63",
    pattern: SLUG_PATTERN,
    title: SLUG_TITLE,
    ...extra,
  });
}

/** The optional slugs, folded away: both are chosen from the names when left empty. */
function slugFields() {
  return h(
    "details",
    { class: "disclosure" },
    h("summary", {}, "Custom slugs (optional)"),
    field(
      "Workspace slug",
      slugInput("workspaceSlug"),
      "Used in the organization trust center address. Chosen from the name when left empty.",
    ),
    field(
      "Project slug",
      slugInput("projectSlug"),
      "Part of every public URL of the project (/trust/<slug>); it cannot be changed later.",
    ),
  );
}

function workspaceForm(errorSlot) {
  return h(
    "form",
    { class: "form" },
    field(
      "Workspace name",
      h("input", {
        name: "workspaceName",
        required: true,
        maxlength: "200",
        autocomplete: "organization",
      }),
      "Usually your company. Its members and projects live in the workspace.",
    ),
    field(
      "Project name",
      h("input", { name: "projectName", required: true, maxlength: "200" }),
      "The product or service whose trust profile you publish.",
    ),
    slugFields(),
    visibilityChoice("projectVisibility"),
    h(
      "div",
      { class: "alert alert-info" },
      h("strong", {}, "Projects start private. "),
      "Public pages of a private project answer 404, exactly like an unknown project, until you set its visibility to public. You can publish and preview in the dashboard either way.",
    ),
    errorSlot,
    h(
      "div",
      { class: "form-actions" },
      h("button", { type: "submit", class: "btn btn-primary" }, "Create workspace"),
    ),
  );
}

/** Creates the workspace and its project, then opens the project. */
async function bootstrap(app, data) {
  const body = {
    workspaceName: String(data.get("workspaceName")).trim(),
    projectName: String(data.get("projectName")).trim(),
    workspaceSlug: optional(data.get("workspaceSlug")),
    projectSlug: optional(data.get("projectSlug")),
    projectVisibility: data.get("projectVisibility") ?? "private",
  };
  const { organization, project } = await app.api.post("/onboarding/bootstrap", body);
  await app.loadMe({ force: true });
  app.flash(`Workspace “${organization.name}” is ready with its first project`);
  app.navigate(href.project(project.id));
}

export function onboardingView(app) {
  app.setTitle("Create your workspace");
  const errorSlot = h("div", { class: "form-errors" });
  const form = workspaceForm(errorSlot);
  handleSubmit(form, errorSlot, (data) => bootstrap(app, data));
  return h(
    "div",
    { class: "narrow" },
    h(
      "div",
      { class: "page-header" },
      h("p", { class: "eyebrow" }, "Welcome"),
      h("h1", { tabindex: "-1" }, "Create your workspace"),
      h(
        "p",
        { class: "page-meta" },
        `Signed in as ${app.me.user.email}. Set up a workspace and its first project; the default control catalog is added for you. Invited to an existing organization? Open the link from your invitation instead.`,
      ),
    ),
    card("Workspace and first project", form),
  );
}
