/**
 * Certifications and attestations an organization declares (SOC 2 reports, ISO/IEC
 * certificates, PCI DSS, …): the framework from a built-in list with stable ids, the status,
 * who audited or certified, the dates, the scope, the report (a document of the
 * organization) and a public registry entry. They are the vendor's claims: shown as such on
 * the trust pages and signed into each version's trust.json under `declaredByVendor`, never
 * presented as something this service verified. An achieved claim whose expiry has passed
 * reads as expired wherever it is shown.
 */
import { z } from "@hono/zod-openapi";
import { DateTime, toUtc, Uuid } from "./common.ts";
import { HttpsUrl, plainText } from "./vendor.ts";

/** Most certifications one organization may list. */
export const MAX_CERTIFICATIONS = 50;
/** Longest scope text, in characters. */
export const MAX_SCOPE_LENGTH = 1000;

/**
 * How a framework is met: an auditor's attestation report (SOC 2), a certificate from a
 * certification body (ISO/IEC), an assessment (PCI DSS, TISAX, C5, STAR level 1…) or a
 * compliance statement with no certificate at all (HIPAA, GDPR).
 */
export type FrameworkKind = "attestation" | "certification" | "assessment" | "compliance";

/**
 * The built-in frameworks. Ids are stable (stored, published in trust.json and used by
 * clients): never rename one, add new ones at the end.
 */
export const CERTIFICATION_FRAMEWORKS = [
  { id: "soc2-type1", name: "SOC 2 Type I", kind: "attestation" },
  { id: "soc2-type2", name: "SOC 2 Type II", kind: "attestation" },
  { id: "iso27001-2022", name: "ISO/IEC 27001:2022", kind: "certification" },
  { id: "iso27017", name: "ISO/IEC 27017", kind: "certification" },
  { id: "iso27018", name: "ISO/IEC 27018", kind: "certification" },
  { id: "iso27701", name: "ISO/IEC 27701", kind: "certification" },
  { id: "pci-dss-4.0", name: "PCI DSS 4.0", kind: "assessment" },
  { id: "hipaa", name: "HIPAA", kind: "compliance" },
  { id: "gdpr", name: "GDPR", kind: "compliance" },
  { id: "csa-star-level1", name: "CSA STAR Level 1", kind: "assessment" },
  { id: "csa-star-level2", name: "CSA STAR Level 2", kind: "certification" },
  { id: "cyber-essentials", name: "Cyber Essentials", kind: "certification" },
  { id: "cyber-essentials-plus", name: "Cyber Essentials Plus", kind: "certification" },
  { id: "fedramp", name: "FedRAMP", kind: "assessment" },
  { id: "tisax", name: "TISAX", kind: "assessment" },
  { id: "bsi-c5", name: "BSI C5", kind: "attestation" },
  { id: "other", name: "Other", kind: "certification" },
] as const satisfies readonly { id: string; name: string; kind: FrameworkKind }[];

export type FrameworkId = (typeof CERTIFICATION_FRAMEWORKS)[number]["id"];
const FRAMEWORK_IDS = CERTIFICATION_FRAMEWORKS.map((f) => f.id) as [FrameworkId, ...FrameworkId[]];

export const CertificationFramework = z.enum(FRAMEWORK_IDS).openapi("CertificationFramework", {
  description:
    "A built-in framework's stable id (GET /public/certification-frameworks lists them); `other` needs frameworkName",
});

/** The framework entry of an id. */
export function frameworkOf(id: FrameworkId) {
  return CERTIFICATION_FRAMEWORKS.find((f) => f.id === id)!;
}

/** What the owner declares; `expired` is never declared, it follows from `expiresAt`. */
export const DeclaredStatus = z.enum(["in_progress", "achieved"]).openapi({
  description:
    "in_progress (an audit or certification under way) or achieved; expired follows from expiresAt",
});
export const CertificationStatus = z.enum(["in_progress", "achieved", "expired"])
  .openapi("CertificationStatus", {
    description: "achieved turns expired at expiresAt, by itself",
  });
export type CertificationStatus = z.infer<typeof CertificationStatus>;

const oneLine = (max: number) =>
  plainText(max).pipe(z.string().min(1)).refine((t) => !/[\r\n]/.test(t), "Must be one line");

/** Earliest and latest instant a certification date may name. */
const EARLIEST = Date.parse("1990-01-01T00:00:00Z");
const LATEST = Date.parse("2200-01-01T00:00:00Z");

/** A date-time between 1990 and 2200, normalized to UTC. */
const When = DateTime.refine((value) => {
  const at = Date.parse(value);
  return at >= EARLIEST && at < LATEST;
}, "Must be between 1990 and 2200").transform(toUtc);

export const AuditPeriod = z.strictObject({
  start: When,
  end: When,
}).openapi("AuditPeriod", { description: "The period the audit covered (SOC 2 Type II)" });
export type AuditPeriod = z.infer<typeof AuditPeriod>;

/** The fields an owner sets; every one but the framework and status may be null. */
const Fields = {
  framework: CertificationFramework,
  frameworkName: oneLine(200).nullable().openapi({
    description: "The framework's name; required for `other`, refused for the built-in ones",
    example: "ISO/IEC 42001:2023",
  }),
  status: DeclaredStatus,
  projectId: Uuid.nullable().openapi({
    description: "The project the claim is limited to; null: the whole organization",
  }),
  auditor: oneLine(200).nullable().openapi({
    description: "The auditor or certification body",
    example: "Example Assurance LLP",
  }),
  auditPeriod: AuditPeriod.nullable(),
  issuedAt: When.nullable().openapi({ description: "When the report or certificate was issued" }),
  expiresAt: When.nullable().openapi({
    description: "When it stops being valid; an achieved claim reads as expired from then on",
  }),
  scope: plainText(MAX_SCOPE_LENGTH).pipe(z.string().min(1)).nullable().openapi({
    description: `What it covers, plain text, at most ${MAX_SCOPE_LENGTH} characters`,
    example: "The Acme Cloud platform and its supporting infrastructure",
  }),
  documentId: Uuid.nullable().openapi({
    description: "A document of the organization (usually the restricted report)",
  }),
  registryUrl: HttpsUrl.nullable().openapi({
    description: "The public registry entry (https), e.g. the CSA STAR registry",
  }),
};

type DateFields = {
  auditPeriod?: AuditPeriod | null;
  issuedAt?: string | null;
  expiresAt?: string | null;
};

/** Why the dates are out of order, or null when they are in order. */
export function datesProblem(fields: DateFields): string | null {
  const { auditPeriod, issuedAt, expiresAt } = fields;
  const t = (value: string) => Date.parse(value);
  if (auditPeriod && t(auditPeriod.start) > t(auditPeriod.end)) {
    return "auditPeriod.start must not be after auditPeriod.end";
  }
  if (issuedAt && expiresAt && t(issuedAt) >= t(expiresAt)) {
    return "issuedAt must be before expiresAt";
  }
  if (auditPeriod && issuedAt && t(auditPeriod.start) > t(issuedAt)) {
    return "issuedAt must not be before auditPeriod.start";
  }
  if (auditPeriod && expiresAt && t(auditPeriod.start) >= t(expiresAt)) {
    return "auditPeriod.start must be before expiresAt";
  }
  return null;
}

/** Why the framework's name is missing or not allowed, or null. */
export function frameworkNameProblem(
  fields: { framework: FrameworkId; frameworkName?: string | null },
): string | null {
  if (fields.framework === "other" && !fields.frameworkName) {
    return 'frameworkName is required for framework "other"';
  }
  if (fields.framework !== "other" && fields.frameworkName) {
    return 'frameworkName is only for framework "other"; built-in frameworks have their own name';
  }
  return null;
}

export const CreateCertificationRequest = z.strictObject({
  framework: Fields.framework,
  frameworkName: Fields.frameworkName.optional(),
  status: Fields.status,
  projectId: Fields.projectId.optional(),
  auditor: Fields.auditor.optional(),
  auditPeriod: Fields.auditPeriod.optional(),
  issuedAt: Fields.issuedAt.optional(),
  expiresAt: Fields.expiresAt.optional(),
  scope: Fields.scope.optional(),
  documentId: Fields.documentId.optional(),
  registryUrl: Fields.registryUrl.optional(),
}).superRefine((request, ctx) => {
  const problem = frameworkNameProblem(request) ?? datesProblem(request);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
}).openapi("CreateCertificationRequest");
export type CreateCertificationRequest = z.infer<typeof CreateCertificationRequest>;

export const UpdateCertificationRequest = z.strictObject({
  framework: Fields.framework.optional(),
  frameworkName: Fields.frameworkName.optional(),
  status: Fields.status.optional(),
  projectId: Fields.projectId.optional(),
  auditor: Fields.auditor.optional(),
  auditPeriod: Fields.auditPeriod.optional(),
  issuedAt: Fields.issuedAt.optional(),
  expiresAt: Fields.expiresAt.optional(),
  scope: Fields.scope.optional(),
  documentId: Fields.documentId.optional(),
  registryUrl: Fields.registryUrl.optional(),
}).refine((change) => Object.keys(change).length > 0, "Give at least one field to change")
  .openapi("UpdateCertificationRequest", {
    description:
      "Fields left out are kept; null clears one. The result is checked as a whole (dates in order, frameworkName only for other).",
  });
export type UpdateCertificationRequest = z.infer<typeof UpdateCertificationRequest>;

const Actor = z.object({ userId: Uuid, email: z.string().nullable() });

/** A certification as members see it. */
export const Certification = z.object({
  id: Uuid,
  framework: CertificationFramework,
  frameworkName: z.string().openapi({ description: "The built-in name, or the one given" }),
  status: CertificationStatus,
  projectId: Uuid.nullable(),
  auditor: z.string().nullable(),
  auditPeriod: z.object({ start: DateTime, end: DateTime }).nullable(),
  issuedAt: DateTime.nullable(),
  expiresAt: DateTime.nullable(),
  scope: z.string().nullable(),
  documentId: Uuid.nullable(),
  documentMissing: z.boolean().openapi({
    description:
      "true when documentId names a document that no longer exists (removed before removing a linked report was refused): the trust pages show no report until another is linked or documentId is cleared",
  }),
  registryUrl: z.string().nullable(),
  createdAt: DateTime,
  updatedAt: DateTime,
  updatedBy: Actor,
}).openapi("Certification");
export type Certification = z.infer<typeof Certification>;

/** A certification as stored: the name of a built-in framework is not kept (it is the list's). */
export type StoredCertification = Omit<Certification, "frameworkName" | "documentMissing"> & {
  /** The name given for `other`; null for the built-in frameworks. */
  otherName: string | null;
};

export const CertificationResponse = z.object({ certification: Certification })
  .openapi("CertificationResponse");
export const CertificationListResponse = z.object({
  certifications: z.array(Certification).openapi({
    description: "In the built-in list's order, then by name",
  }),
}).openapi("CertificationListResponse");

export const CertificationFrameworkList = z.object({
  frameworks: z.array(z.object({
    id: CertificationFramework,
    name: z.string(),
    kind: z.enum(["attestation", "certification", "assessment", "compliance"]).openapi({
      description:
        "attestation (an auditor's report), certification (a certificate), assessment, or compliance (no certificate exists)",
    }),
  })),
}).openapi("CertificationFrameworkList");

/** The report a certification links to, as published: what it is and the digest of its bytes. */
export const DeclaredDocument = z.object({
  id: Uuid,
  title: z.string(),
  visibility: z.enum(["public", "restricted"]),
  digest: z.string().openapi({
    description: "sha256:<hex> of the document's bytes: a reader who obtains it can check it",
  }),
}).openapi("DeclaredDocument");

/** One certification as trust.json declares it (signed with the version). */
export const DeclaredCertification = z.object({
  id: Uuid,
  framework: CertificationFramework,
  frameworkName: z.string(),
  status: CertificationStatus.openapi({ description: "At the publication instant" }),
  auditor: z.string().nullable(),
  auditPeriod: z.object({ start: DateTime, end: DateTime }).nullable(),
  issuedAt: DateTime.nullable(),
  expiresAt: DateTime.nullable(),
  scope: z.string().nullable(),
  registryUrl: z.string().nullable(),
  project: z.object({ slug: z.string(), name: z.string() }).nullable().openapi({
    description: "The project it is limited to; null: the whole organization",
  }),
  document: DeclaredDocument.nullable().openapi({
    description: "The linked report; null when none is linked or it is no longer listed",
  }),
}).openapi("DeclaredCertification");
export type DeclaredCertification = z.infer<typeof DeclaredCertification>;

/** What trust.json's `declaredByVendor` section says about its own standing. */
export const DECLARED_NOTICE =
  "Declared by the vendor, not verified by this service: the claims as the vendor stated them at publication, signed with this version";

/**
 * What the live list (the trust center's certifications, MCP get_certifications) says about its
 * own: it is no version and nothing in it is signed.
 */
export const LIVE_NOTICE =
  "Declared by the vendor, not verified by this service: the claims as the vendor states them now, status as of this request; not signed (each published version's trust.json signs those declared at its publication, under declaredByVendor)";

export const DeclaredByVendor = z.object({
  notice: z.string(),
  certifications: z.array(DeclaredCertification),
}).openapi("DeclaredByVendor", {
  description:
    "Addition to SPEC.md, after its fields: claims the vendor declared, signed with the version but not verified by this service (absent when it declared none, and in versions published before it)",
});
export type DeclaredByVendor = z.infer<typeof DeclaredByVendor>;

/** A certification as the public pages and the MCP tool show it now. */
export const PublicCertification = DeclaredCertification.extend({
  document: DeclaredDocument.extend({
    downloadUrl: z.url().nullable().openapi({ description: "Public documents only" }),
    requestAccessUrl: z.url().nullable().openapi({
      description: "Restricted documents, while the organization takes access requests",
    }),
  }).nullable(),
}).openapi("PublicCertification");
export type PublicCertification = z.infer<typeof PublicCertification>;

export const PublicCertifications = z.object({
  organization: z.object({ name: z.string(), slug: z.string() }),
  notice: z.string().openapi({ description: "What these claims are: declared, not verified" }),
  certifications: z.array(PublicCertification).openapi({
    description:
      "The organization's and its public projects' certifications, status as of now (an achieved one past its expiry is expired)",
  }),
  url: z.url(),
}).openapi("PublicCertifications");
export type PublicCertifications = z.infer<typeof PublicCertifications>;

/** The status shown at `now`: an achieved claim past its expiry is expired. */
export function statusAt(
  certification: { status: CertificationStatus; expiresAt: string | null },
  now: Date,
): CertificationStatus {
  const { status, expiresAt } = certification;
  if (status === "achieved" && expiresAt !== null && Date.parse(expiresAt) <= now.getTime()) {
    return "expired";
  }
  return status;
}

/** Orders certifications as every surface lists them: the built-in list's order, then name. */
export function compareCertifications(
  a: { framework: FrameworkId; frameworkName: string; id: string; projectSlug?: string | null },
  b: { framework: FrameworkId; frameworkName: string; id: string; projectSlug?: string | null },
): number {
  return FRAMEWORK_IDS.indexOf(a.framework) - FRAMEWORK_IDS.indexOf(b.framework) ||
    a.frameworkName.localeCompare(b.frameworkName, "en") ||
    (a.projectSlug ?? "").localeCompare(b.projectSlug ?? "", "en") ||
    a.id.localeCompare(b.id);
}

/**
 * A stored certification as the API shows it; `documentMissing` says that its documentId
 * names a document that is gone.
 */
export function presentCertification(
  stored: StoredCertification,
  now: Date,
  options: { documentMissing?: boolean } = {},
): Certification {
  const { otherName, ...rest } = stored;
  return {
    ...rest,
    documentMissing: options.documentMissing ?? false,
    frameworkName: stored.framework === "other" ? otherName ?? "Other" : frameworkOf(
      stored.framework,
    ).name,
    status: statusAt(stored, now),
  };
}
