/**
 * The public addresses of a project's trust data, all absolute on BASE_URL,
 * so links in stored documents work wherever the document is served.
 */
import type { Config } from "../config.ts";

export function publicUrls(config: Config, slug: string) {
  const page = `${config.baseUrl}/trust/${encodeURIComponent(slug)}`;
  return {
    page,
    trustJson: `${page}/trust.json`,
    jws: `${page}/trust.json.jws`,
    feed: `${page}/feed.xml`,
    versions: `${page}/versions`,
    versionsHtml: `${page}/versions.html`,
    versionsMarkdown: `${page}/versions.md`,
    badgeSvg: `${page}/badge.svg`,
    evaluationRules: `${config.baseUrl}/docs/evaluation`,
    versionTrustJson: (version: number) => `${page}/versions/${version}/trust.json`,
    versionPage: (version: number) => `${page}/versions/${version}/index.html`,
    versionMarkdown: (version: number) => `${page}/versions/${version}/index.md`,
  };
}

/** The public trust center of an organization. */
export function trustCenterUrl(config: Config, orgSlug: string): string {
  return `${config.baseUrl}/public/trust/${encodeURIComponent(orgSlug)}`;
}
