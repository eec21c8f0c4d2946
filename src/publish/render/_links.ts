/**
 * Links from a trust page to its companion documents. A person clicking one lands on a page
 * (version history, evaluation rules), a feed or image a browser shows, or a download:
 * the machine formats (trust.json, its JWS) carry `download`, never shown as raw text.
 */
import { type Html, html } from "../../lib/html.ts";
import type { TrustPageLinks } from "./html.ts";

/** A link to a companion document; machine formats are downloaded, never shown as text. */
export interface CompanionLink {
  href: string;
  label: string;
  about: string;
  /** Set for documents a browser would otherwise display raw: save under this name. */
  download?: string;
  type?: string;
}

export function companion(link: CompanionLink): Html {
  const attributes = link.download === undefined ? html`` : html`
    download="${link.download}" type="${link.type}"
  `;
  return html`
    <a href="${link.href}" ${attributes}>${link.label}</a>
  `;
}

export function verifyLinks(links: TrustPageLinks, slug: string): Html {
  const items: CompanionLink[] = [
    {
      href: links.trustJson,
      label: "Download trust.json",
      about: "The machine-readable profile: the exact bytes that are signed",
      download: `${slug}-trust.json`,
      type: "application/json",
    },
    {
      href: links.signature,
      label: "Download the signature (JWS)",
      about: "Compact JWS (EdDSA) over trust.json, chained to the previous version",
      download: `${slug}-trust.json.jws`,
      type: "application/jose",
    },
    {
      href: links.versions,
      label: "Version history",
      about: "Every version, its digest and the controls that changed",
    },
    { href: links.feed, label: "Atom feed", about: "Subscribe to new versions and state changes" },
    {
      href: links.evaluationRules,
      label: "Evaluation rules",
      about: "How every state and confidence is computed",
    },
    {
      href: links.badge,
      label: "Status badge",
      about: "An SVG badge of the overall state for READMEs and websites",
    },
  ];
  if (links.trustCenter) {
    items.push({
      href: links.trustCenter,
      label: "Trust center",
      about: "Every published project of this vendor",
    });
  }
  const list = items.map((item) => html`<li>${companion(item)}<p>${item.about}</p></li>`);
  return html`<ul class="links">${list}</ul>`;
}
