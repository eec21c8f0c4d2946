/**
 * An organization: its projects (list in pages, and create), the section tabs every organization view
 * shares, and a warning when live work is not running.
 */
import { badge, field, h, handleSubmit } from "../dom.js";
import { capitalize, formatDate } from "../format.js";
import { href } from "../routes.js";
import { liveBanner } from "./live_status.js";
import { dangerZone, deletionBanner } from "./danger_zone.js";
import { pendingRequestsNotice } from "./org_access.js";
import { slugInput, visibilityChoice } from "./onboarding.js";
import { withQuery } from "../api.js";
import { showMore } from "../widgets.js";
import {
  card,
  dataTable,
  emptyState,
  groupedTabs,
  pageHeader,
  tableRow,
  visibilityBadge,
} from "./layout.js";

/**
 * Sections of an organization, in the groups the navigation shows; later features add entries
 * to a group (or a group).
 */
export const ORGANIZATION_GROUPS = [
  {
    label: "Projects",
    sections: [{ id: "projects", label: "Projects", href: href.organization }],
  },
  {
    label: "Trust center",
    sections: [
      { id: "profile", label: "Vendor profile", href: href.profile },
      { id: "certifications", label: "Certifications", href: href.certifications },
      { id: "subprocessors", label: "Subprocessors", href: href.subprocessors },
      { id: "documents", label: "Documents", href: href.documents },
      { id: "subscribers", label: "Subscribers", href: href.subscribers },
    ],
  },
  {
    label: "Questionnaires",
    sections: [
      { id: "answers", label: "Answers", href: href.answers },
      { id: "questionnaires", label: "Questionnaires", href: href.questionnaires },
    ],
  },
  {
    label: "Access",
    sections: [
      { id: "members", label: "Members", href: href.members },
      { id: "api-access", label: "API access", href: href.apiAccess },
    ],
  },
  {
    label: "Settings",
    sections: [
      { id: "storage", label: "Storage", href: href.storage },
      { id: "live", label: "Live work", href: href.live },
    ],
  },
];

/** Every section of an organization, in the navigation's order. */
export const ORGANIZATION_SECTIONS = ORGANIZATION_GROUPS.flatMap((g) => g.sections);

/** The organization's projects, in pages (GET; `cursor` for the next). */
export const projectsPath = (organization) =>
  `/organizations/${encodeURIComponent(organization.id)}/projects`;

/** The organization's public trust center (every public, published project). */
export function trustCenterUrl(organization) {
  return `/public/trust/${encodeURIComponent(organization.slug)}`;
}

/** The header and section tabs every organization view starts with. */
export function organizationHeader(organization, current) {
  return [
    pageHeader({
      title: organization.name,
      badges: [badge(capitalize(organization.role), "info")],
      meta: [
        h("span", {}, "Slug ", h("code", {}, organization.slug)),
        h("a", { href: trustCenterUrl(organization) }, "Public trust center"),
      ],
    }),
    groupedTabs(
      "Organization",
      ORGANIZATION_GROUPS.map((group) => ({
        label: group.label,
        items: group.sections.map((s) => ({
          label: s.label,
          href: s.href(organization.id),
          current: s.id === current,
        })),
      })),
    ),
  ];
}

const PROJECT_COLUMNS = [
  {
    label: "Project",
    cell: (p) =>
      h(
        "span",
        { class: "project-cell" },
        h("a", { href: href.project(p.id), class: "strong-link" }, p.name),
        p.deletionDueAt && deletionMark(p.deletionDueAt),
      ),
  },
  { label: "Slug", cell: (p) => h("code", {}, p.slug) },
  { label: "Visibility", cell: (p) => visibilityBadge(p.visibility) },
  { label: "Auto-publish", cell: (p) => (p.autoPublish ? "On" : "Off") },
  {
    label: "Updated",
    cell: (p) => h("time", { datetime: p.updatedAt }, formatDate(p.updatedAt)),
  },
];

/** The mark of a project whose deletion is scheduled, wherever the project is listed. */
export function deletionMark(dueAt) {
  return badge(`Deletion scheduled: ${formatDate(dueAt, true)}`, "danger");
}

/** Projects of a page, each with when its scheduled deletion is due (or null). */
const withDeletions = (page) =>
  page.projects.map((p) => ({ ...p, deletionDueAt: page.deletionsDue?.[p.id] ?? null }));

/** The first page of projects, with a "Show more projects" button while pages remain. */
function projectList(app, organization, page) {
  const { nextCursor } = page;
  const projects = withDeletions(page);
  if (projects.length === 0) {
    return emptyState("No projects yet", "Create one below to get its default control catalog.");
  }
  const table = dataTable("Projects of the organization", PROJECT_COLUMNS, projects);
  const messages = h("div", { class: "form-errors" });
  const more = showMore({
    noun: ["project", "projects"],
    next: async (cursor) => {
      const page = await app.api.get(withQuery(projectsPath(organization), "cursor", cursor));
      return { items: withDeletions(page), nextCursor: page.nextCursor };
    },
    add: (items) => {
      const rows = items.map((p) => tableRow(PROJECT_COLUMNS, p));
      table.tBodies[0].append(...rows);
      return rows;
    },
    errorSlot: messages,
  });
  more.reset(nextCursor, projects.length);
  return [messages, table, more.element];
}

function createProjectForm(app, organization) {
  const errorSlot = h("div", { class: "form-errors" });
  const form = h(
    "form",
    { class: "form" },
    field("Project name", h("input", { name: "name", required: true, maxlength: "200" })),
    field(
      "Slug (optional)",
      slugInput("slug"),
      "Fixed at creation and part of every public URL. Chosen from the name when left empty.",
    ),
    visibilityChoice("visibility"),
    h(
      "div",
      { class: "field" },
      h(
        "div",
        { class: "choice" },
        h("input", { type: "checkbox", id: "new-project-auto-publish", name: "autoPublish" }),
        h(
          "label",
          { for: "new-project-auto-publish" },
          h("span", { class: "choice-label" }, "Auto-publish"),
          h(
            "span",
            { class: "choice-description" },
            "Off by default: you review each publication's changes before it goes out. Turn on to publish by itself whenever a control's state changes.",
          ),
        ),
      ),
    ),
    errorSlot,
    h(
      "div",
      { class: "form-actions" },
      h("button", { type: "submit", class: "btn btn-primary" }, "Create project"),
    ),
  );
  handleSubmit(form, errorSlot, async (data) => {
    const slug = String(data.get("slug") ?? "").trim();
    const { project } = await app.api.post("/projects", {
      organizationId: organization.id,
      name: String(data.get("name")).trim(),
      slug: slug || undefined,
      visibility: data.get("visibility") ?? "private",
      autoPublish: data.get("autoPublish") === "on",
    });
    app.flash(`Project “${project.name}” created`);
    app.navigate(href.project(project.id));
  });
  return form;
}

export async function organizationView(app, organizationId) {
  const organization = await app.requireOrganization(organizationId);
  app.setTitle("Projects", organization.name);
  const deletion = {
    kind: "organization",
    path: `/organizations/${encodeURIComponent(organization.id)}/deletion`,
    slug: organization.slug,
    owner: organization.role === "owner",
    what: "every project with its data, and the organization's documents, answers, " +
      "certifications, subprocessors, members and subscribers",
  };
  const [firstPage, banner, pending, deleting, danger] = await Promise.all([
    app.api.get(projectsPath(organization)),
    liveBanner(app, organization.id),
    pendingRequestsNotice(app, organization, href.documents(organization.id)),
    deletionBanner(app, deletion),
    dangerZone(app, deletion),
  ]);
  return h(
    "div",
    {},
    organizationHeader(organization, "projects"),
    deleting,
    banner,
    pending,
    h(
      "div",
      { class: "layout-split" },
      card("Projects", projectList(app, organization, firstPage), {
        description:
          "Each project publishes one trust profile from its own collectors and evidence.",
      }),
      card("New project", createProjectForm(app, organization), {
        description:
          "New projects start private, with the seven default controls and auto-publish off.",
      }),
    ),
    danger,
  );
}
