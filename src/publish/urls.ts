/**
 * The public addresses of a project's trust data, all absolute on BASE_URL,
 * so links in stored documents work wherever the document is served.
 */
import type { Config } from "../config.ts";

export function publicUrls(config: Pick<Config, "baseUrl">, slug: string) {
  const page = `${config.baseUrl}/trust/${encodeURIComponent(slug)}`;
  return {
    page,
    trustJson: `${page}/trust.json`,
    jws: `${page}/trust.json.jws`,
    feed: `${page}/feed.xml`,
    updates: `${page}/updates`,
    updatesHtml: `${page}/updates.html`,
    updatesMarkdown: `${page}/updates.md`,
    /** One update's page (HTML by negotiation; `.md` for Markdown). */
    update: (id: string) => `${page}/updates/${id}`,
    /** The project's documents page (JSON; HTML by negotiation; `.md` for Markdown). */
    documents: `${page}/documents`,
    documentsMarkdown: `${page}/documents.md`,
    /** The framework view (JSON; HTML by negotiation; `.html`, `.md` choose). */
    frameworks: `${page}/frameworks`,
    frameworksHtml: `${page}/frameworks.html`,
    frameworksMarkdown: `${page}/frameworks.md`,
    versions: `${page}/versions`,
    versionsHtml: `${page}/versions.html`,
    versionsMarkdown: `${page}/versions.md`,
    badgeSvg: `${page}/badge.svg`,
    evaluationRules: `${config.baseUrl}/docs/evaluation`,
    versionTrustJson: (version: number) => `${page}/versions/${version}/trust.json`,
    versionPage: (version: number) => `${page}/versions/${version}/index.html`,
    versionMarkdown: (version: number) => `${page}/versions/${version}/index.md`,
    /** A document of the latest version, or of `version` (immutable), by file name. */
    document: (file: string) => `${page}/${file}`,
    versionDocument: (version: number, file: string) => `${page}/versions/${version}/${file}`,
    verifyKit: `${config.baseUrl}/verify.ts`,
    log: `${config.baseUrl}/log`,
    logCheckpoint: `${config.baseUrl}/log/checkpoint`,
  };
}

/** The public trust center of an organization. */
export function trustCenterUrl(config: Config, orgSlug: string): string {
  return `${config.baseUrl}/public/trust/${encodeURIComponent(orgSlug)}`;
}
