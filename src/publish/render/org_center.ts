/**
 * The organization trust center as HTML and Markdown: who the vendor is, then one entry per
 * published project with its overall state, counts, version and publication time. Rendered
 * per request from stored data; the HTML takes the same stylesheet as the trust page, plus
 * the vendor's brand colour and logo, which `orgTrustCenterCsp` allows and nothing more.
 */
import type { OrganizationTrustCenter } from "../../domain/publish.ts";
import { type Html, html } from "../../lib/html.ts";
import { summaryLine, utc, verdict } from "./_format.ts";
import { page, pill, time, topBar } from "./_page.ts";
import { trustPageCsp } from "./_style.ts";
import { escapeMarkdown, link, row } from "./markdown.ts";
import { vendorCard, vendorCsp, vendorHead, vendorMarkdown } from "./vendor.ts";

type CenterProject = OrganizationTrustCenter["projects"][number];

/** What the rendered page shows; the trust center's other parts are added around it. */
export type TrustCenterPage = Pick<
  OrganizationTrustCenter,
  "organization" | "projects" | "vendor" | "url" | "subprocessorsUrl" | "publisherChange"
>;

function projectItem(project: CenterProject, href: string): Html {
  return html`
    <li class="card">
      <div>
        <h3><a href="${href}">${project.name}</a></h3>
        <p>
          ${summaryLine(project.summary)} · Version ${project.version} · Published ${time(
            project.publishedAt,
          )}
        </p>
      </div>
      ${pill(verdict(project.summary))}
    </li>
  `;
}

/** The name the trust center goes by: the vendor's, else the organization's. */
export function displayName(center: TrustCenterPage): string {
  return center.vendor?.name ?? center.organization.name;
}

/** The Content-Security-Policy of a trust center page (its vendor's colour and logo). */
export function orgTrustCenterCsp(center: TrustCenterPage): string {
  return trustPageCsp(vendorCsp(center.vendor));
}

/**
 * Renders an organization's trust center as a complete HTML document: the vendor's name,
 * its card (logo, description, website, security contact) and one entry per published
 * project with its headline verdict (word and icon; `verdict`), how many controls pass, its version and
 * publication time, linking to `links(slug)`. Serve it with `orgTrustCenterCsp(center)`.
 */
export function renderOrgTrustCenterHtml(
  center: TrustCenterPage,
  links: (slug: string) => string,
): string {
  const name = displayName(center);
  const count = center.projects.length;
  const list = count === 0
    ? html`<p class="card hero">No project of ${name} has published a trust profile yet.</p>`
    : html`<ul class="projects">${center.projects.map((p) => projectItem(p, links(p.slug)))}</ul>`;
  const lede = `${count} ${count === 1 ? "project publishes" : "projects publish"} live, ` +
    "signed trust profiles. Each links to its controls, evidence times and trust.json.";
  const description = `${name} trust center. ${lede}`;
  const head = html`
    <meta name="description" content="${description}">
    ${vendorHead(center.vendor)}
  `;
  const body = html`
    ${topBar("Trust center")}
    <main id="main" class="wrap">
      <section class="card hero" aria-labelledby="title">
        <div>
          <p class="eyebrow">Trust center</p>
          <h1 id="title">${name}</h1>
          <p class="lede">${lede}</p>
          ${center.publisherChange
            ? html`<p role="note"><strong>Another publisher.</strong> ${center.publisherChange.notice}</p>`
            : ""}
        </div>
      </section>
      ${vendorCard(center.vendor, "About")}
      <section aria-labelledby="projects-title">
        <h2 id="projects-title">Projects</h2>
        ${list}
      </section>
      <section aria-labelledby="subprocessors-title">
        <h2 id="subprocessors-title">Subprocessors</h2>
        <p class="card hero">
          <a href="${center
            .subprocessorsUrl}">Subprocessors of ${name}</a>: the third parties that process data for it, and every change to the list.
        </p>
      </section>
    </main>
  `;
  return page(`${name}: trust center`, head, body);
}

/**
 * Renders an organization's trust center as Markdown: the vendor's name and section, and
 * a table with one row per published project (linked to `links(slug)`), its headline verdict
 * (`verdict`: reported and required controls), how many controls pass, its version and publication time. Pure.
 */
export function renderOrgTrustCenterMarkdown(
  center: TrustCenterPage,
  links: (slug: string) => string,
): string {
  const name = escapeMarkdown(displayName(center));
  const count = center.projects.length;
  const projects = count === 0 ? [`No project of ${name} has published a trust profile yet.`] : [
    "| Project | Verdict | Controls | Version | Published |",
    "|---|---|---|---:|---|",
    ...center.projects.map((p) =>
      row([
        link(p.name, links(p.slug)),
        verdict(p.summary),
        summaryLine(p.summary),
        String(p.version),
        utc(p.publishedAt),
      ])
    ),
  ];
  return [
    `# ${name}: trust center`,
    "",
    `${count} ${
      count === 1 ? "project publishes" : "projects publish"
    } a live, signed trust profile.`,
    "",
    ...(center.publisherChange
      ? [`**Another publisher.** ${escapeMarkdown(center.publisherChange.notice)}`, ""]
      : []),
    ...vendorMarkdown(center.vendor, { escape: escapeMarkdown, link }),
    "## Projects",
    "",
    ...projects,
    "",
    "## Subprocessors",
    "",
    `${
      link(`Subprocessors of ${displayName(center)}`, center.subprocessorsUrl)
    }: the third parties that process data for it, and every change to the list.`,
    "",
  ].join("\n");
}
