/**
 * The latest trust page's framework summary: per framework, how many criteria the published
 * controls are mapped to, for how many every mapped control passes and why the others do not,
 * with a link to the framework view (which criterion, which control, its state and evidence
 * age).
 */
import { html } from "../../lib/html.ts";
import { coverageLine } from "../../publish/render/frameworks.ts";
import { link } from "../../publish/render/markdown.ts";
import { publicUrls } from "../../publish/urls.ts";
import { customCriteria } from "../../store/control_criteria.ts";
import { frameworkSummary } from "../frameworks.ts";
import type { LiveSection } from "../live_sections.ts";

export const frameworksSection: LiveSection = {
  id: "frameworks",
  async render({ kv, config, project, publication }) {
    const summary = frameworkSummary(publication.states, await customCriteria(kv, project.id));
    if (summary.length === 0) return null;
    const urls = publicUrls(config, project.slug);
    const lines = summary.map((f) => coverageLine(f.name, f.criteria));
    const label = "Which control supports which criterion";
    return {
      html: html`
        <section aria-labelledby="live-frameworks-title">
          <h2 id="live-frameworks-title">Framework mappings</h2>
          <div class="card hero">
            <div>
              <ul>${lines.map((line) => html`<li>${line}</li>`)}</ul>
              <p><a href="${urls.frameworksHtml}">${label}</a> (mappings, not audit opinions)</p>
            </div>
          </div>
        </section>
      `,
      markdown: [
        "## Framework mappings",
        "",
        ...lines.map((line) => `- ${line}`),
        "",
        `${link(label, urls.frameworksMarkdown)} (mappings, not audit opinions)`,
      ].join("\n"),
    };
  },
};
