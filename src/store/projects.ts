/**
 * Projects: slug (global, fixed at creation), hosted subdomain (global,
 * mutable) and the organization index, plus the one-call workspace bootstrap.
 */
import type { TrustControl } from "../domain/control.ts";
import { conflict } from "../domain/errors.ts";
import type { Organization, Project, UpdateProjectRequest } from "../domain/workspace.ts";
import { firstFreeSlug, slugCandidates } from "./_slugs.ts";
import { type NameTombstone, stageNameNotReserved, stageNameTaken } from "./deletions.ts";
import { addPublisherChangeAppend } from "./log.ts";
import { seedControls } from "./controls.ts";
import {
  bootstrapByUserKey,
  organizationKey,
  projectByHostedSubdomainKey,
  projectByOrganizationKey,
  projectBySlugKey,
  projectKey,
  projectsByOrganizationPrefix,
  projectsPrefix,
} from "./keys.ts";
import {
  addMembership,
  addOrganization,
  chooseOrganizationSlug,
  newMembership,
  newOrganization,
} from "./organizations.ts";
import { compareCodePoints } from "../lib/order.ts";
import { reindexProjectUpdate } from "./search_index.ts";
import { type Page, readOrderedPage, stageOrder } from "./list_pages.ts";

const MAX_ATTEMPTS = 10;

/** Slugs that would collide with public routes under /trust/. */
const RESERVED_PROJECT_SLUGS = new Set(["domains"]);

export interface NewProjectInput {
  organizationId: string;
  name: string;
  slug?: string;
  hostedSubdomain?: string | null;
  visibility?: "private" | "public";
  autoPublish?: boolean;
}

function newProject(input: NewProjectInput, slug: string, now: Date): Project {
  const at = now.toISOString();
  return {
    id: crypto.randomUUID(),
    organizationId: input.organizationId,
    name: input.name,
    slug,
    hostedSubdomain: input.hostedSubdomain ?? null,
    visibility: input.visibility ?? "private",
    autoPublish: input.autoPublish ?? false,
    createdAt: at,
    updatedAt: at,
  };
}

async function chooseProjectSlug(kv: Deno.Kv, input: NewProjectInput): Promise<string> {
  if (input.slug) {
    if (
      RESERVED_PROJECT_SLUGS.has(input.slug) ||
      (await kv.get(projectBySlugKey(input.slug))).versionstamp !== null
    ) {
      throw conflict(`Project slug "${input.slug}" is already taken`);
    }
    return input.slug;
  }
  const candidates = slugCandidates(input.name, "project");
  return await firstFreeSlug(kv, filterReserved(candidates), projectBySlugKey, "project");
}

function* filterReserved(candidates: Iterable<string>) {
  for (const slug of candidates) if (!RESERVED_PROJECT_SLUGS.has(slug)) yield slug;
}

async function assertSubdomainFree(kv: Deno.Kv, subdomain: string | null | undefined) {
  if (subdomain && (await kv.get(projectByHostedSubdomainKey(subdomain))).versionstamp !== null) {
    throw conflict(`Hosted subdomain "${subdomain}" is already taken`);
  }
}

/** Adds the writes that create `project` and its controls to an atomic operation. */
function addProject(op: Deno.AtomicOperation, project: Project, controls: TrustControl[]) {
  op.check({ key: projectBySlugKey(project.slug), versionstamp: null })
    .set(projectKey(project.id), project)
    .set(projectBySlugKey(project.slug), project.id)
    .set(projectByOrganizationKey(project.organizationId, project.id), project.id);
  stageOrder(op, "projects", project.organizationId, projectOrderParts(project));
  if (project.hostedSubdomain) {
    const key = projectByHostedSubdomainKey(project.hostedSubdomain);
    op.check({ key, versionstamp: null }).set(key, project.id);
  }
  return seedControls(op, project.id, controls, { newProject: true });
}

/**
 * Adds to `op` the log entry recording that `project` takes a slug a deleted project had
 * left (its tombstone `released` by the operator): the log names the new publisher, so a
 * buyer's verifier kit reports "a different publisher since entry N" across it.
 */
async function stagePublisherChange(
  kv: Deno.Kv,
  op: Deno.AtomicOperation,
  options: { project: Project; organization: Organization; released: NameTombstone; now: Date },
): Promise<void> {
  const { project, organization, released, now } = options;
  await addPublisherChangeAppend(kv, op, {
    slug: project.slug,
    previousLogSize: released.logSize ?? null,
    projectId: project.id,
    organizationSlug: organization.slug,
    organizationId: organization.id,
    takenAt: now.toISOString(),
  });
}

/** Creates a project seeded with `controls` (the default catalog's, from the caller). */
export async function createProject(
  kv: Deno.Kv,
  input: NewProjectInput,
  options: { now: Date; controls: TrustControl[] },
): Promise<Project> {
  const { now, controls } = options;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    await assertSubdomainFree(kv, input.hostedSubdomain);
    const project = newProject(input, await chooseProjectSlug(kv, input), now);
    const op = addProject(kv.atomic(), project, controls);
    // A deleted project's slug stays reserved (409) until an operator releases it; taking a
    // released one records the change of publisher in the log.
    const released = await stageNameNotReserved(kv, op, "project", project.slug);
    if (released) {
      const organization = (await kv.get<Organization>(organizationKey(project.organizationId)))
        .value;
      if (!organization) throw conflict("The project could not be created; please retry");
      await stagePublisherChange(kv, op, { project, organization, released, now });
    }
    if ((await op.commit()).ok) return project;
  }
  throw conflict("The project could not be created; please retry");
}

export interface BootstrapInput {
  userId: string;
  workspaceName: string;
  workspaceSlug?: string;
  project: Omit<NewProjectInput, "organizationId">;
}

/**
 * Creates the caller's first organization (owned by them) and its first
 * project in one atomic commit. A per-user marker guarded by
 * `versionstamp: null` makes concurrent calls produce exactly one workspace.
 */
export async function bootstrapWorkspace(
  kv: Deno.Kv,
  input: BootstrapInput,
  options: { now: Date; controls: TrustControl[] },
): Promise<{ organization: Organization; project: Project }> {
  const { now, controls } = options;
  const marker = bootstrapByUserKey(input.userId);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if ((await kv.get(marker)).versionstamp !== null) {
      throw conflict("You already own a workspace");
    }
    const orgSlug = await chooseOrganizationSlug(kv, input.workspaceName, input.workspaceSlug);
    const organization = newOrganization(input.workspaceName, orgSlug, now);
    const projectInput = { ...input.project, organizationId: organization.id };
    await assertSubdomainFree(kv, projectInput.hostedSubdomain);
    const project = newProject(projectInput, await chooseProjectSlug(kv, projectInput), now);
    const op = kv.atomic()
      .check({ key: marker, versionstamp: null })
      .set(marker, organization.id);
    addOrganization(op, organization);
    addMembership(op, newMembership(organization.id, input.userId, "owner", now));
    addProject(op, project, controls);
    const orgReleased = await stageNameNotReserved(kv, op, "organization", organization.slug);
    if (orgReleased) {
      await stageNameTaken(kv, op, {
        kind: "organization",
        name: organization.slug,
        released: orgReleased,
        organization,
        projectId: null,
        now,
      });
    }
    const released = await stageNameNotReserved(kv, op, "project", project.slug);
    if (released) await stagePublisherChange(kv, op, { project, organization, released, now });
    if ((await op.commit()).ok) return { organization, project };
  }
  throw conflict("The workspace could not be created; please retry");
}

export async function getProject(kv: Deno.Kv, id: string): Promise<Project | null> {
  return (await kv.get<Project>(projectKey(id))).value;
}

export async function getProjectBySlug(kv: Deno.Kv, slug: string): Promise<Project | null> {
  const index = await kv.get<string>(projectBySlugKey(slug));
  return index.value ? await getProject(kv, index.value) : null;
}

export async function getProjectByHostedSubdomain(
  kv: Deno.Kv,
  subdomain: string,
): Promise<Project | null> {
  const index = await kv.get<string>(projectByHostedSubdomainKey(subdomain));
  return index.value ? await getProject(kv, index.value) : null;
}

export async function listProjectsByOrganization(
  kv: Deno.Kv,
  organizationId: string,
): Promise<Project[]> {
  const ids: string[] = [];
  for await (const entry of kv.list({ prefix: projectsByOrganizationPrefix(organizationId) })) {
    ids.push(entry.key[2] as string);
  }
  const projects = await Promise.all(ids.map((id) => getProject(kv, id)));
  return projects.filter((p): p is Project => p !== null)
    .sort((a, b) =>
      compareCodePoints(a.createdAt, b.createdAt) || compareCodePoints(a.slug, b.slug)
    );
}

/** A project's place in its organization's list: created, then slug, then id. */
export const projectOrderParts = (project: Project) => [
  project.createdAt,
  project.slug,
  project.id,
];

/** One page of an organization's projects, oldest first (then by slug), after `cursor`. */
export function listProjectsPage(
  kv: Deno.Kv,
  organizationId: string,
  page: { cursor: string[] | null; limit: number },
): Promise<Page<Project>> {
  return readOrderedPage<Project>(kv, {
    list: "projects",
    parentId: organizationId,
    recordKeys: (ids) => ids.map((id) => projectKey(id)),
    partsOf: projectOrderParts,
    legacy: () => listProjectsByOrganization(kv, organizationId),
  }, page);
}

/** Every project, in id order, streamed from KV in batches (for upgrades that visit each one). */
export async function* scanProjects(kv: Deno.Kv): AsyncGenerator<Project> {
  for await (const entry of kv.list<Project>({ prefix: projectsPrefix() }, { batchSize: 500 })) {
    yield entry.value;
  }
}

/** Applies a metadata change; the hosted subdomain index moves with it. */
export async function updateProject(
  kv: Deno.Kv,
  id: string,
  patch: UpdateProjectRequest,
  now: Date,
): Promise<Project | null> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const current = await kv.get<Project>(projectKey(id));
    if (!current.value) return null;
    const before = current.value;
    const changes = Object.entries(patch).filter(([k, v]) =>
      v !== undefined && v !== before[k as keyof Project]
    );
    if (changes.length === 0) return before;
    const updated: Project = {
      ...before,
      ...Object.fromEntries(changes),
      updatedAt: now.toISOString(),
    };
    const op = kv.atomic().check(current).set(projectKey(id), updated);
    if (updated.hostedSubdomain !== before.hostedSubdomain) {
      if (before.hostedSubdomain) op.delete(projectByHostedSubdomainKey(before.hostedSubdomain));
      if (updated.hostedSubdomain) {
        await assertSubdomainFree(kv, updated.hostedSubdomain);
        const key = projectByHostedSubdomainKey(updated.hostedSubdomain);
        op.check({ key, versionstamp: null }).set(key, id);
      }
    }
    await reindexProjectUpdate(kv, op, before, updated);
    if ((await op.commit()).ok) return updated;
  }
  throw conflict("The project changed while it was being updated; please retry");
}
