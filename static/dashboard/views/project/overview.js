/**
 * A project's overview, its default view: key facts, the live status of its
 * controls, and the control catalog where controls are configured; a warning
 * first when live work (recomputes, publishing, push) is not running.
 */
import { h, replace } from "../../dom.js";
import { formatDate } from "../../format.js";
import { href } from "../../routes.js";
import { facts } from "../layout.js";
import { liveBanner } from "../live_status.js";
import { catalogCard } from "./catalog.js";
import { checklistCard, gettingStartedSteps } from "./checklist.js";
import { privateNotice, projectPath, publicUrls, trustHost } from "./common.js";
import { statusCard } from "./status.js";
import { unreportedNotice } from "./unreported.js";

/** The public trust page's address, and why it may not answer yet. */
function publicPage(project, published) {
  const url = publicUrls(project).page;
  const why = project.visibility !== "public"
    ? "answers 404 while the project is private"
    : published
    ? null
    : "answers 404 until the first publish";
  return h(
    "span",
    {},
    h("a", { href: url, class: "url-link" }, url),
    why && h("span", { class: "muted" }, ` (${why})`),
  );
}

function projectFacts(app, project, controls, published) {
  const enabled = controls.filter((c) => c.enabled).length;
  return facts([
    ["Public page", publicPage(project, published)],
    ["Slug", h("code", {}, project.slug)],
    [
      "Hosted subdomain",
      project.hostedSubdomain ? `${project.hostedSubdomain}.${trustHost(app)}` : "Not set",
    ],
    [
      "Auto-publish",
      [
        project.autoPublish ? "On" : "Off",
        " · ",
        h("a", { href: href.project(project.id, "publish") }, "change in Publish"),
      ],
    ],
    ["Controls enabled", `${enabled} of ${controls.length}`],
    ["Created", h("time", { datetime: project.createdAt }, formatDate(project.createdAt))],
  ]);
}

export async function overviewSection(app, project) {
  const [{ controls }, { evaluations }, banner, steps] = await Promise.all([
    app.api.get(projectPath(project.id, "/controls")),
    app.api.get(projectPath(project.id, "/evaluations")),
    liveBanner(app, project.organizationId),
    gettingStartedSteps(app, project),
  ]);
  const published = steps.find((s) => s.id === "publish").done;
  let current = controls;
  const summary = h(
    "section",
    { class: "card summary-card", "aria-label": "Project details" },
    projectFacts(app, project, current, published),
  );
  return [
    banner,
    privateNotice(project),
    checklistCard(steps),
    summary,
    unreportedNotice(app, project, evaluations, controls),
    statusCard(app, project, evaluations, () => current.filter((c) => c.enabled).length),
    catalogCard(app, project, controls, {
      onChange: (next) => {
        current = next;
        replace(summary, projectFacts(app, project, next, published));
      },
    }),
  ];
}
