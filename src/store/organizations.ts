/**
 * Organizations and their memberships.
 */
import { conflict } from "../domain/errors.ts";
import type {
  Organization,
  OrganizationMember,
  OrganizationSummary,
  Role,
} from "../domain/workspace.ts";
import { firstFreeSlug, slugCandidates } from "./_slugs.ts";
import { stageNameNotReserved, stageNameTaken } from "./deletions.ts";
import {
  membershipByUserKey,
  membershipKey,
  membershipsByUserPrefix,
  membershipsOfOrganizationPrefix,
  organizationBySlugKey,
  organizationKey,
} from "./keys.ts";
import { compareCodePoints } from "../lib/order.ts";
import { getManyChunked } from "./_chunks.ts";
import { orderKey, type Page, readOrderedPage } from "./list_pages.ts";

const MAX_ATTEMPTS = 10;

export function newOrganization(name: string, slug: string, now: Date): Organization {
  const at = now.toISOString();
  return { id: crypto.randomUUID(), name, slug, createdAt: at, updatedAt: at };
}

export function newMembership(
  organizationId: string,
  userId: string,
  role: Role,
  now: Date,
): OrganizationMember {
  return {
    id: crypto.randomUUID(),
    organizationId,
    userId,
    role,
    createdAt: now.toISOString(),
  };
}

/** Adds the writes that create `org` (slug index guarded) to an atomic operation. */
export function addOrganization(op: Deno.AtomicOperation, org: Organization) {
  return op.check({ key: organizationBySlugKey(org.slug), versionstamp: null })
    .set(organizationKey(org.id), org)
    .set(organizationBySlugKey(org.slug), org.id);
}

/** Adds the writes that create `membership` (guarded against duplicates). */
export function addMembership(op: Deno.AtomicOperation, membership: OrganizationMember) {
  const key = membershipKey(membership.organizationId, membership.userId);
  return op.check({ key, versionstamp: null })
    .set(key, membership)
    .set(membershipByUserKey(membership.userId, membership.organizationId), membership.id)
    .set(...memberOrder(membership));
}

/** The order entry of a membership (members are listed oldest first, then by user id). */
function memberOrder(membership: OrganizationMember): [Deno.KvKey, string] {
  const parts = [membership.createdAt, membership.userId];
  return [orderKey("members", membership.organizationId, parts), membership.userId];
}

/** Picks the organization slug: the requested one, or a free one derived from the name. */
export async function chooseOrganizationSlug(
  kv: Deno.Kv,
  name: string,
  requested: string | undefined,
): Promise<string> {
  if (requested) {
    if ((await kv.get(organizationBySlugKey(requested))).versionstamp !== null) {
      throw conflict(`Organization slug "${requested}" is already taken`);
    }
    return requested;
  }
  return await firstFreeSlug(
    kv,
    slugCandidates(name, "org"),
    organizationBySlugKey,
    "organization",
  );
}

/** Creates an organization owned by `ownerUserId`. */
export async function createOrganization(
  kv: Deno.Kv,
  input: { name: string; slug?: string; ownerUserId: string },
  now: Date,
): Promise<Organization> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const slug = await chooseOrganizationSlug(kv, input.name, input.slug);
    const org = newOrganization(input.name, slug, now);
    const op = addOrganization(kv.atomic(), org);
    // A deleted organization's slug stays reserved (409) until an operator releases it;
    // taking a released one records the change of publisher in the log.
    const released = await stageNameNotReserved(kv, op, "organization", slug);
    if (released) {
      await stageNameTaken(kv, op, {
        kind: "organization",
        name: slug,
        released,
        organization: org,
        projectId: null,
        now,
      });
    }
    addMembership(op, newMembership(org.id, input.ownerUserId, "owner", now));
    if ((await op.commit()).ok) return org;
  }
  throw conflict("The organization could not be created; please retry");
}

export async function getOrganization(kv: Deno.Kv, id: string): Promise<Organization | null> {
  return (await kv.get<Organization>(organizationKey(id))).value;
}

export async function getOrganizationBySlug(
  kv: Deno.Kv,
  slug: string,
): Promise<Organization | null> {
  const index = await kv.get<string>(organizationBySlugKey(slug));
  return index.value ? await getOrganization(kv, index.value) : null;
}

export async function getMembership(
  kv: Deno.Kv,
  organizationId: string,
  userId: string,
): Promise<OrganizationMember | null> {
  return (await kv.get<OrganizationMember>(membershipKey(organizationId, userId))).value;
}

export async function listMembershipsByOrganization(
  kv: Deno.Kv,
  organizationId: string,
): Promise<OrganizationMember[]> {
  const members: OrganizationMember[] = [];
  const prefix = membershipsOfOrganizationPrefix(organizationId);
  for await (const entry of kv.list<OrganizationMember>({ prefix })) members.push(entry.value);
  return members.sort((a, b) => compareCodePoints(a.createdAt, b.createdAt));
}

/** One page of an organization's members, oldest first (then by user id), after `cursor`. */
export function listMembershipsPage(
  kv: Deno.Kv,
  organizationId: string,
  page: { cursor: string[] | null; limit: number },
): Promise<Page<OrganizationMember>> {
  return readOrderedPage<OrganizationMember>(kv, {
    list: "members",
    parentId: organizationId,
    recordKeys: (userIds) => userIds.map((userId) => membershipKey(organizationId, userId)),
    partsOf: (membership) => [membership.createdAt, membership.userId],
    legacy: () => listMembershipsByOrganization(kv, organizationId),
  }, page);
}

/**
 * The organizations a user belongs to, with the user's role in each. Reads the user's
 * membership index once, then the organizations and memberships in batches of ten keys, all
 * batches at once: a few round trips, not two sequential reads per membership.
 */
export async function listOrganizationSummariesByUser(
  kv: Deno.Kv,
  userId: string,
): Promise<OrganizationSummary[]> {
  const ids: string[] = [];
  for await (const entry of kv.list({ prefix: membershipsByUserPrefix(userId) })) {
    ids.push(entry.key[2] as string);
  }
  const [organizations, memberships] = await Promise.all([
    getManyChunked<Organization>(kv, ids.map((id) => organizationKey(id))),
    getManyChunked<OrganizationMember>(kv, ids.map((id) => membershipKey(id, userId))),
  ]);
  const summaries: OrganizationSummary[] = [];
  organizations.forEach(({ value: org }, i) => {
    const membership = memberships[i].value;
    if (org && membership) {
      summaries.push({ id: org.id, name: org.name, slug: org.slug, role: membership.role });
    }
  });
  return summaries.sort((a, b) => compareCodePoints(a.slug, b.slug));
}

/** Adds a member; an existing membership is returned unchanged. */
export async function addMember(
  kv: Deno.Kv,
  input: { organizationId: string; userId: string; role: Role },
  now: Date,
): Promise<OrganizationMember> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const existing = await getMembership(kv, input.organizationId, input.userId);
    if (existing) return existing;
    const membership = newMembership(input.organizationId, input.userId, input.role, now);
    if ((await addMembership(kv.atomic(), membership).commit()).ok) return membership;
  }
  throw conflict("The membership could not be recorded; please retry");
}

/**
 * Removes a member. Removing the last owner is refused with a conflict; the
 * check covers every owner's entry, so two concurrent removals cannot both pass.
 * Returns false when the user was not a member.
 */
export async function removeMember(
  kv: Deno.Kv,
  organizationId: string,
  userId: string,
): Promise<boolean> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const target = await kv.get<OrganizationMember>(membershipKey(organizationId, userId));
    if (!target.value) return false;
    const op = kv.atomic().check(target);
    if (target.value.role === "owner") {
      const owners = [];
      for await (
        const entry of kv.list<OrganizationMember>({
          prefix: membershipsOfOrganizationPrefix(organizationId),
        })
      ) {
        if (entry.value.role === "owner") owners.push(entry);
      }
      if (owners.length <= 1) {
        throw conflict("The last owner of an organization cannot be removed");
      }
      for (const owner of owners) op.check(owner);
    }
    op.delete(target.key).delete(membershipByUserKey(userId, organizationId))
      .delete(memberOrder(target.value)[0]);
    if ((await op.commit()).ok) return true;
  }
  throw conflict("The membership changed while it was being removed; please retry");
}
