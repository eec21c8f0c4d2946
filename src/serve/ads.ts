/**
 * The ADS reads of a trust center (docs/ads.md): "How to get access" from the organization's
 * actual settings (its documents, NDA, auto-approval domains, whether email is on), the
 * trust center's status, and the machine-readable document that carries both with the
 * offering. All read per request.
 */
import type { Config } from "../config.ts";
import { DEFAULT_LINK_DAYS } from "../domain/access_requests.ts";
import { type AccessGuide, accessSteps, type AdsDocument } from "../domain/ads.ts";
import { notFound } from "../domain/errors.ts";
import { presentProfile, vendorOf } from "../domain/vendor.ts";
import type { Organization } from "../domain/workspace.ts";
import { trustCenterUrl } from "../publish/urls.ts";
import { getDeletion } from "../store/deletions.ts";
import { currentNda, getDocumentSettings } from "../store/documents.ts";
import { getOrganizationBySlug } from "../store/organizations.ts";
import { getOrganizationProfile } from "../store/org_profiles.ts";
import { readPublicStatus } from "../store/public_status.ts";
import { chooseRule } from "./access_rules.ts";
import { listedDocuments } from "./documents.ts";

/** The organization of a public trust center, or 404 (unknown, or its deletion is scheduled). */
export async function publicOrganization(kv: Deno.Kv, slug: string): Promise<Organization> {
  const org = await getOrganizationBySlug(kv, slug);
  if (!org || await getDeletion(kv, "organization", org.id)) {
    throw notFound("No public trust center by that name");
  }
  return org;
}

/** Whether the rule of some restricted document opens it at once to every buyer organization. */
async function letsBuyerOrganizationsIn(
  kv: Deno.Kv,
  orgId: string,
  documents: readonly { id: string; projectId: string | null }[],
): Promise<boolean> {
  for (const document of documents) {
    const { rule } = await chooseRule(kv, orgId, document);
    if (rule.mode === "verified" && rule.buyerOrganizations) return true;
  }
  return false;
}

/** "How to get access" of `org`. */
export async function accessGuide(
  kv: Deno.Kv,
  org: Organization,
  options: { config: Config },
): Promise<AccessGuide> {
  const { config } = options;
  const center = trustCenterUrl(config, org.slug);
  const [listed, nda, settings, stored] = await Promise.all([
    listedDocuments(kv, org.id),
    currentNda(kv, org.id),
    getDocumentSettings(kv, org.id),
    getOrganizationProfile(kv, org.id),
  ]);
  const profile = presentProfile(stored, config.baseUrl);
  const publicDocuments = listed.filter((d) => d.document.visibility === "public").length;
  const restrictedDocuments = listed.length - publicDocuments;
  const facts = {
    publicDocuments,
    restrictedDocuments,
    ndaRequired: nda !== null,
    ndaVersion: nda?.version ?? null,
    autoApproval: settings.autoApproveDomains.length > 0,
    emailDelivery: config.mail !== null,
    linkDays: DEFAULT_LINK_DAYS,
    buyerPageUrl: nda && restrictedDocuments > 0 && config.mail !== null ? `${center}/buyer` : null,
    buyerOrganizationsLetIn: await letsBuyerOrganizationsIn(
      kv,
      org.id,
      listed.map((d) => d.document).filter((d) => d.visibility === "restricted"),
    ),
    documentsUrl: `${center}/documents`,
    requestFormUrl: nda && restrictedDocuments > 0 ? `${center}/documents/request` : null,
  };
  const name = vendorOf(profile, org.name)?.name ?? org.name;
  return {
    organization: { name: org.name, slug: org.slug },
    ...facts,
    steps: accessSteps(facts, name),
    vendorNote: profile.offering.accessProcess,
    supportContacts: profile.offering.supportContacts,
    url: `${center}/access`,
    trustCenterUrl: center,
  };
}

/** The machine-readable ADS document of the trust center `slug` as of `now`. */
export async function adsDocument(
  kv: Deno.Kv,
  slug: string,
  options: { config: Config; now: Date },
): Promise<AdsDocument> {
  const { config, now } = options;
  const org = await publicOrganization(kv, slug);
  const center = trustCenterUrl(config, org.slug);
  const [stored, access, status] = await Promise.all([
    getOrganizationProfile(kv, org.id),
    accessGuide(kv, org, { config }),
    readPublicStatus(kv, now),
  ]);
  const profile = presentProfile(stored, config.baseUrl);
  return {
    kind: "ads-offering",
    version: 1,
    organization: { name: org.name, slug: org.slug },
    vendor: vendorOf(profile, org.name),
    offering: profile.offering,
    updatedAt: profile.updatedAt,
    access,
    status,
    urls: {
      trustCenter: center,
      html: `${center}.html`,
      markdown: `${center}.md`,
      access: `${center}/access`,
      status: `${center}/status`,
      documents: `${center}/documents`,
    },
  };
}
