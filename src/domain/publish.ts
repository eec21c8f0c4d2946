/**
 * Evaluations, publications and custom domains: SPEC.md's
 * "ControlEvaluationSummary", "PublishJob", "PublishedProfile", "Published
 * trust profile (public)" and "ProjectDomain" shapes.
 */
import { Offering } from "./offering.ts";
import { z } from "@hono/zod-openapi";
import { NextCursor } from "./list_page.ts";
import { DateTime, Uuid } from "./common.ts";
import { ControlCategory, ControlState } from "./control.ts";
import { Vendor } from "./vendor.ts";
import { DeclaredByVendor, PublicCertification } from "./certifications.ts";
import { PublicTrustUpdate } from "./updates.ts";
import { PublicDocument } from "./documents.ts";
import { NameChange } from "./log.ts";
import { Project } from "./workspace.ts";

const Confidence = z.number().min(0).max(1);

export const ControlEvaluationSummary = z.object({
  id: Uuid,
  projectId: Uuid,
  trustControlId: Uuid,
  state: ControlState,
  confidence: Confidence,
  latestEvidenceRecordId: Uuid.nullable(),
  latestEvidenceAt: DateTime.nullable(),
  freshUntil: DateTime.nullable(),
  nextCheckAt: DateTime.nullable(),
  updatedAt: DateTime,
  control: z.object({
    id: Uuid,
    key: z.string(),
    category: ControlCategory,
    publicName: z.string(),
    enabled: z.boolean(),
  }),
  reason: z.string().openapi({ description: "One line: why the control is in this state" }),
}).openapi("ControlEvaluationSummary");
export type ControlEvaluationSummary = z.infer<typeof ControlEvaluationSummary>;

export const ControlEvaluationListResponse = z.object({
  evaluations: z.array(ControlEvaluationSummary),
}).openapi("ControlEvaluationListResponse");

export const PublishJob = z.object({
  id: Uuid,
  projectId: Uuid,
  status: z.enum(["requested", "running", "completed", "failed"]),
  reason: z.string().nullable(),
  requestedAt: DateTime,
  startedAt: DateTime.nullable(),
  completedAt: DateTime.nullable(),
}).openapi("PublishJob");
export type PublishJob = z.infer<typeof PublishJob>;

export const PublishedProfile = z.object({
  id: Uuid,
  projectId: Uuid,
  version: z.int().min(1),
  artifactS3Key: z.string(),
  publishedAt: DateTime,
}).openapi("PublishedProfile");
export type PublishedProfile = z.infer<typeof PublishedProfile>;

export const PublishProjectResponse = z.object({
  job: PublishJob,
  publishedProfile: PublishedProfile,
}).openapi("PublishProjectResponse");
export const PublishedProfileResponse = z.object({ publishedProfile: PublishedProfile })
  .openapi("PublishedProfileResponse");
export const PublishedProfileListResponse = z.object({
  publishedProfiles: z.array(PublishedProfile),
  nextCursor: z.string().nullable().openapi({
    description:
      'Pass as cursor for the next (older) page; null on the last one. The HTTP answer also links it (Link: rel="next")',
    example: "42",
  }),
}).openapi("PublishedProfileListResponse");

/** Publications per page of GET /projects/{id}/published-profiles when no limit is given. */
export const DEFAULT_PUBLISHED_PROFILES_PAGE = 100;
/** Most publications one page of GET /projects/{id}/published-profiles holds. */
export const MAX_PUBLISHED_PROFILES_PAGE = 100;

export const PublishedTrustSummary = z.object({
  overallState: ControlState,
  totalControls: z.int().min(0),
  passCount: z.int().min(0),
  failCount: z.int().min(0),
  staleCount: z.int().min(0),
  degradedCount: z.int().min(0),
  unknownCount: z.int().min(0),
  // Additions to SPEC.md's fields, after them; absent in versions published before them.
  requiredUnknownCount: z.int().min(0).optional().openapi({
    description:
      "Of the controls not reported (unknownCount), those the vendor marks required (absent in older versions: none was)",
  }),
  verdict: ControlState.optional().openapi({
    description:
      "The headline's verdict: the worst state among reported controls and required ones (a required control not reported counts as unknown), in overallState's order; a control neither reported nor required leaves it unchanged, and it is unknown when nothing reported and nothing is required. overallState keeps the evaluator's rule over every control (absent in older versions)",
  }),
}).openapi("PublishedTrustSummary");
export type PublishedTrustSummary = z.infer<typeof PublishedTrustSummary>;

/** The buyer category a published control is shown under (src/evaluate/groups.ts). */
export const BuyerGroupId = z.enum([
  "supply_chain",
  "vulnerability_management",
  "runtime",
  "policy",
  "liveness",
]).openapi("BuyerGroupId");

/** The evidence a published state was decided from. */
export const PublishedEvidence = z.object({
  digest: z.string().nullable().openapi({
    description: "sha256:<hex> checksum of the evidence payload; null for the collector " +
      "heartbeat (no payload) and when no evidence was observed",
  }),
  observedAt: DateTime.nullable().openapi({ description: "When that evidence was observed" }),
}).openapi("PublishedEvidence");

export const PublishedTrustControl = z.object({
  key: z.string(),
  category: ControlCategory,
  name: z.string(),
  state: ControlState,
  confidence: Confidence,
  latestEvidenceAt: DateTime.nullable(),
  freshUntil: DateTime.nullable(),
  nextCheckAt: DateTime.nullable(),
  // Additions to SPEC.md's fields, after them; absent in versions published before them.
  reason: z.string().optional().openapi({
    description: "The evaluator's one-line explanation of the state (absent in older versions)",
  }),
  evidence: PublishedEvidence.optional(),
  group: BuyerGroupId.optional().openapi({
    description: "Buyer category the control is shown under (absent in older versions)",
  }),
  description: z.string().optional().openapi({
    description: "What this control checks, in one plain-language line (absent in older versions)",
  }),
  required: z.literal(true).optional().openapi({
    description:
      "Present (true) when the vendor marked the control required at publication; absent when not",
  }),
}).openapi("PublishedTrustControl");
export type PublishedTrustControl = z.infer<typeof PublishedTrustControl>;

export const PublishedTrustProfile = z.object({
  schemaVersion: z.literal(1),
  project: z.object({
    slug: z.string(),
    name: z.string(),
    hostedSubdomain: z.string().nullable(),
  }),
  version: z.int().min(1),
  publishedAt: DateTime,
  summary: PublishedTrustSummary,
  controls: z.array(PublishedTrustControl),
  vendor: Vendor.nullable().optional().openapi({
    description:
      "Addition to SPEC.md, after its fields: the organization's profile when this version was published; null when it had none (absent in versions published before it existed)",
  }),
  declaredByVendor: DeclaredByVendor.optional(),
}).openapi("PublishedTrustProfile");
export type PublishedTrustProfile = z.infer<typeof PublishedTrustProfile>;

/** The path (and MCP tool input) that names a public project. */
export const SlugParams = z.object({
  projectSlug: z.string().min(1).max(100).openapi({
    param: { name: "projectSlug", in: "path" },
    example: "acme-cloud",
  }),
});

export const PublishedTrustProfileResponse = z.object({
  profile: PublishedTrustProfile,
  openUpdates: z.array(PublicTrustUpdate).optional().openapi({
    description:
      "Incidents and advisories of the project not yet resolved, newest first, as of the request (not signed; GET /trust/{projectSlug}/updates has all of them)",
  }),
  certifications: z.array(PublicCertification).optional().openapi({
    description:
      "The certifications the vendor declares now for this project (the organization's and its own), status as of the request; not signed: the version's own are in profile.declaredByVendor",
  }),
}).openapi("PublishedTrustProfileResponse");

export const PublishedTrustControlsResponse = z.object({
  project: PublishedTrustProfile.shape.project,
  version: z.int().min(1),
  publishedAt: DateTime,
  summary: PublishedTrustSummary,
  controls: z.array(PublishedTrustControl),
  vendor: Vendor.nullable().optional(),
  declaredByVendor: DeclaredByVendor.optional(),
}).openapi("PublishedTrustControlsResponse", {
  description:
    "The version's trust.json without its schemaVersion: every field it carries, the certifications it signs included",
});

/** A control whose state differs from the previous version's (from null: new in this version). */
export const PublishedVersionChange = z.object({
  key: z.string(),
  name: z.string(),
  from: ControlState.nullable(),
  to: ControlState,
  reason: z.string().nullable().optional().openapi({
    description:
      "Why the control is in its new state (the evaluation's one-line reason); null for versions published before reasons were recorded",
  }),
}).openapi("PublishedVersionChange");
export type PublishedVersionChange = z.infer<typeof PublishedVersionChange>;

/** One entry of /trust/{slug}/versions: what changed, and the hash chain. */
export const PublishedVersion = z.object({
  version: z.int().min(1),
  publishedAt: DateTime,
  digest: z.string().openapi({ description: "sha256:<hex> of this version's trust.json bytes" }),
  previousDigest: z.string().nullable(),
  overallState: ControlState,
  changes: z.array(PublishedVersionChange),
}).openapi("PublishedVersion");
export type PublishedVersion = z.infer<typeof PublishedVersion>;

export const PublishedVersionListResponse = z.object({
  versions: z.array(PublishedVersion),
  nextCursor: z.string().nullable().optional().openapi({
    description:
      "Pass as `cursor` to read the versions older than this page; null on the page with version 1",
  }),
}).openapi("PublishedVersionListResponse");
export type PublishedVersionListResponse = z.infer<typeof PublishedVersionListResponse>;

/** Query of /trust/{slug}/versions (and get_trust_history): a page of versions, newest first. */
export const VersionPageQuery = z.object({
  cursor: z.string().max(15).regex(/^[1-9][0-9]{0,14}$/).optional().openapi({
    description: "nextCursor of the previous page: lists the versions older than it",
    example: "42",
  }),
  limit: z.coerce.number().int().min(1).max(100).optional().openapi({
    description: "Versions per page, 1 to 100 (default 100 in JSON, 20 in HTML and Markdown)",
    example: 20,
  }),
});
export type VersionPageQuery = z.infer<typeof VersionPageQuery>;

/** One public trust profile found by search_trust_profiles (and GET /public/trust-profiles). */
export const TrustProfileMatch = z.object({
  slug: z.string(),
  name: z.string(),
  overallState: ControlState,
  version: z.int().min(1),
  publishedAt: DateTime,
  organization: z.object({
    name: z.string().openapi({ description: "The vendor's display name, else the organization's" }),
    slug: z.string().openapi({ description: "As in /public/trust/{orgSlug}" }),
  }).openapi({ description: "Who publishes the project" }),
}).openapi("TrustProfileMatch");
export type TrustProfileMatch = z.infer<typeof TrustProfileMatch>;

export const TrustProfileSearchQuery = z.object({
  query: z.string().trim().min(1).max(100).openapi({
    description:
      "Part of a project's name or slug, or of its organization's name, slug or description, case-insensitive",
    example: "acme",
  }),
});

export const TrustProfileSearchResponse = z.object({
  query: z.string(),
  profiles: z.array(TrustProfileMatch),
}).openapi("TrustProfileSearchResponse");
export type TrustProfileSearchResponse = z.infer<typeof TrustProfileSearchResponse>;

export const ProjectDomain = z.object({
  id: Uuid,
  projectId: Uuid,
  domain: z.string(),
  verificationStatus: z.enum(["pending", "verified"]),
  verificationMethod: z.enum(["dns_txt"]),
  verificationToken: z.string(),
  verifiedAt: DateTime.nullable(),
  lastCheckedAt: DateTime.nullable(),
  createdAt: DateTime,
  updatedAt: DateTime,
}).openapi("ProjectDomain");
export type ProjectDomain = z.infer<typeof ProjectDomain>;

/** Days a pending domain claim lasts: one not verified within them lapses. */
export const PENDING_DOMAIN_DAYS = 7;
/** The same, in milliseconds. */
export const PENDING_DOMAIN_TTL_MS = PENDING_DOMAIN_DAYS * 24 * 60 * 60 * 1000;

/** When a pending claim lapses (its creation plus PENDING_DOMAIN_DAYS); null once verified. */
export function domainClaimLapsesAt(domain: ProjectDomain): string | null {
  if (domain.verificationStatus === "verified") return null;
  return new Date(Date.parse(domain.createdAt) + PENDING_DOMAIN_TTL_MS).toISOString();
}

/** Whether `domain` is a pending claim that has lapsed at `now`. */
export function isDomainClaimLapsed(domain: ProjectDomain, now: Date): boolean {
  const lapsesAt = domainClaimLapsesAt(domain);
  return lapsesAt !== null && now.getTime() >= Date.parse(lapsesAt);
}

export const ProjectDomainVerificationInstructions = z.object({
  method: z.enum(["dns_txt"]),
  recordName: z.string(),
  recordType: z.enum(["TXT"]),
  recordValue: z.string(),
}).openapi("ProjectDomainVerificationInstructions");

export const ProjectDomainSummary = z.object({
  domain: ProjectDomain,
  instructions: ProjectDomainVerificationInstructions,
  expiresAt: DateTime.nullable().openapi({
    description:
      `When this pending claim lapses unless verified (${PENDING_DOMAIN_DAYS} days after it was added); null once verified`,
  }),
}).openapi("ProjectDomainSummary");

export const ProjectDomainListResponse = z.object({
  project: Project,
  domains: z.array(ProjectDomainSummary),
  nextCursor: NextCursor,
}).openapi("ProjectDomainListResponse");

export const ProjectDomainResponse = z.object({
  project: Project,
  domain: ProjectDomainSummary,
  check: z.object({
    found: z.array(z.string()),
    expected: z.string(),
    error: z.string().optional().openapi({ description: "Why the lookup itself failed" }),
  }).optional().openapi({ description: "Present after a failed verification: what DNS answered" }),
}).openapi("ProjectDomainResponse");

export const CreateProjectDomainRequest = z.strictObject({
  domain: z.string().min(1).max(253),
}).openapi("CreateProjectDomainRequest");

/** The public organization trust center (GET /public/trust/{orgSlug}). */
export const OrganizationTrustCenter = z.object({
  organization: z.object({ name: z.string(), slug: z.string() }),
  publisherChange: NameChange.optional().openapi({
    description:
      "Present when this organization slug belonged to a deleted organization and, released by the service's operator, was taken by this one: the log entry that recorded it (what was published under the slug before that entry was another publisher's)",
  }),
  projects: z.array(z.object({
    slug: z.string(),
    name: z.string(),
    hostedSubdomain: z.string().nullable(),
    version: z.int().min(1),
    publishedAt: DateTime,
    summary: PublishedTrustSummary,
    url: z.url().openapi({ description: "The project's trust page" }),
  })),
  vendor: Vendor.nullable().openapi({
    description: "The organization's profile as it is now; null when it has none",
  }),
  url: z.url().openapi({ description: "This trust center" }),
  subprocessorsUrl: z.url().openapi({
    description: "The organization's subprocessors and their history",
  }),
  certifications: z.array(PublicCertification).openapi({
    description:
      "Certifications and attestations of the organization and its public projects, as the vendor declares them (not verified by this service), status as of now",
  }),
  openUpdates: z.array(PublicTrustUpdate.extend({
    project: z.object({ slug: z.string(), name: z.string() }),
  })).openapi({
    description:
      "Incidents and advisories of its public projects not yet resolved, newest first (the banner of the page)",
  }),
  documents: z.array(PublicDocument).openapi({
    description: "The documents it shares, by title (restricted ones by title only)",
  }),
  acceptingRequests: z.boolean().openapi({
    description: "Whether restricted documents can be requested (an NDA is set)",
  }),
  documentsUrl: z.url().openapi({ description: "Its documents page, with the NDA" }),
  accessRequestUrl: z.url().nullable().openapi({
    description: "The form that requests restricted documents; null while no NDA is set",
  }),
  offering: Offering.nullable().openapi({
    description:
      "The cloud service offering (FedRAMP ADS-01: service and deployment model, services with impact levels, customer responsibilities, support); null until the vendor describes it",
  }),
  adsUrl: z.url().openapi({
    description: "The same offering as a machine-readable document, with access and status",
  }),
  accessUrl: z.url().openapi({ description: "How to get access, in plain language" }),
  statusUrl: z.url().openapi({
    description: "The trust center's own availability and recent disruptions",
  }),
}).openapi("OrganizationTrustCenter");
export type OrganizationTrustCenter = z.infer<typeof OrganizationTrustCenter>;

/** GET /projects/{id}/publish/preview: what publishing now would change, nothing published. */
export const PublishPreview = z.object({
  version: z.int().min(1).openapi({ description: "The version a publish now would create" }),
  previousVersion: z.int().min(1).nullable(),
  evaluatedAt: DateTime,
  overallState: z.object({ from: ControlState.nullable(), to: ControlState }),
  controls: z.array(z.object({
    key: z.string(),
    name: z.string(),
    from: ControlState.nullable().openapi({ description: "null: not in the latest version" }),
    to: ControlState.nullable().openapi({ description: "null: no longer published (disabled)" }),
    reason: z.string().nullable().openapi({ description: "Why the control is in its new state" }),
  })).openapi({ description: "Only the controls whose state would change, in catalog order" }),
  unchangedCount: z.int().min(0),
}).openapi("PublishPreview");
export type PublishPreview = z.infer<typeof PublishPreview>;

export const PublishPreviewResponse = z.object({ preview: PublishPreview })
  .openapi("PublishPreviewResponse");
