/**
 * The subscribe form: a plain HTML form (no script) that posts an address to
 * POST /trust/{slug}/subscriptions on the latest trust page, or to
 * POST /public/trust/{orgSlug}/subscriptions on the organization's trust center. Without SMTP
 * configured there is no form, since no confirmation could be sent.
 */
import type { Config } from "../../config.ts";
import { html } from "../../lib/html.ts";
import { escapeMarkdown } from "../../publish/render/markdown.ts";
import { publicUrls, trustCenterUrl } from "../../publish/urls.ts";
import type { LiveSection, LiveSectionContent } from "../live_sections.ts";
import { SUBSCRIBE_STYLE, subscribeForm } from "../subscription_pages.ts";

const WHAT = "You confirm from a link first; every email has a one-click unsubscribe.";

/** The section: `about` says what is emailed, `action` is the form's target. */
function subscribeContent(about: string, action: string, idPrefix: string): LiveSectionContent {
  return {
    html: html`
      <section aria-labelledby="${idPrefix}-title">
        <h2 id="${idPrefix}-title">Email updates</h2>
        <div class="card hero">
          <div>
            <p>${about}</p>
            ${subscribeForm(action, `${idPrefix}-email`)}
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
  };
}

export const subscribeSection: LiveSection = {
  id: "subscribe",
  render({ config, project }) {
    if (!config.mail || project.visibility !== "public") return Promise.resolve(null);
    return Promise.resolve(subscribeContent(
      `Get an email when a control of ${project.name} regresses, an update is posted or a subprocessor changes. ${WHAT}`,
      `${publicUrls(config, project.slug).page}/subscriptions`,
      "live-subscribe",
    ));
  },
};

/** The organization trust center's form (every public project, and subprocessors); null without email. */
export function orgSubscribeContent(
  config: Config,
  org: { name: string; slug: string },
): LiveSectionContent | null {
  if (!config.mail) return null;
  return subscribeContent(
    `Get an email when a control of any public project of ${org.name} regresses, an update is posted or a subprocessor changes. ${WHAT}`,
    `${trustCenterUrl(config, org.slug)}/subscriptions`,
    "subscribe",
  );
}
