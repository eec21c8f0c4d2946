/**
 * The answers search on the latest trust page and on the organization's trust center: how
 * many answers the organization publishes, a search form (GET, no script) that opens the
 * answers page with the results, and the questionnaire downloads.
 */
import type { Config } from "../../config.ts";
import type { Organization } from "../../domain/workspace.ts";
import { html } from "../../lib/html.ts";
import { ANSWERS_STYLE, searchForm } from "../../publish/render/answers.ts";
import { escapeMarkdown, link } from "../../publish/render/markdown.ts";
import { trustCenterUrl } from "../../publish/urls.ts";
import { listAnswers } from "../../store/answers.ts";
import { getOrganization } from "../../store/organizations.ts";
import type { LiveSection, LiveSectionContent } from "../live_sections.ts";

/** The section for `org`, or null when it publishes no answers. */
export async function answersContent(
  kv: Deno.Kv,
  config: Config,
  org: Organization,
  idPrefix: string,
): Promise<LiveSectionContent | null> {
  const answers = await listAnswers(kv, org.id);
  if (answers.length === 0) return null;
  const restricted = answers.filter((a) => a.visibility === "restricted").length;
  const url = `${trustCenterUrl(config, org.slug)}/answers`;
  const countOf = (name: string) =>
    `${name} answers ${answers.length} security question${answers.length === 1 ? "" : "s"}${
      restricted ? ` (${restricted} restricted, on request)` : ""
    }.`;
  const count = countOf(org.name);
  return {
    html: html`
      <section aria-labelledby="${idPrefix}-title">
        <h2 id="${idPrefix}-title">Security answers</h2>
        <div class="card hero">
          <div>
            <p>${count} <a href="${url}">All answers</a> · Download for your questionnaire: <a href="${url}.csv">CSV</a> · <a href="${url}.xlsx">Excel (XLSX)</a></p>
            ${searchForm(url, "", idPrefix)}
          </div>
        </div>
      </section>
    `,
    markdown: [
      "## Security answers",
      "",
      `${countOf(escapeMarkdown(org.name))} ${
        link("All answers", `${url}.md`)
      } (search: \`${url}.md?q=words\`) · ${link("CSV", `${url}.csv`)} · ${
        link("XLSX", `${url}.xlsx`)
      }`,
    ].join("\n"),
    styles: [ANSWERS_STYLE],
    formActions: [url],
  };
}

export const answersSection: LiveSection = {
  id: "answers",
  async render({ kv, config, project }) {
    const org = await getOrganization(kv, project.organizationId);
    return org ? await answersContent(kv, config, org, "live-answers") : null;
  },
};
