/**
 * The latest trust page's subscribe form: a plain HTML form (no script) that posts an
 * address to POST /trust/{slug}/subscriptions. Without SMTP configured there is no form,
 * since no confirmation could be sent.
 */
import { html } from "../../lib/html.ts";
import { escapeMarkdown } from "../../publish/render/markdown.ts";
import { publicUrls } from "../../publish/urls.ts";
import type { LiveSection } from "../live_sections.ts";
import { SUBSCRIBE_STYLE, subscribeForm } from "../subscription_pages.ts";

export const subscribeSection: LiveSection = {
  id: "subscribe",
  render({ config, project }) {
    if (!config.mail || project.visibility !== "public") return Promise.resolve(null);
    const action = `${publicUrls(config, project.slug).page}/subscriptions`;
    const about =
      `Get an email when a control of ${project.name} regresses, an update is posted or a subprocessor changes. You confirm from a link first; every email has a one-click unsubscribe.`;
    return Promise.resolve({
      html: html`
        <section aria-labelledby="live-subscribe-title">
          <h2 id="live-subscribe-title">Email updates</h2>
          <div class="card hero">
            <div>
              <p>${about}</p>
              ${subscribeForm(action, "live-subscribe-email")}
            </div>
          </div>
        </section>
      `,
      markdown: [
        "## Email updates",
        "",
        `${
          escapeMarkdown(about)
        } Subscribe on the HTML page, or POST \`{"email": "…"}\` to <${action}>.`,
      ].join("\n"),
      styles: [SUBSCRIBE_STYLE],
      formActions: [action],
    });
  },
};
