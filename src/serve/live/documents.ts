/**
 * The latest trust page's documents: the organization's and this project's, public ones
 * with a download link, restricted ones by title with a link to request access, and a link
 * to the project's documents page (/trust/{slug}/documents) for the rest.
 */
import { html } from "../../lib/html.ts";
import { documentItem, DOCUMENTS_STYLE } from "../../publish/render/documents.ts";
import { escapeMarkdown, link } from "../../publish/render/markdown.ts";
import { publicUrls } from "../../publish/urls.ts";
import { currentNda } from "../../store/documents.ts";
import { getOrganization } from "../../store/organizations.ts";
import { listedDocuments, presentPublic } from "../documents.ts";
import type { LiveSection } from "../live_sections.ts";

/** Most documents the section shows; the rest are on the documents page. */
const SHOWN = 10;

export const documentsSection: LiveSection = {
  id: "documents",
  async render({ kv, config, project }) {
    const organization = await getOrganization(kv, project.organizationId);
    if (!organization) return null;
    const [listed, nda] = await Promise.all([
      listedDocuments(kv, organization.id, { projectId: project.id }),
      currentNda(kv, organization.id),
    ]);
    if (listed.length === 0) return null;
    const documents = listed.slice(0, SHOWN).map((item) =>
      presentPublic(config, organization, item)
    );
    const all = publicUrls(config, project.slug).documents;
    const label = `All documents for ${project.name}`;
    const accepting = nda !== null;
    return {
      html: html`
        <section aria-labelledby="live-documents-title">
          <h2 id="live-documents-title">Documents</h2>
          <ul class="card docs">${documents.map((d) => documentItem(d, accepting))}</ul>
          <p><a href="${all}">${label}</a></p>
        </section>
      `,
      markdown: [
        "## Documents",
        "",
        ...documents.map((d) => {
          const action = d.downloadUrl
            ? link("Download", d.downloadUrl)
            : accepting && d.requestAccessUrl
            ? link("Request access", d.requestAccessUrl)
            : "Available on request";
          return `- **${escapeMarkdown(d.title)}**: ${action}`;
        }),
        "",
        link(label, publicUrls(config, project.slug).documentsMarkdown),
      ].join("\n"),
      styles: [DOCUMENTS_STYLE],
    };
  },
};
