/**
 * The banner of open incidents and advisories: at the top of the latest trust page and the
 * organization trust center, in Markdown too, for as long as one is not resolved. Each entry
 * says what it is (word and icon, never colour alone), links to its page and says since when.
 */
import type { PublicTrustUpdate } from "../../domain/updates.ts";
import { type Html, html } from "../../lib/html.ts";
import { utc } from "./_format.ts";
import { icon, time } from "./_page.ts";
import { escapeMarkdown, link } from "./markdown.ts";

/** An open update, with the project it belongs to on pages that list several. */
export interface BannerItem {
  update: PublicTrustUpdate;
  project: { name: string; slug: string } | null;
}

/** What the banner needs beyond the trust page's stylesheet (ASCII, allowed by hash). */
export const BANNER_STYLE = `
.banner{margin:0 0 1.25rem;padding:1rem 1.25rem;border:1px solid var(--border);
border-left:6px solid var(--st);border-radius:12px;background:var(--st-bg);color:var(--fg)}
.banner h2{display:flex;align-items:center;gap:.5rem;font-size:1.125rem;margin:0 0 .5rem;
color:var(--st)}
.banner h2 svg{width:1.25rem;height:1.25rem}
.banner ul{display:grid;gap:.4rem;margin:0;padding:0;list-style:none}
.banner li{overflow-wrap:anywhere}
.banner a{font-weight:650}
.banner .since{color:var(--fg);font-size:.875rem}
.banner time{display:inline}
`;

const KIND = { incident: "Incident", advisory: "Advisory", change: "Change" } as const;

/** The banner's heading: what is open, in words. */
export function bannerTitle(items: readonly BannerItem[]): string {
  const incidents = items.filter((i) => i.update.kind === "incident").length;
  const advisories = items.length - incidents;
  if (advisories === 0) {
    return incidents === 1 ? "Ongoing incident" : `${incidents} ongoing incidents`;
  }
  if (incidents === 0) return advisories === 1 ? "Open advisory" : `${advisories} open advisories`;
  return `${incidents} ongoing incident${incidents === 1 ? "" : "s"} and ${advisories} open ${
    advisories === 1 ? "advisory" : "advisories"
  }`;
}

/** The banner; `idPrefix` keeps its heading's id unique. Empty without open updates. */
export function updatesBanner(items: readonly BannerItem[], idPrefix: string): Html {
  if (items.length === 0) return html``;
  const look = items.some((i) => i.update.kind === "incident") ? "fail" : "degraded";
  const id = `${idPrefix}-title`;
  const entries = items.map(({ update, project }) => {
    const what = project ? `${KIND[update.kind]} · ${project.name}` : KIND[update.kind];
    return html`
      <li>
        <strong>${what}:</strong>
        <a href="${update.url}">${update.title}</a>
        <span class="since">since ${time(update.postedAt)}</span>
      </li>
    `;
  });
  return html`
    <section class="banner s-${look}" aria-labelledby="${id}">
      <h2 id="${id}">${icon(look)}${bannerTitle(items)}</h2>
      <ul>${entries}</ul>
    </section>
  `;
}

/** The banner as Markdown: a quote block, one line per open update. */
export function updatesBannerMarkdown(items: readonly BannerItem[]): string {
  if (items.length === 0) return "";
  return [
    `> **${bannerTitle(items)}**`,
    ">",
    ...items.map(({ update, project }) =>
      `> - ${KIND[update.kind]}${project ? ` (${escapeMarkdown(project.name)})` : ""}: ${
        link(update.title, update.url)
      }, since ${utc(update.postedAt)}`
    ),
  ].join("\n");
}
