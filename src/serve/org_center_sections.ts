/**
 * The parts of the organization trust center beyond its rendered page: the banner of open
 * incidents and advisories, the certification cards and the documents with the way to request
 * restricted ones, each a live-block section with its placement.
 */
import type { OrganizationTrustCenter } from "../domain/publish.ts";
import { html } from "../lib/html.ts";
import { BANNER_STYLE, updatesBanner, updatesBannerMarkdown } from "../publish/render/banner.ts";
import {
  CERTIFICATIONS_STYLE,
  certificationsMarkdown,
  certificationsSection,
} from "../publish/render/certifications.ts";
import { documentItem, DOCUMENTS_STYLE } from "../publish/render/documents.ts";
import { escapeMarkdown, link } from "../publish/render/markdown.ts";
import type { LiveSectionContent } from "./live_sections.ts";
import { OFFERING_STYLE, offeringHtml, offeringMarkdown } from "../publish/render/offering.ts";

/** Most documents the trust center lists; the rest are on its documents page. */
const SHOWN_DOCUMENTS = 10;

/** The banner of open incidents and advisories, at the top; null when none is open. */
export function orgBannerContent(center: OrganizationTrustCenter): LiveSectionContent | null {
  if (center.openUpdates.length === 0) return null;
  const items = center.openUpdates.map(({ project, ...update }) => ({ update, project }));
  return {
    placement: "banner",
    html: updatesBanner(items, "banner"),
    markdown: updatesBannerMarkdown(items),
    styles: [BANNER_STYLE],
  };
}

/** The certification cards, after the headline; null without any. */
export function orgCertificationsContent(
  center: OrganizationTrustCenter,
): LiveSectionContent | null {
  if (center.certifications.length === 0) return null;
  return {
    placement: "top",
    html: certificationsSection(center.certifications, {
      idPrefix: "certifications",
      showProject: true,
    }),
    markdown: certificationsMarkdown(center.certifications),
    styles: [CERTIFICATIONS_STYLE],
  };
}

/** The documents it shares and the access-request entry; null when it shares none. */
export function orgDocumentsContent(center: OrganizationTrustCenter): LiveSectionContent | null {
  if (center.documents.length === 0) return null;
  const shown = center.documents.slice(0, SHOWN_DOCUMENTS);
  const request = center.accessRequestUrl;
  const restricted = center.documents.some((d) => d.visibility === "restricted");
  const how = !restricted
    ? "Every document here can be downloaded."
    : request
    ? "Restricted documents are sent on request, once you accept the NDA."
    : "Restricted documents cannot be requested yet.";
  return {
    html: html`
      <section aria-labelledby="documents-title">
        <h2 id="documents-title">Documents</h2>
        <p class="note">${how}</p>
        <ul class="card docs">${shown.map((d) => documentItem(d, center.acceptingRequests))}</ul>
        <p>
          <a href="${center.documentsUrl}">All documents and the NDA</a>
          ${request && restricted
            ? html`
              · <a href="${request}">Request restricted documents</a>
            `
            : ""}
        </p>
      </section>
    `,
    markdown: [
      "## Documents",
      "",
      how,
      "",
      ...shown.map((d) => {
        const action = d.downloadUrl
          ? link("Download", d.downloadUrl)
          : center.acceptingRequests && d.requestAccessUrl
          ? link("Request access", d.requestAccessUrl)
          : "Available on request";
        return `- **${escapeMarkdown(d.title)}**: ${action}`;
      }),
      "",
      link("All documents and the NDA", center.documentsUrl),
      ...(request && restricted ? ["", link("Request restricted documents", request)] : []),
    ].join("\n"),
    styles: [DOCUMENTS_STYLE],
  };
}

/**
 * The cloud service offering (FRR-ADS-01) with the links to "How to get access" and the trust
 * center's status; only those links while the vendor has not described the offering.
 */
export function orgOfferingContent(center: OrganizationTrustCenter): LiveSectionContent {
  if (!center.offering) {
    const links = html`
      <p><a href="${center.accessUrl}">How to get access</a> · <a href="${center
        .statusUrl}">Trust center status</a></p>
    `;
    return {
      html: links,
      markdown: `${link("How to get access", center.accessUrl)} · ${
        link("Trust center status", center.statusUrl)
      }`,
    };
  }
  const offering = center.offering;
  return {
    html: offeringHtml(offering, center.accessUrl, center.statusUrl),
    markdown: offeringMarkdown(offering, center.accessUrl, center.statusUrl),
    styles: [OFFERING_STYLE],
  };
}
