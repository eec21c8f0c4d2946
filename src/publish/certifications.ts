/**
 * The certifications a page or a version declares: the organization's own and those limited
 * to the project in view (or, for the organization's pages, to any public project), each with
 * its status at a given instant and the report it links to, as long as that report is listed
 * where the claim is shown. A version's `declaredByVendor` section is built from these at its
 * publication instant, and its digest tells an automatic publish whether they changed.
 */
import {
  compareCertifications,
  DECLARED_NOTICE,
  type DeclaredByVendor,
  type DeclaredCertification,
  presentCertification,
  type StoredCertification,
} from "../domain/certifications.ts";
import type { TrustDocument } from "../domain/documents.ts";
import type { Project } from "../domain/workspace.ts";
import { sha256HexSync } from "../lib/hash.ts";
import { listCertifications } from "../store/certifications.ts";
import { withdrawnProjectIds } from "../store/deletions.ts";
import { listDocuments } from "../store/documents.ts";
import { getProject } from "../store/projects.ts";

/** Whose claims are shown: one project's page, or the organization's (every public project). */
export type CertificationScope = { projectId: string } | { organization: true };

/** A declared certification with the linked document as stored, for pages that link it. */
export interface ResolvedCertification {
  declared: DeclaredCertification;
  document: TrustDocument | null;
}

/**
 * The certifications shown in `scope` at `now`: the organization-wide ones and, for a project,
 * its own; for the organization, those of its public projects. A linked document is kept only
 * when it is listed in the same place (organization-wide, or of the claim's project, and not
 * of a private project).
 */
export async function resolveCertifications(
  kv: Deno.Kv,
  organizationId: string,
  options: { scope: CertificationScope; now: Date },
): Promise<ResolvedCertification[]> {
  const stored = await listCertifications(kv, organizationId);
  if (stored.length === 0) return [];
  const projects = new Map<string, Project | null>();
  const projectOf = async (id: string) => {
    if (!projects.has(id)) projects.set(id, await getProject(kv, id));
    return projects.get(id) ?? null;
  };
  const documents = new Map((await listDocuments(kv, organizationId)).map((d) => [d.id, d]));
  // The organization's pages leave out the claims of a project whose deletion is scheduled
  // (withdrawn from public view during its grace); a project's own page is gone (410) then.
  const withdrawn = "organization" in options.scope
    ? await withdrawnProjectIds(kv, [
      ...new Set(stored.flatMap((c) => c.projectId ? [c.projectId] : [])),
    ])
    : new Set<string>();
  const resolved: ResolvedCertification[] = [];
  for (const certification of stored) {
    if (certification.projectId && withdrawn.has(certification.projectId)) continue;
    const project = certification.projectId ? await projectOf(certification.projectId) : null;
    if (!shown(certification, project, options.scope)) continue;
    const document = await linkedDocument(certification, documents, projectOf);
    resolved.push({ declared: declare(certification, project, document, options.now), document });
  }
  return resolved.sort((a, b) =>
    compareCertifications(
      { ...a.declared, projectSlug: a.declared.project?.slug },
      { ...b.declared, projectSlug: b.declared.project?.slug },
    )
  );
}

function shown(
  certification: StoredCertification,
  project: Project | null,
  scope: CertificationScope,
): boolean {
  if (certification.projectId === null) return true;
  if (!project) return false;
  if ("projectId" in scope) return project.id === scope.projectId;
  return project.visibility === "public";
}

/** The linked document when it is listed beside the claim, else null. */
async function linkedDocument(
  certification: StoredCertification,
  documents: Map<string, TrustDocument>,
  projectOf: (id: string) => Promise<Project | null>,
): Promise<TrustDocument | null> {
  const document = certification.documentId ? documents.get(certification.documentId) : null;
  if (!document || document.unlisted) return null;
  if (document.projectId === null) return document;
  if (document.projectId !== certification.projectId) return null;
  const project = await projectOf(document.projectId);
  return project?.visibility === "public" ? document : null;
}

function declare(
  certification: StoredCertification,
  project: Project | null,
  document: TrustDocument | null,
  now: Date,
): DeclaredCertification {
  const shownAs = presentCertification(certification, now);
  return {
    id: shownAs.id,
    framework: shownAs.framework,
    frameworkName: shownAs.frameworkName,
    status: shownAs.status,
    auditor: shownAs.auditor,
    auditPeriod: shownAs.auditPeriod && {
      start: shownAs.auditPeriod.start,
      end: shownAs.auditPeriod.end,
    },
    issuedAt: shownAs.issuedAt,
    expiresAt: shownAs.expiresAt,
    scope: shownAs.scope,
    registryUrl: shownAs.registryUrl,
    project: project ? { slug: project.slug, name: project.name } : null,
    document: document && {
      id: document.id,
      title: document.title,
      visibility: document.visibility,
      digest: `sha256:${document.sha256}`,
    },
  };
}

/** trust.json's `declaredByVendor` section, or null when nothing is declared. */
export function declaredSection(
  certifications: readonly DeclaredCertification[],
): DeclaredByVendor | null {
  return certifications.length === 0
    ? null
    : { notice: DECLARED_NOTICE, certifications: [...certifications] };
}

/**
 * A digest of what a version declares, kept with the publication so an automatic publish
 * can tell whether the claims changed; undefined when nothing is declared (as for versions
 * published before declarations existed).
 */
export function declaredDigest(
  certifications: readonly DeclaredCertification[],
): string | undefined {
  return certifications.length === 0 ? undefined : sha256HexSync(JSON.stringify(certifications));
}
