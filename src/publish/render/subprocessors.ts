/**
 * An organization's subprocessors as HTML and Markdown: the current list (name, purpose,
 * location, website) and the history of additions, changes and removals. Every vendor-given
 * text is escaped; the HTML is served under the trust pages' CSP (no scripts, no images).
 */
import type { PublicSubprocessors, SubprocessorEvent } from "../../domain/subprocessors.ts";
import { type Html, html } from "../../lib/html.ts";
import { utc } from "./_format.ts";
import { page, time, topBar } from "./_page.ts";
import { trustPageCsp } from "./_style.ts";
import { escapeMarkdown, link, row } from "./markdown.ts";

/** The Content-Security-Policy of the subprocessor page. */
export function subprocessorsCsp(): string {
  return trustPageCsp();
}

const FIELD_LABELS = { name: "name", purpose: "purpose", location: "location", website: "website" };

/** What an event did, in words: "Added", "Removed", or the fields it changed. */
function eventSummary(event: SubprocessorEvent): string {
  if (event.action === "added") return "Added";
  if (event.action === "removed") return "Removed";
  const { before, after } = event;
  const changed = (Object.keys(FIELD_LABELS) as (keyof typeof FIELD_LABELS)[])
    .filter((field) => before && after && before[field] !== after[field])
    .map((field) => `${FIELD_LABELS[field]}: ${before![field]} → ${after![field]}`);
  return `Changed ${changed.join("; ")}`;
}

/** The page as a complete HTML document; `trustCenter` is the organization page's URL. */
export function renderSubprocessorsHtml(list: PublicSubprocessors, trustCenter: string): string {
  const name = list.organization.name;
  const current: Html = list.subprocessors.length === 0
    ? html`<p class="card hero">${name} lists no subprocessors.</p>`
    : html`
      <div class="card table">
        <table>
          <caption class="note">Current subprocessors of ${name}</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Purpose</th>
              <th scope="col">Location</th>
              <th scope="col">Since</th>
            </tr>
          </thead>
          <tbody>${list.subprocessors.map((s) =>
            html`
              <tr>
                <th scope="row"><a href="${s.website}" rel="noopener noreferrer">${s.name}</a></th>
                <td>${s.purpose}</td>
                <td>${s.location}</td>
                <td>${time(s.addedAt)}</td>
              </tr>
            `
          )}</tbody>
        </table>
      </div>
    `;
  const history: Html = list.history.length === 0
    ? html`<p class="card hero">No change recorded yet.</p>`
    : html`<ul class="card changes">${
      list.history.map((e) =>
        html`<li>${time(e.at)}: <strong>${e.name}</strong>: ${eventSummary(e)}</li>`
      )
    }</ul>`;
  const body = html`
    ${topBar("Trust center")}
    <main id="main" class="wrap">
      <section class="card hero" aria-labelledby="title">
        <div>
          <p class="eyebrow">Trust center</p>
          <h1 id="title">${name}: subprocessors</h1>
          <p
            class="lede">The third parties that process data for ${name}, and every change to the list. <a href="${trustCenter}">Back to the trust center</a>.</p>
        </div>
      </section>
      <section aria-labelledby="current-title">
        <h2 id="current-title">Current subprocessors</h2>
        ${current}
      </section>
      <section aria-labelledby="history-title">
        <h2 id="history-title">History</h2>
        ${history}
      </section>
    </main>
  `;
  const head = html`<meta name="description" content="${`Subprocessors of ${name}`}">`;
  return page(`${name}: subprocessors`, head, body);
}

/** The page as Markdown: a table of current subprocessors, then the history. Pure. */
export function renderSubprocessorsMarkdown(
  list: PublicSubprocessors,
  trustCenter: string,
): string {
  const name = escapeMarkdown(list.organization.name);
  const current = list.subprocessors.length === 0 ? [`${name} lists no subprocessors.`] : [
    "| Name | Purpose | Location | Since |",
    "|---|---|---|---|",
    ...list.subprocessors.map((s) =>
      row([
        link(s.name, s.website),
        escapeMarkdown(s.purpose),
        escapeMarkdown(s.location),
        utc(s.addedAt),
      ])
    ),
  ];
  const history = list.history.length === 0
    ? ["No change recorded yet."]
    : list.history.map((e) =>
      `- ${utc(e.at)}: **${escapeMarkdown(e.name)}**: ${escapeMarkdown(eventSummary(e))}`
    );
  return [
    `# ${name}: subprocessors`,
    "",
    `The third parties that process data for ${name}. ${link("Trust center", trustCenter)}`,
    "",
    "## Current subprocessors",
    "",
    ...current,
    "",
    "## History",
    "",
    ...history,
    "",
  ].join("\n");
}
