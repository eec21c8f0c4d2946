/**
 * Resolving public reads: slug → public project and its latest (or a given)
 * publication, verified domain → publication. Private projects and unknown
 * slugs fail with the same 404, so a slug's existence is not revealed, on
 * every surface that reads through here (HTTP routes and MCP tools).
 *
 * A project or an organization whose deletion is scheduled is withdrawn from every public
 * surface at once (410 Gone saying when it goes and that it may return), and so is a deleted
 * one (410 saying it was deleted): the rule is here, for the HTTP middleware
 * (src/http/gone.ts) and the MCP tools alike. The organization's other surfaces stop citing a
 * withdrawn project (`withdrawnProjectIds`).
 */
import { type DeletionRecord, goneNotice } from "../domain/deletion.ts";
import { gone, notFound } from "../domain/errors.ts";
import type { Publication } from "../domain/publication.ts";
import type { Project } from "../domain/workspace.ts";
import { normalizeDomain } from "../publish/domain_name.ts";
import { pendingDeletionOf, wasDeleted } from "../store/deletions.ts";
import { getDomainByName } from "../store/domains.ts";
import { getOrganizationBySlug } from "../store/organizations.ts";
import { getProject, getProjectBySlug } from "../store/projects.ts";
import { getLatestPublication, getPublication } from "../store/publications.ts";
import type { ArtifactSource } from "./artifacts.ts";

/** What public reads use: KV, the blob store and the app's artifact cache. */
export interface PublicReads extends ArtifactSource {
  kv: Deno.Kv;
}

/**
 * The project with this slug and its latest publication, read from KV every time: the render
 * job on any instance reads what was just committed (docs/edge.md); hot answers are kept by the
 * stored layer instead (src/http/stored_pages.ts).
 */
async function publicView(kv: Deno.Kv, slug: string) {
  const project = await readProject(kv, slug);
  const publication = project ? await getLatestPublication(kv, project.id) : null;
  return { project, publication };
}

/** Why a tenant's public surfaces answer 410: a deletion scheduled (and not started), or done. */
export type GoneState = { scheduled: true; dueAt: string } | { scheduled: false };

/** The gone state of a stored deletion: scheduled until its job starts, then deleted. */
function stateOf(record: DeletionRecord): GoneState {
  return (record as { startedAt?: string }).startedAt
    ? { scheduled: false }
    : { scheduled: true, dueAt: record.dueAt };
}

/** The 410 of a withdrawn or deleted tenant, its notice saying which. */
export function goneError(what: "project" | "organization", state: GoneState) {
  return gone(goneNotice(what, state.scheduled ? state.dueAt : null));
}

/**
 * Whether the project with this slug is withdrawn (its or its organization's deletion is
 * scheduled) or deleted (its slug's tombstone), and how; null when neither (or unknown).
 */
export async function projectGoneState(kv: Deno.Kv, slug: string): Promise<GoneState | null> {
  const project = await getProjectBySlug(kv, slug);
  if (!project) return await wasDeleted(kv, "project", slug) ? { scheduled: false } : null;
  return await projectDeletionState(kv, project);
}

/** The same for an organization's slug. */
export async function organizationGoneState(
  kv: Deno.Kv,
  slug: string,
): Promise<GoneState | null> {
  const organization = await getOrganizationBySlug(kv, slug);
  if (!organization) {
    return await wasDeleted(kv, "organization", slug) ? { scheduled: false } : null;
  }
  const deletion = await pendingDeletionOf(kv, { organizationId: organization.id });
  return deletion ? stateOf(deletion) : null;
}

/**
 * Why a project's own item (a public document of its organization's trust center) answers 410
 * rather than being served: its project's deletion scheduled or under way, or done (`deleted`:
 * the item went with it). Null when the project is there and not withdrawn.
 */
export async function projectIdGoneState(
  kv: Deno.Kv,
  projectId: string,
): Promise<GoneState | null> {
  const project = await getProject(kv, projectId);
  if (!project) return { scheduled: false };
  return await projectDeletionState(kv, project);
}

async function projectDeletionState(kv: Deno.Kv, project: Project): Promise<GoneState | null> {
  const deletion = await pendingDeletionOf(kv, {
    projectId: project.id,
    organizationId: project.organizationId,
  });
  return deletion ? stateOf(deletion) : null;
}

/**
 * The project with this slug, or null; 410 Gone when it was deleted or its deletion is
 * scheduled (as the HTTP routes answer through src/http/gone.ts, for MCP tools too).
 */
async function readProject(kv: Deno.Kv, slug: string): Promise<Project | null> {
  const project = await getProjectBySlug(kv, slug);
  if (!project) {
    if (await wasDeleted(kv, "project", slug)) throw goneError("project", { scheduled: false });
    return null;
  }
  await assertNotDeleted(kv, project);
  return project;
}

async function assertNotDeleted(kv: Deno.Kv, project: Project): Promise<void> {
  const state = await projectDeletionState(kv, project);
  if (state) throw goneError("project", state);
}

/**
 * Whether a project (or its organization) is withdrawn from public view now: its deletion is
 * scheduled or under way. For reads that hold the project already (the log's entries).
 */
export async function isWithdrawn(
  kv: Deno.Kv,
  project: Pick<Project, "id" | "organizationId">,
): Promise<boolean> {
  return await pendingDeletionOf(kv, {
    projectId: project.id,
    organizationId: project.organizationId,
  }) !== null;
}

/**
 * Which of `projectIds` have their own deletion scheduled (src/store/deletions.ts): the
 * organization's answers, matching and lists stop citing them at once.
 */
export { withdrawnProjectIds } from "../store/deletions.ts";

function noProfile(slug: string) {
  return notFound(`No public trust profile for "${slug.slice(0, 100)}"`);
}

/**
 * 410 Gone when the organization with this slug was deleted or its deletion is scheduled
 * (nothing when it is there, or unknown: the read itself says 404). For surfaces that do not
 * go through src/http/gone.ts (MCP tools).
 */
export async function assertOrganizationNotGone(kv: Deno.Kv, orgSlug: string): Promise<void> {
  const state = await organizationGoneState(kv, orgSlug);
  if (state) throw goneError("organization", state);
}

/** The public project with this slug, or a 404 that does not say which part failed. */
export async function publicProject(reads: PublicReads, slug: string): Promise<Project> {
  const project = await readProject(reads.kv, slug);
  if (!project || project.visibility !== "public") throw noProfile(slug);
  return project;
}

/** The latest publication of a public project, or 404. */
export async function publicPublication(
  reads: PublicReads,
  slug: string,
): Promise<{ project: Project; publication: Publication }> {
  const { project, publication } = await publicView(reads.kv, slug);
  if (!project || project.visibility !== "public") throw noProfile(slug);
  if (!publication) throw notFound(`"${slug.slice(0, 100)}" has not published a trust profile yet`);
  return { project, publication };
}

/** One published version of a public project, or 404. */
export async function publicVersion(
  reads: PublicReads,
  options: { slug: string; version: number },
): Promise<Publication> {
  const project = await publicProject(reads, options.slug);
  const publication = await getPublication(reads.kv, project.id, options.version);
  if (!publication) {
    throw notFound(`Version ${options.version} of "${options.slug}" does not exist`);
  }
  return publication;
}

/**
 * The latest publication of the public project that verified the domain
 * named `raw` (any case, trailing dot allowed), or one 404 for every reason
 * it has none.
 */
export async function publicationByDomain(
  kv: Deno.Kv,
  raw: string,
): Promise<{ project: Project; publication: Publication }> {
  let name: string;
  try {
    name = normalizeDomain(raw);
  } catch {
    throw notFound("No verified domain by that name");
  }
  const domain = await getDomainByName(kv, name);
  const project = domain?.verificationStatus === "verified"
    ? await getProject(kv, domain.projectId)
    : null;
  if (project) await assertNotDeleted(kv, project);
  const publication = project?.visibility === "public"
    ? await getLatestPublication(kv, project.id)
    : null;
  if (!project || !publication) throw notFound("No verified domain by that name");
  return { project, publication };
}
