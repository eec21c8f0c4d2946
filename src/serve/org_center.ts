/**
 * An organization's trust center (GET /public/trust/{orgSlug}): who the vendor is, its open
 * incidents and advisories, the certifications it declares, every public project that has
 * published (overall state, counts, last publication), the documents it shares with the way
 * to request restricted ones, and, when email is configured, the subscribe form. Read per
 * request from stored data, so it always shows the latest versions. The parts beyond the
 * rendered page are placed and allowed by the CSP the same way as the trust page's live block.
 */
import { nameChangeOf } from "./log.ts";
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
import { currentNda } from "../store/documents.ts";
import { getOrganizationBySlug } from "../store/organizations.ts";
import { getOrganizationProfile, getVendor } from "../store/org_profiles.ts";
import { offeringIsSet } from "../domain/offering.ts";
import { presentProfile } from "../domain/vendor.ts";
import { listProjectsByOrganization } from "../store/projects.ts";
import { getDeletion } from "../store/deletions.ts";
import { getLatestPublication } from "../store/publications.ts";
import { publicCertificationsOf } from "./certifications.ts";
import { listedDocuments, presentPublic } from "./documents.ts";
import { orgSubscribeContent } from "./live/subscribe.ts";
import {
  appendLiveMarkdown,
  insertLiveBlock,
  liveBlockOf,
  liveCsp,
  type LiveSectionContent,
} from "./live_sections.ts";
import {
  orgBannerContent,
  orgCertificationsContent,
  orgDocumentsContent,
  orgOfferingContent,
} from "./org_center_sections.ts";
import { openPublicUpdates } from "./updates.ts";

/** An organization's trust center: its public projects that have published, or 404. */
export async function orgTrustCenter(
  kv: Deno.Kv,
  orgSlug: string,
  options: { config: Config; now: Date },
): Promise<OrganizationTrustCenter> {
  const { config } = options;
  const org = await getOrganizationBySlug(kv, orgSlug);
  if (!org) throw notFound("No public trust center by that name");
  const center = trustCenterUrl(config, org.slug);
  const [projects, vendor, certifications, listed, nda, profile] = await Promise.all([
    listProjectsByOrganization(kv, org.id),
    getVendor(kv, org.id, { baseUrl: config.baseUrl }),
    publicCertificationsOf(kv, {
      config,
      organization: org,
      scope: { organization: true },
      now: options.now,
    }),
    listedDocuments(kv, org.id),
    currentNda(kv, org.id),
    getOrganizationProfile(kv, org.id),
  ]);
  const offering = presentProfile(profile, config.baseUrl).offering;
  // The slug's change of publisher, when this organization took it after a release.
  const change = await nameChangeOf(kv, org.id, "organization", org.slug);
  const body: OrganizationTrustCenter = {
    organization: { name: org.name, slug: org.slug },
    ...(change ? { publisherChange: change } : {}),
    projects: [],
    vendor,
    url: center,
    subprocessorsUrl: `${center}/subprocessors`,
    certifications,
    openUpdates: [],
    documents: listed.map((item) => presentPublic(config, org, item)),
    acceptingRequests: nda !== null,
    documentsUrl: `${center}/documents`,
    accessRequestUrl: nda ? `${center}/documents/request` : null,
    offering: offeringIsSet(offering) ? offering : null,
    adsUrl: `${center}/ads.json`,
    accessUrl: `${center}/access`,
    statusUrl: `${center}/status`,
  };
  for (const project of projects.filter((p) => p.visibility === "public")) {
    const publication = await getLatestPublication(kv, project.id);
    // A project whose deletion is scheduled is gone from public view already.
    if (!publication || await getDeletion(kv, "project", project.id)) continue;
    body.projects.push({
      slug: project.slug,
      name: project.name,
      hostedSubdomain: project.hostedSubdomain,
      version: publication.version,
      publishedAt: publication.publishedAt,
      summary: publication.summary,
      url: publicUrls(config, project.slug).page,
    });
    const open = await openPublicUpdates(kv, config, project);
    body.openUpdates.push(
      ...open.map((u) => ({ ...u, project: { slug: project.slug, name: project.name } })),
    );
  }
  body.openUpdates.sort((a, b) => b.postedAt.localeCompare(a.postedAt));
  return body;
}

/**
 * The trust center page as HTML (with its CSP) or Markdown: the rendered page with the
 * banner of open updates at its top, the certification cards after its headline, and the
 * documents and the subscribe form (when email is configured) at its end;
 * `links(slug)` is each project's page.
 */
export function orgTrustCenterPage(
  center: OrganizationTrustCenter,
  options: {
    config: Config;
    format: "html" | "md";
    links: (slug: string) => string;
    /** Sections shown before the subscribe form (the answers search). */
    sections?: readonly (LiveSectionContent | null)[];
  },
): { bytes: Uint8Array<ArrayBuffer>; csp: string } {
  const { config, links } = options;
  const org = { name: trustCenterName(center), slug: center.organization.slug };
  const block = liveBlockOf([
    orgBannerContent(center),
    orgCertificationsContent(center),
    orgDocumentsContent(center),
    orgOfferingContent(center),
    ...(options.sections ?? []),
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
