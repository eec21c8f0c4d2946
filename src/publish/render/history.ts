/**
 * A project's history for people: the versions page (HTML and Markdown) and the "changes
 * since the previous version" list each version's page carries. Pure, like every
 * renderer: a version's change list is stored with it, so it renders the same forever.
 */
import type { PublishedVersion, PublishedVersionChange } from "../../domain/publish.ts";
import { type Html, html } from "../../lib/html.ts";
import { type ChangeList, firstVersion, NO_REASON, stateLabel, utc } from "./_format.ts";
import { page, pill, time, topBar } from "./_page.ts";
import { changeListMarkdown, escapeMarkdown, link } from "./markdown.ts";

export type { ChangeList };

function changeItem(change: PublishedVersionChange): Html {
  const before = change.from === null
    ? html`<span class="pill s-unknown">New control</span>`
    : pill(change.from);
  const reason = change.reason
    ? html`<p class="reason">${change.reason}</p>`
    : html`<p class="reason none">${NO_REASON}</p>`;
  return html`
    <li>
      <p class="cname">${change.name}<span class="key"><code>${change.key}</code></span></p>
      <p class="move">
        <span class="vh">Before:</span>${before}
        <span class="arrow" aria-hidden="true">→</span>
        <span class="vh">After:</span>${pill(change.to)}
      </p>
      ${reason}
    </li>
  `;
}

/** The change list of one version as HTML (no heading; the caller names it). */
export function changeListHtml(changes: ChangeList): Html {
  if (changes.previousVersion === null) {
    return html`<p class="note">${firstVersion(changes.items.length)}</p>`;
  }
  if (changes.items.length === 0) {
    const same = `No control changed state since version ${changes.previousVersion}.`;
    return html`<p class="note">${same}</p>`;
  }
  return html`<ul class="changes">${changes.items.map(changeItem)}</ul>`;
}

/** The "Changes since the previous version" section of a version's trust page. */
export function changesSectionHtml(changes: ChangeList): Html {
  const title = changes.previousVersion === null
    ? "Changes since the previous version"
    : `Changes since version ${changes.previousVersion}`;
  return html`
    <section aria-labelledby="changes-title">
      <h2 id="changes-title">${title}</h2>
      ${changeListHtml(changes)}
    </section>
  `;
}

/** Where the versions page points: every URL is the caller's, used verbatim. */
export interface VersionsPageLinks {
  page: string;
  json: string;
  versionPage(version: number): string;
  versionTrustJson(version: number): string;
  /** The next (older) page, or null on the last one. */
  next: string | null;
  /** The first (newest) page, or null when this is it. */
  newest: string | null;
}

export interface VersionsPageInput {
  project: { name: string; slug: string };
  versions: readonly PublishedVersion[];
  links: VersionsPageLinks;
}

function changesOf(version: PublishedVersion): ChangeList {
  return {
    previousVersion: version.version > 1 ? version.version - 1 : null,
    items: version.changes,
  };
}

function versionItem(version: PublishedVersion, links: VersionsPageLinks, slug: string): Html {
  const n = version.version;
  const changes = changesOf(version);
  const heading = changes.previousVersion === null
    ? "What changed"
    : `Changes since version ${changes.previousVersion}`;
  return html`
    <li class="card version" aria-labelledby="v${n}">
      <div class="vhead">
        <h2 id="v${n}"><a href="${links.versionPage(n)}">Version ${n}</a></h2>
        ${pill(version.overallState)}
      </div>
      <p class="meta">
        Published ${time(version.publishedAt)}
        <a href="${links.versionTrustJson(n)}" download="${`${slug}-v${n}-trust.json`}"
          type="application/json">trust.json</a>
        <span class="digest"><span class="vh">Digest: </span><code>${version.digest}</code></span>
      </p>
      <h3>${heading}</h3>
      ${changeListHtml(changes)}
    </li>
  `;
}

function pager(links: VersionsPageLinks): Html {
  if (!links.next && !links.newest) return html``;
  const newest = links.newest ? html`<li><a href="${links.newest}">Newest versions</a></li>` : "";
  const next = links.next ? html`<li><a href="${links.next}">Older versions</a></li>` : "";
  return html`
    <nav aria-label="Pages of versions">
      <ul class="pager">${newest}${next}</ul>
    </nav>
  `;
}

/**
 * Renders a page of a project's versions as a complete HTML document: for each version,
 * its number (linking to its page), overall state (word and icon), publication time,
 * digest and every control that changed state since the version before it (before →
 * after, with the reason), plus links to older and newer pages. Same stylesheet and CSP
 * as the trust page.
 */
export function renderVersionsHtml(input: VersionsPageInput): string {
  const { project, versions, links } = input;
  const nav = html`
    <nav aria-label="Page">
      <ul>
        <li><a href="${links.page}">Trust profile</a></li>
        <li><a href="${links.json}">JSON</a></li>
      </ul>
    </nav>
  `;
  const list = versions.length === 0
    ? html`<p class="card hero">No version on this page.</p>`
    : html`<ol class="versions">${versions.map((v) => versionItem(v, links, project.slug))}</ol>`;
  const lede = "Every published version, newest first, with the controls whose state changed " +
    "and why. Each version is signed and never changes once published.";
  const body = html`
    ${topBar("Version history", nav)}
    <main id="main" class="wrap">
      <section class="card hero" aria-labelledby="title">
        <div>
          <p class="eyebrow">Version history</p>
          <h1 id="title">${project.name}</h1>
          <p class="lede">${lede}</p>
        </div>
      </section>
      ${list} ${pager(links)}
    </main>
  `;
  const head = html`
    <meta name="description" content="${`Version history of the ${project.name} trust profile`}">
    <link rel="alternate" type="application/json" href="${links.json}" title="Versions (JSON)">
  `;
  return page(`${project.name}: version history`, head, body);
}

/** The same page of versions as Markdown, with every vendor string escaped. */
export function renderVersionsMarkdown(input: VersionsPageInput): string {
  const { project, versions, links } = input;
  const entries = versions.flatMap((v) => {
    const changes = changesOf(v);
    return [
      `## ${link(`Version ${v.version}`, links.versionPage(v.version))}`,
      "",
      `- Overall state: ${stateLabel(v.overallState)}`,
      `- Published: ${utc(v.publishedAt)}`,
      `- Digest: \`${v.digest}\` (${link("trust.json", links.versionTrustJson(v.version))})`,
      "",
      changes.previousVersion === null
        ? "What changed:"
        : `Changes since version ${changes.previousVersion}:`,
      "",
      ...changeListMarkdown(changes),
      "",
    ];
  });
  const pages = [
    links.newest ? `- ${link("Newest versions", links.newest)}` : null,
    links.next ? `- ${link("Older versions", links.next)}` : null,
  ].filter((line): line is string => line !== null);
  return [
    `# ${escapeMarkdown(project.name)}: version history`,
    "",
    "Every published version, newest first, with the controls whose state changed and why.",
    "",
    ...(versions.length === 0 ? ["No version on this page.", ""] : entries),
    ...(pages.length ? [...pages, ""] : []),
  ].join("\n");
}
