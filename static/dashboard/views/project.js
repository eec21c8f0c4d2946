/**
 * A project: its header and section tabs over one section. Sections are
 * listed in PROJECT_SECTIONS, so a new feature adds a section, not a page.
 */
import { h } from "../dom.js";
import { formatDate } from "../format.js";
import { href } from "../routes.js";
import { pageHeader, tabs, visibilityBadge } from "./layout.js";
import { deletionBanner } from "./danger_zone.js";
import { collectorsSection } from "./project/collectors.js";
import { projectPath } from "./project/common.js";
import { domainsSection } from "./project/domains.js";
import { evidenceSection } from "./project/evidence.js";
import { frameworksSection } from "./project/frameworks.js";
import { overviewSection } from "./project/overview.js";
import { publishSection } from "./project/publish.js";
import { settingsSection } from "./project/settings.js";
import { updatesSection } from "./project/updates.js";
import { webhooksSection } from "./project/webhooks.js";

/** Sections of a project, in tab order; `render` returns the nodes under the tabs. */
export const PROJECT_SECTIONS = [
  { id: "overview", label: "Overview", render: overviewSection },
  { id: "publish", label: "Publish", render: publishSection },
  { id: "collectors", label: "Collectors", render: collectorsSection },
  { id: "evidence", label: "Evidence", render: evidenceSection },
  { id: "frameworks", label: "Frameworks", render: frameworksSection },
  { id: "domains", label: "Domains", render: domainsSection },
  { id: "updates", label: "Updates", render: updatesSection },
  { id: "webhooks", label: "Webhooks", render: webhooksSection },
  { id: "settings", label: "Settings", render: settingsSection },
];

export async function projectView(app, projectId, sectionId = "overview") {
  const section = PROJECT_SECTIONS.find((s) => s.id === sectionId);
  if (!section) return app.notFoundView();
  const { project } = await app.api.get(projectPath(projectId));
  const organization = await app.requireOrganization(project.organizationId);
  app.setTitle(section.label, project.name);
  const [content, banner] = await Promise.all([
    section.render(app, project),
    deletionBanner(app, {
      kind: "project",
      path: `${projectPath(project.id)}/deletion`,
      owner: organization.role === "owner",
    }),
  ]);
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
    banner,
    content,
  );
}
