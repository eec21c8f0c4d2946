/**
 * The latest trust page's banner: every incident and advisory of the project still open, at
 * the top of the page (and of its Markdown), until it is resolved.
 */
import { BANNER_STYLE, updatesBanner, updatesBannerMarkdown } from "../../publish/render/banner.ts";
import type { LiveSection } from "../live_sections.ts";
import { openPublicUpdates } from "../updates.ts";

export const bannerSection: LiveSection = {
  id: "banner",
  async render({ kv, config, project }) {
    const open = await openPublicUpdates(kv, config, project);
    if (open.length === 0) return null;
    const items = open.map((update) => ({ update, project: null }));
    return {
      placement: "banner",
      html: updatesBanner(items, "live-banner"),
      markdown: updatesBannerMarkdown(items),
      styles: [BANNER_STYLE],
    };
  },
};
