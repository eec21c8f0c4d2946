/**
 * The public document lists, HTML and Markdown: an organization's (every document it lists)
 * and a project's (the project's own and the organization-wide ones). No scripts; every
 * vendor-given text is escaped.
 */
import type {
  PublicDocument,
  PublicDocuments,
  PublicProjectDocuments,
} from "../../domain/documents.ts";
import { html } from "../../lib/html.ts";
import { documentItem, documentKind, hero, shell } from "./documents.ts";
import { escapeMarkdown, link } from "./markdown.ts";

/** What a document list page shows: whose documents, the list and where to go back to. */
interface ListPage {
  name: string;
  documents: PublicDocument[];
  acceptingRequests: boolean;
  /** Links after the lede, e.g. back to the trust center. */
  links: { label: string; href: string }[];
}

function listPageHtml(input: ListPage, lede: string): string {
  const { name } = input;
  const items = input.documents.length === 0
    ? html`<p class="card hero">${name} shares no documents yet.</p>`
    : html`<ul class="card docs">${
      input.documents.map((d) => documentItem(d, input.acceptingRequests))
    }</ul>`;
  const links = input.links.map((l) =>
    html`
      <a href="${l.href}">${l.label}</a>.
    `
  );
  return shell(
    `${name}: documents`,
    html`
      ${hero("Trust center", `${name}: documents`, html`${lede}${links}`)}
      <section aria-labelledby="docs-title">
        <h2 id="docs-title">Documents</h2>
        ${items}
      </section>
    `,
  );
}

function listPageMarkdown(input: ListPage): string {
  const name = escapeMarkdown(input.name);
  const lines = input.documents.length === 0
    ? [`${name} shares no documents yet.`]
    : input.documents.map((d) => {
      const action = d.downloadUrl
        ? link("Download", d.downloadUrl)
        : input.acceptingRequests && d.requestAccessUrl
        ? link("Request access", d.requestAccessUrl)
        : "Available on request";
      return `- **${escapeMarkdown(d.title)}** (${escapeMarkdown(documentKind(d))}): ${action}`;
    });
  const links = input.links.map((l) => link(l.label, l.href)).join(" · ");
  return [`# ${name}: documents`, "", links, "", ...lines, ""].join("\n");
}

function organizationPage(list: PublicDocuments, trustCenter: string): ListPage {
  return {
    name: list.organization.name,
    documents: list.documents,
    acceptingRequests: list.acceptingRequests,
    links: [{ label: "Back to the trust center", href: trustCenter }],
  };
}

/** The public document list as a complete page; `trustCenter` is the organization page. */
export function renderDocumentsHtml(list: PublicDocuments, trustCenter: string): string {
  const name = list.organization.name;
  return listPageHtml(
    organizationPage(list, trustCenter),
    `Reports and policies ${name} shares. Restricted ones are sent on request, after accepting an NDA.`,
  );
}

/** The public document list as Markdown. Pure. */
export function renderDocumentsMarkdown(list: PublicDocuments, trustCenter: string): string {
  return listPageMarkdown({
    ...organizationPage(list, trustCenter),
    links: [{ label: "Trust center", href: trustCenter }],
  });
}

function projectPage(list: PublicProjectDocuments, trustPage: string): ListPage {
  return {
    name: list.project.name,
    documents: list.documents,
    acceptingRequests: list.acceptingRequests,
    links: [
      { label: "Back to the trust page", href: trustPage },
      { label: `All documents of ${list.organization.name}`, href: list.organizationDocumentsUrl },
    ],
  };
}

/** A project's documents page (its own and the organization's); `trustPage` is its page. */
export function renderProjectDocumentsHtml(
  list: PublicProjectDocuments,
  trustPage: string,
): string {
  return listPageHtml(
    projectPage(list, trustPage),
    `Reports and policies ${list.organization.name} shares about ${list.project.name} and the whole organization. Restricted ones are sent on request, after accepting an NDA.`,
  );
}

/** A project's documents page as Markdown. Pure. */
export function renderProjectDocumentsMarkdown(
  list: PublicProjectDocuments,
  trustPage: string,
): string {
  return listPageMarkdown(projectPage(list, trustPage));
}
