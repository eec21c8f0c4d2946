/**
 * The latest trust page's subprocessor summary: how many the organization lists, the most
 * recent change, and a link to the full list with its history.
 */
import { html } from "../../lib/html.ts";
import { time } from "../../publish/render/_page.ts";
import { escapeMarkdown, link } from "../../publish/render/markdown.ts";
import { trustCenterUrl } from "../../publish/urls.ts";
import { getOrganization } from "../../store/organizations.ts";
import { listSubprocessorHistory, listSubprocessors } from "../../store/subprocessors.ts";
import type { LiveSection } from "../live_sections.ts";

export const subprocessorsSection: LiveSection = {
  id: "subprocessors",
  async render({ kv, config, project }) {
    const organization = await getOrganization(kv, project.organizationId);
    if (!organization) return null;
    const [current, history] = await Promise.all([
      listSubprocessors(kv, organization.id),
      listSubprocessorHistory(kv, organization.id, { limit: 1 }),
    ]);
    if (current.length === 0 && history.length === 0) return null;
    const url = `${trustCenterUrl(config, organization.slug)}/subprocessors`;
    const names = current.slice(0, 5).map((s) => s.name);
    const more = current.length - names.length;
    const listed = current.length === 0
      ? `${organization.name} lists no subprocessors now.`
      : `${organization.name} lists ${current.length} subprocessor${
        current.length === 1 ? "" : "s"
      }: ${names.join(", ")}${more > 0 ? ` and ${more} more` : ""}.`;
    const last = history[0];
    return {
      html: html`
        <section aria-labelledby="live-subprocessors-title">
          <h2 id="live-subprocessors-title">Subprocessors</h2>
          <div class="card hero">
            <p>
              ${listed}
              ${last ? html`Last change ${time(last.at)}.` : ""}
              <a href="${url}">Subprocessors and their history</a>
            </p>
          </div>
        </section>
      `,
      markdown: [
        "## Subprocessors",
        "",
        `${escapeMarkdown(listed)}${last ? ` Last change ${last.at}.` : ""} ${
          link("Subprocessors and their history", url)
        }`,
      ].join("\n"),
    };
  },
};
