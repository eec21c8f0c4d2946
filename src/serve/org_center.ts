/**
 * An organization's trust center (GET /public/trust/{orgSlug}): who the vendor is, and
 * every public project that has published, with its overall state, counts and last
 * publication. Read per request from stored data, so it always shows the latest versions.
 * When email is configured, the page ends with the subscribe form, inserted and allowed by
 * the CSP the same way as the trust page's live block.
 */
import type { Config } from "../config.ts";
import { notFound } from "../domain/errors.ts";
import type { OrganizationTrustCenter } from "../domain/publish.ts";
import {
  orgTrustCenterCsp,
  renderOrgTrustCenterHtml,
  renderOrgTrustCenterMarkdown,
  trustCenterName,
} from "../publish/render/mod.ts";
import { publicUrls, trustCenterUrl } from "../publish/urls.ts";
import { getOrganizationBySlug } from "../store/organizations.ts";
import { getVendor } from "../store/org_profiles.ts";
import { listProjectsByOrganization } from "../store/projects.ts";
import { getLatestPublication } from "../store/publications.ts";
import { orgSubscribeContent } from "./live/subscribe.ts";
import {
  appendLiveMarkdown,
  insertLiveBlock,
  liveBlockOf,
  liveCsp,
  type LiveSectionContent,
} from "./live_sections.ts";
import { publicCertificationsOf } from "./certifications.ts";
import {
  CERTIFICATIONS_STYLE,
  certificationsMarkdown,
  certificationsSection,
} from "../publish/render/certifications.ts";

/** An organization's trust center: its public projects that have published, or 404. */
export async function orgTrustCenter(
  kv: Deno.Kv,
  orgSlug: string,
  options: { config: Config; now: Date },
): Promise<OrganizationTrustCenter> {
  const { config } = options;
  const org = await getOrganizationBySlug(kv, orgSlug);
  if (!org) throw notFound("No public trust center by that name");
  const [projects, vendor, certifications] = await Promise.all([
    listProjectsByOrganization(kv, org.id),
    getVendor(kv, org.id, { baseUrl: config.baseUrl }),
    publicCertificationsOf(kv, {
      config,
      organization: org,
      scope: { organization: true },
      now: options.now,
    }),
  ]);
  const center: OrganizationTrustCenter = {
    organization: { name: org.name, slug: org.slug },
    projects: [],
    vendor,
    url: trustCenterUrl(config, org.slug),
    subprocessorsUrl: `${trustCenterUrl(config, org.slug)}/subprocessors`,
    certifications,
  };
  for (const project of projects.filter((p) => p.visibility === "public")) {
    const publication = await getLatestPublication(kv, project.id);
    if (!publication) continue;
    center.projects.push({
      slug: project.slug,
      name: project.name,
      hostedSubdomain: project.hostedSubdomain,
      version: publication.version,
      publishedAt: publication.publishedAt,
      summary: publication.summary,
      url: publicUrls(config, project.slug).page,
    });
  }
  return center;
}

/**
 * The trust center page as HTML (with its CSP) or Markdown, with the subscribe form when
 * email is configured; `links(slug)` is each project's page.
 */
export function orgTrustCenterPage(
  center: OrganizationTrustCenter,
  options: { config: Config; format: "html" | "md"; links: (slug: string) => string },
): { bytes: Uint8Array<ArrayBuffer>; csp: string } {
  const { config, links } = options;
  const org = { name: trustCenterName(center), slug: center.organization.slug };
  const block = liveBlockOf([
    orgCertificationsContent(center),
    orgSubscribeContent(config, org),
  ]);
  const encode = (text: string) => new TextEncoder().encode(text);
  return options.format === "html"
    ? {
      bytes: insertLiveBlock(encode(renderOrgTrustCenterHtml(center, links)), block),
      csp: liveCsp(orgTrustCenterCsp(center), block),
    }
    : {
      bytes: appendLiveMarkdown(encode(renderOrgTrustCenterMarkdown(center, links)), block),
      csp: orgTrustCenterCsp(center),
    };
}

/** The trust center's certification cards, after its headline; null without any. */
function orgCertificationsContent(center: OrganizationTrustCenter): LiveSectionContent | null {
  if (center.certifications.length === 0) return null;
  return {
    placement: "top",
    html: certificationsSection(center.certifications, {
      idPrefix: "certifications",
      showProject: true,
    }),
    markdown: certificationsMarkdown(center.certifications),
    styles: [CERTIFICATIONS_STYLE],
  };
}
