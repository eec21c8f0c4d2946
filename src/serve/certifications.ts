/**
 * Certifications: owners' writes, checked against the organization (its projects and
 * documents) and as a whole (dates in order, a name only for `other`), and the public reads
 * (the trust center's list, a project page's cards and the MCP tool get_certifications),
 * each with the status as of now and the linked report's download or request link.
 */
import type { Config } from "../config.ts";
import {
  type CreateCertificationRequest,
  datesProblem,
  frameworkNameProblem,
  LIVE_NOTICE,
  type PublicCertification,
  type PublicCertifications,
  type StoredCertification,
  type UpdateCertificationRequest,
} from "../domain/certifications.ts";
import { notFound, validationFailed } from "../domain/errors.ts";
import type { Organization } from "../domain/workspace.ts";
import { type CertificationScope, resolveCertifications } from "../publish/certifications.ts";
import { trustCenterUrl } from "../publish/urls.ts";
import {
  addCertification,
  removeCertification,
  updateCertification,
} from "../store/certifications.ts";
import { currentNda, getDocument } from "../store/documents.ts";
import { getOrganizationBySlug } from "../store/organizations.ts";
import { checkProject, documentUrls } from "./documents.ts";

/** Who made a change. */
export interface CertificationActor {
  userId: string;
  email: string | null;
}

/** Throws validation_failed unless the linked document exists and may be shown beside the claim. */
async function checkDocument(
  kv: Deno.Kv,
  organizationId: string,
  certification: Pick<StoredCertification, "documentId" | "projectId">,
): Promise<void> {
  if (certification.documentId === null) return;
  const document = await getDocument(kv, organizationId, certification.documentId);
  if (!document) throw validationFailed("documentId must name a document of this organization");
  if (document.unlisted) {
    throw validationFailed(
      "documentId names an unlisted document (shared only through access links): a certification shows its report publicly",
    );
  }
  if (document.projectId !== null && document.projectId !== certification.projectId) {
    throw validationFailed(
      "documentId must name a document of the whole organization or of the certification's project",
    );
  }
}

/** Throws validation_failed when the certification as a whole is not consistent. */
async function check(kv: Deno.Kv, organizationId: string, next: StoredCertification) {
  const problem = frameworkNameProblem({ ...next, frameworkName: next.otherName }) ??
    datesProblem(next);
  if (problem) throw validationFailed(problem);
  await checkProject(kv, organizationId, next.projectId);
  await checkDocument(kv, organizationId, next);
}

/** Records a new certification of the organization. */
export async function createCertification(
  kv: Deno.Kv,
  options: {
    organizationId: string;
    request: CreateCertificationRequest;
    actor: CertificationActor;
    now: Date;
  },
): Promise<StoredCertification> {
  const { request, now } = options;
  const at = now.toISOString();
  const certification: StoredCertification = {
    id: crypto.randomUUID(),
    framework: request.framework,
    otherName: request.frameworkName ?? null,
    status: request.status,
    projectId: request.projectId ?? null,
    auditor: request.auditor ?? null,
    auditPeriod: request.auditPeriod ?? null,
    issuedAt: request.issuedAt ?? null,
    expiresAt: request.expiresAt ?? null,
    scope: request.scope ?? null,
    documentId: request.documentId ?? null,
    registryUrl: request.registryUrl ?? null,
    createdAt: at,
    updatedAt: at,
    updatedBy: options.actor,
  };
  await check(kv, options.organizationId, certification);
  return await addCertification(kv, options.organizationId, { certification, now });
}

/**
 * Changes a certification: fields left out are kept, null clears one. A claim recorded as
 * expired reads as achieved again when the change gives it a future expiry.
 */
export function changeCertification(
  kv: Deno.Kv,
  options: {
    organizationId: string;
    id: string;
    change: UpdateCertificationRequest;
    actor: CertificationActor;
    now: Date;
  },
): Promise<StoredCertification> {
  const { change, now } = options;
  const { frameworkName, status, ...fields } = change;
  return updateCertification(kv, options.organizationId, {
    id: options.id,
    now,
    change: async (current) => {
      const framework = fields.framework ?? current.framework;
      const otherName = frameworkName !== undefined
        ? frameworkName
        : framework === "other"
        ? current.otherName
        : null;
      const merged: StoredCertification = {
        ...current,
        ...fields,
        otherName,
        status: status ?? (current.status === "expired" ? "achieved" : current.status),
        updatedAt: now.toISOString(),
        updatedBy: options.actor,
      };
      await check(kv, options.organizationId, merged);
      return merged;
    },
  });
}

/** Removes a certification. */
export function deleteCertification(
  kv: Deno.Kv,
  options: { organizationId: string; id: string; now: Date },
): Promise<StoredCertification> {
  return removeCertification(kv, options.organizationId, { id: options.id, now: options.now });
}

/**
 * The certifications shown in `scope` as of `now`, each with its report's public download
 * link, or, for a restricted report, the access-request form while an NDA is set.
 */
export async function publicCertificationsOf(
  kv: Deno.Kv,
  options: {
    config: Pick<Config, "baseUrl">;
    organization: Organization;
    scope: CertificationScope;
    now: Date;
  },
): Promise<PublicCertification[]> {
  const { config, organization } = options;
  const [resolved, nda] = await Promise.all([
    resolveCertifications(kv, organization.id, options),
    currentNda(kv, organization.id),
  ]);
  return resolved.map(({ declared }) => {
    if (!declared.document) return { ...declared, document: null };
    const urls = documentUrls(config, organization.slug, declared.document.id);
    const isPublic = declared.document.visibility === "public";
    return {
      ...declared,
      document: {
        ...declared.document,
        downloadUrl: isPublic ? urls.download : null,
        requestAccessUrl: !isPublic && nda ? urls.requestAccess : null,
      },
    };
  });
}

/** The public list of an organization (GET /public/trust/{orgSlug}/certifications), or 404. */
export async function publicCertifications(
  kv: Deno.Kv,
  orgSlug: string,
  options: { config: Pick<Config, "baseUrl">; now: Date },
): Promise<PublicCertifications> {
  const organization = await getOrganizationBySlug(kv, orgSlug);
  if (!organization) throw notFound("No public trust center by that name");
  const certifications = await publicCertificationsOf(kv, {
    config: options.config,
    organization,
    scope: { organization: true },
    now: options.now,
  });
  return {
    organization: { name: organization.name, slug: organization.slug },
    notice: LIVE_NOTICE,
    certifications,
    url: `${trustCenterUrl(options.config as Config, organization.slug)}/certifications`,
  };
}
