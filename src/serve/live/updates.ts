/**
 * The latest trust page's updates: every incident still ongoing first, then the latest
 * updates, each with its kind, status, dates and rendered body, and a link to all of them.
 */
import { html } from "../../lib/html.ts";
import { link } from "../../publish/render/markdown.ts";
import { updateArticle, updateMarkdown, UPDATES_STYLE } from "../../publish/render/updates.ts";
import { publicUrls } from "../../publish/urls.ts";
import { listOpenIncidents, listUpdates } from "../../store/updates.ts";
import type { LiveSection } from "../live_sections.ts";
import { publicUpdate } from "../updates.ts";

/** How many of the latest updates the page shows besides the ongoing incidents. */
export const LIVE_UPDATES = 5;

export const updatesSection: LiveSection = {
  id: "updates",
  async render({ kv, config, project }) {
    const [open, latest] = await Promise.all([
      listOpenIncidents(kv, project.id),
      listUpdates(kv, project.id, { limit: LIVE_UPDATES }),
    ]);
    const shown = new Set(open.map((u) => u.id));
    const updates = await Promise.all(
      [...open, ...latest.updates.filter((u) => !shown.has(u.id))]
        .map((u) => publicUpdate(config, project, u)),
    );
    if (updates.length === 0) return null;
    const all = publicUrls(config, project.slug).updatesHtml;
    const ongoing = open.length === 0
      ? ""
      : html`<p class="note">${open.length} ongoing incident${open.length === 1 ? "" : "s"}.</p>`;
    return {
      html: html`
        <section aria-labelledby="live-updates-title">
          <h2 id="live-updates-title">Updates</h2>
          ${ongoing}
          <ul class="updates">${updates.map((u) =>
            html`<li>${updateArticle(u, { level: 3 })}</li>`
          )}</ul>
          <p><a href="${all}">All updates</a></p>
        </section>
      `,
      markdown: [
        "## Updates",
        "",
        ...updates.flatMap((u) => [updateMarkdown(u, 3), ""]),
        link("All updates", publicUrls(config, project.slug).updatesMarkdown),
      ].join("\n"),
      styles: [UPDATES_STYLE],
    };
  },
};
