/**
 * A project's updates for people: the updates page (a page of updates, newest first), one
 * update's page, both in HTML and Markdown, and the article the trust page's live section
 * shows. Titles are escaped; bodies arrive already rendered by the safe Markdown renderer
 * (src/lib/safe_markdown.ts). Served under the trust pages' CSP, with UPDATES_STYLE allowed
 * by hash.
 */
import type { PublicTrustUpdate, UpdateKind } from "../../domain/updates.ts";
import { type Html, Html as RawHtml, html } from "../../lib/html.ts";
import { utc } from "./_format.ts";
import { page, time, topBar } from "./_page.ts";
import { trustPageCsp } from "./_style.ts";
import { escapeMarkdown, link } from "./markdown.ts";

/** What update articles need beyond the trust page's stylesheet. */
export const UPDATES_STYLE = `
.updates{display:grid;gap:.75rem;margin:0 0 1rem;padding:0;list-style:none}
.upd{padding:1rem 1.25rem}
.uhead{display:flex;flex-wrap:wrap;align-items:center;gap:.35rem .75rem}
.uhead .eyebrow{margin:0}
.upd h2,.upd h3{font-size:1.125rem;margin:.35rem 0 0}
.ubody{margin-top:.5rem}
.ubody>:first-child{margin-top:0}
.ubody>:last-child{margin-bottom:0}
.ubody h3,.ubody h4,.ubody h5,.ubody h6{font-size:1rem;margin:1rem 0 .35rem}
.ubody pre{overflow-x:auto;padding:.75rem;border:1px solid var(--border);border-radius:8px}
.ubody blockquote{margin:0;padding-left:1rem;border-left:3px solid var(--border)}
.ubody table{border-collapse:collapse}
.ubody th,.ubody td{border:1px solid var(--border);padding:.25rem .5rem}
.img-alt{color:var(--muted)}
`;

/** The CSP of the updates pages. */
export function updatesCsp(): string {
  return trustPageCsp({ styles: [UPDATES_STYLE] });
}

export const KIND_LABELS: Readonly<Record<UpdateKind, string>> = {
  incident: "Incident",
  advisory: "Advisory",
  change: "Change",
};

/** "Resolved" or, for an incident still open, "Ongoing"; nothing for other open updates. */
export function statusLabel(update: PublicTrustUpdate): string | null {
  if (update.resolvedAt) return "Resolved";
  return update.kind === "incident" ? "Ongoing" : null;
}

function statusPill(update: PublicTrustUpdate): Html | string {
  const label = statusLabel(update);
  if (!label) return "";
  return html`<span class="pill ${update.resolvedAt ? "s-pass" : "s-fail"}">${label}</span>`;
}

/**
 * One update as an article: kind, status, title (linking to its page unless `own`),
 * dates and the rendered body. `level` is the title's heading level.
 */
export function updateArticle(
  update: PublicTrustUpdate,
  options: { level: 2 | 3; own?: boolean },
): Html {
  const id = `update-${update.id}`;
  const title = options.own
    ? html`${update.title}`
    : html`<a href="${update.url}">${update.title}</a>`;
  const heading = options.level === 2
    ? html`<h2 id="${id}">${title}</h2>`
    : html`<h3 id="${id}">${title}</h3>`;
  const edited = update.updatedAt !== update.postedAt
    ? html`<span>Edited ${time(update.updatedAt)}</span>`
    : "";
  const resolved = update.resolvedAt ? html`<span>Resolved ${time(update.resolvedAt)}</span>` : "";
  return html`
    <article class="card upd" aria-labelledby="${id}">
      <div class="uhead"><p class="eyebrow">${KIND_LABELS[update.kind]}</p>${statusPill(
        update,
      )}</div>
      ${heading}
      <p class="meta"><span>Posted ${time(update.postedAt)}</span>${resolved}${edited}</p>
      <div class="ubody">${new RawHtml(update.bodyHtml)}</div>
    </article>
  `;
}

/** Where the updates pages point; every URL is the caller's, used verbatim. */
export interface UpdatesLinks {
  page: string;
  json: string;
  markdown: string;
  /** The next (older) page, or null on the last one. */
  next: string | null;
  /** The first (newest) page, or null when this is it. */
  newest: string | null;
}

function pager(links: UpdatesLinks): Html | string {
  if (!links.next && !links.newest) return "";
  const newest = links.newest ? html`<li><a href="${links.newest}">Newest updates</a></li>` : "";
  const next = links.next ? html`<li><a href="${links.next}">Older updates</a></li>` : "";
  return html`
    <nav aria-label="Pages of updates">
      <ul class="pager">${newest}${next}</ul>
    </nav>
  `;
}

/** A page of updates as a complete HTML document. */
export function renderUpdatesHtml(
  input: { project: { name: string }; updates: readonly PublicTrustUpdate[]; links: UpdatesLinks },
): string {
  const name = input.project.name;
  const list = input.updates.length === 0
    ? html`<p class="card hero">${name} has posted no updates.</p>`
    : html`<ul class="updates">${
      input.updates.map((u) => html`<li>${updateArticle(u, { level: 2 })}</li>`)
    }</ul>`;
  const body = html`
    ${topBar("Trust page")}
    <main id="main" class="wrap">
      <section class="card hero" aria-labelledby="title">
        <div>
          <p class="eyebrow">Updates</p>
          <h1 id="title">${name}: updates</h1>
          <p class="lede">Incidents, advisories and changes, newest first. <a href="${input.links
            .page}">Back to the trust page</a> · <a href="${input.links
            .markdown}">Markdown</a> · <a href="${input.links.json}">JSON</a></p>
        </div>
      </section>
      ${list}
      ${pager(input.links)}
    </main>
  `;
  const head = html`<meta name="description" content="${`Updates from ${name}`}">`;
  return page(`${name}: updates`, html`${head}<style>${new RawHtml(UPDATES_STYLE)}</style>`, body);
}

/** One update's page as a complete HTML document. */
export function renderUpdateHtml(
  input: { project: { name: string }; update: PublicTrustUpdate; links: { updates: string } },
): string {
  const { project, update } = input;
  const body = html`
    ${topBar("Trust page")}
    <main id="main" class="wrap">
      <p><a href="${input.links.updates}">All updates from ${project.name}</a></p>
      <h1 class="vh">${project.name}: ${update.title}</h1>
      ${updateArticle(update, { level: 2, own: true })}
    </main>
  `;
  const head = html`<meta name="description" content="${`${project.name}: ${update.title}`}">`;
  return page(
    `${update.title} · ${project.name}`,
    html`${head}<style>${new RawHtml(UPDATES_STYLE)}</style>`,
    body,
  );
}

/** The body quoted, so its headings and lists stay inside the update in a Markdown page. */
function quoted(markdown: string): string {
  return markdown.replace(/\r\n?/g, "\n").trimEnd().split("\n").map((l) => `> ${l}`.trimEnd())
    .join("\n");
}

/** One update in Markdown, under a heading of `level`. */
export function updateMarkdown(update: PublicTrustUpdate, level: 2 | 3): string {
  const status = statusLabel(update);
  const facts = [
    `${KIND_LABELS[update.kind]}${status ? ` · ${status}` : ""}`,
    `posted ${utc(update.postedAt)}`,
    ...(update.resolvedAt ? [`resolved ${utc(update.resolvedAt)}`] : []),
    link("permalink", update.url),
  ];
  return [
    `${"#".repeat(level)} ${escapeMarkdown(update.title)}`,
    "",
    facts.join(", "),
    "",
    quoted(update.body),
  ].join("\n");
}

/** A page of updates as Markdown. */
export function renderUpdatesMarkdown(
  input: { project: { name: string }; updates: readonly PublicTrustUpdate[]; links: UpdatesLinks },
): string {
  const name = escapeMarkdown(input.project.name);
  const list = input.updates.length === 0
    ? [`${name} has posted no updates.`]
    : input.updates.flatMap((u) => [updateMarkdown(u, 2), ""]);
  const more = input.links.next ? [link("Older updates", input.links.next), ""] : [];
  return [
    `# ${name}: updates`,
    "",
    `Incidents, advisories and changes, newest first. ${link("Trust page", input.links.page)}`,
    "",
    ...list,
    ...more,
  ].join("\n").trimEnd() + "\n";
}

/** One update's page as Markdown. */
export function renderUpdateMarkdown(
  input: { project: { name: string }; update: PublicTrustUpdate; links: { updates: string } },
): string {
  return [
    `# ${escapeMarkdown(input.project.name)}: update`,
    "",
    updateMarkdown(input.update, 2),
    "",
    link("All updates", input.links.updates),
    "",
  ].join("\n");
}
