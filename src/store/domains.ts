/**
 * Custom domains of projects. A pending domain is one project's claim on a name, and several
 * projects may claim the same name: a claim reserves nothing, so nobody can hold a name they
 * do not control. The first claim whose TXT record verifies becomes the name's owner (its index
 * is set with a check, so two verifications cannot both win); a pending claim lapses after
 * PENDING_DOMAIN_DAYS, which reads enforce and KV's expiry cleans up. A deleted project's
 * verified domain stays reserved like a slug (its tombstone, src/store/deletions.ts): no claim
 * is accepted, and no earlier claim verifies, until the operator releases it.
 */
import {
  isDomainClaimLapsed,
  PENDING_DOMAIN_TTL_MS,
  type ProjectDomain,
} from "../domain/publish.ts";
import { conflict } from "../domain/errors.ts";
import {
  type NameTombstone,
  reservedNameConflict,
  stageNameTaken,
  tombstoneKey,
} from "./deletions.ts";
import {
  domainByNameKey,
  domainByProjectKey,
  domainClaimKey,
  domainKey,
  domainsByProjectPrefix,
  organizationKey,
  projectKey,
} from "./keys.ts";
import { compareCodePoints } from "../lib/order.ts";
import { type Page, readOrderedPage, stageOrder, unstageOrder } from "./list_pages.ts";

/** The domain record that verified `name`, or null (an older pending index entry is no owner). */
async function verifiedOwner(kv: Deno.Kv, id: string | null): Promise<ProjectDomain | null> {
  const owner = id ? (await getDomainEntry(kv, id)).value : null;
  return owner?.verificationStatus === "verified" ? owner : null;
}

/**
 * Adds to `op` the log entry recording that `domain`'s project takes a name a deleted project's
 * verified domain had left (its tombstone `released` by the operator): src/store/deletions.ts,
 * `stageNameTaken`.
 */
async function stageDomainTaken(
  kv: Deno.Kv,
  op: Deno.AtomicOperation,
  domain: ProjectDomain,
  released: NameTombstone,
  now: Date,
): Promise<void> {
  const project = await kv.get<{ organizationId: string }>(projectKey(domain.projectId));
  const organization = project.value
    ? await kv.get<{ id: string; slug: string }>(organizationKey(project.value.organizationId))
    : null;
  if (!project.value || !organization?.value) {
    throw conflict(`Domain "${domain.domain}" changed meanwhile; try again`);
  }
  // A project's organization and an organization's slug never change: nothing to check.
  await stageNameTaken(kv, op, {
    kind: "domain",
    name: domain.domain,
    released,
    organization: organization.value,
    projectId: domain.projectId,
    now,
  });
}

/** Storage options of a record: a pending claim expires in KV as it lapses. */
function expiry(domain: ProjectDomain, now: number): { expireIn: number } | undefined {
  if (domain.verificationStatus === "verified") return undefined;
  return { expireIn: Math.max(1000, Date.parse(domain.createdAt) + PENDING_DOMAIN_TTL_MS - now) };
}

/**
 * Stores a new domain of a project (pending, or verified when given so). 409 when the name is
 * verified by any project or already claimed by this one; another project's pending claim
 * refuses nothing. A lapsed claim of this project is replaced.
 */
export async function createDomain(kv: Deno.Kv, domain: ProjectDomain): Promise<ProjectDomain> {
  const name = domain.domain;
  const [byName, claim, tombstone] = await kv.getMany<[string, string, NameTombstone]>([
    domainByNameKey(name),
    domainClaimKey(name, domain.projectId),
    await tombstoneKey("domain", name),
  ]);
  // A deleted project's verified domain stays reserved until the operator releases it.
  if (tombstone.value && !tombstone.value.releasedAt) throw reservedNameConflict("domain", name);
  const owner = await verifiedOwner(kv, byName.value);
  if (owner) {
    throw conflict(
      owner.projectId === domain.projectId
        ? `Domain "${name}" is already verified for this project`
        : `Domain "${name}" is verified by another project`,
    );
  }
  const now = Date.parse(domain.createdAt);
  const existing = claim.value ? (await getDomainEntry(kv, claim.value)).value : null;
  if (existing && !isDomainClaimLapsed(existing, new Date(now))) {
    throw conflict(`Domain "${name}" is already added to this project`);
  }
  const options = expiry(domain, now);
  const op = kv.atomic()
    .check(byName, claim, tombstone)
    .set(domainKey(domain.id), domain, options)
    .set(domainClaimKey(name, domain.projectId), domain.id, options)
    .set(domainByProjectKey(domain.projectId, domain.id), domain.id, options);
  stageOrder(op, "domains", domain.projectId, domainOrderParts(domain), options);
  if (existing) {
    op.delete(domainKey(existing.id)).delete(domainByProjectKey(existing.projectId, existing.id));
    unstageOrder(op, "domains", existing.projectId, domainOrderParts(existing));
  }
  if (domain.verificationStatus === "verified") {
    op.set(domainByNameKey(name), domain.id);
    if (tombstone.value) {
      op.delete(tombstone.key);
      await stageDomainTaken(kv, op, domain, tombstone.value, new Date(now));
    }
  }
  if (!(await op.commit()).ok) throw conflict(`Domain "${name}" changed meanwhile; try again`);
  return domain;
}

export async function getDomainEntry(
  kv: Deno.Kv,
  id: string,
): Promise<Deno.KvEntryMaybe<ProjectDomain>> {
  return await kv.get<ProjectDomain>(domainKey(id));
}

/** The domain that verified `name`, or null. */
export async function getDomainByName(kv: Deno.Kv, name: string): Promise<ProjectDomain | null> {
  return await verifiedOwner(kv, (await kv.get<string>(domainByNameKey(name))).value);
}

/** A project's domains, oldest first, without claims that lapsed by `now`. */
export async function listDomainsByProject(
  kv: Deno.Kv,
  projectId: string,
  now: Date,
): Promise<ProjectDomain[]> {
  const out: ProjectDomain[] = [];
  for await (const entry of kv.list<string>({ prefix: domainsByProjectPrefix(projectId) })) {
    const domain = (await getDomainEntry(kv, entry.value)).value;
    if (domain && !isDomainClaimLapsed(domain, now)) out.push(domain);
  }
  return out.sort((a, b) => compareCodePoints(a.createdAt, b.createdAt));
}

/** A domain's place in its project's list: created, then id. */
const domainOrderParts = (domain: ProjectDomain) => [domain.createdAt, domain.id];

/** One page of a project's domains, oldest first, without claims that lapsed by `now`. */
export function listDomainsPage(
  kv: Deno.Kv,
  projectId: string,
  options: { now: Date; cursor: string[] | null; limit: number },
): Promise<Page<ProjectDomain>> {
  return readOrderedPage<ProjectDomain>(kv, {
    list: "domains",
    parentId: projectId,
    recordKeys: (ids) => ids.map((id) => domainKey(id)),
    shown: (domain) => !isDomainClaimLapsed(domain, options.now),
    partsOf: domainOrderParts,
    legacy: () => listDomainsByProject(kv, projectId, options.now),
  }, options);
}

/** Saves the result of a check that did not verify; false when the record changed meanwhile. */
export async function saveDomainCheck(
  kv: Deno.Kv,
  entry: Deno.KvEntry<ProjectDomain>,
  next: ProjectDomain,
  now: Date,
): Promise<boolean> {
  const options = expiry(next, now.getTime());
  const op = kv.atomic().check(entry).set(entry.key, next, options);
  stageOrder(op, "domains", next.projectId, domainOrderParts(next), options);
  return (await op.commit()).ok;
}

/**
 * Saves `next` (verified) and makes it the owner of its name, in one atomic checked against the
 * record, the name's index and its tombstone: "taken" when another project's domain verified
 * the name first, "reserved" when a deleted project's verified domain left it reserved (a claim
 * made before that deletion cannot take it either), "changed" when the record changed
 * meanwhile. A tombstone the operator released goes with the verification.
 */
export async function saveVerifiedDomain(
  kv: Deno.Kv,
  entry: Deno.KvEntry<ProjectDomain>,
  next: ProjectDomain,
): Promise<"saved" | "taken" | "reserved" | "changed"> {
  const [byName, tombstone] = await kv.getMany<[string, NameTombstone]>([
    domainByNameKey(next.domain),
    await tombstoneKey("domain", next.domain),
  ]);
  const owner = byName.value === next.id ? null : await verifiedOwner(kv, byName.value);
  if (owner) return "taken";
  if (tombstone.value && !tombstone.value.releasedAt) return "reserved";
  const op = kv.atomic()
    .check(entry, byName, tombstone)
    .set(entry.key, next)
    .set(domainByNameKey(next.domain), next.id)
    .set(domainClaimKey(next.domain, next.projectId), next.id)
    .set(domainByProjectKey(next.projectId, next.id), next.id);
  stageOrder(op, "domains", next.projectId, domainOrderParts(next));
  if (tombstone.value) {
    op.delete(tombstone.key);
    await stageDomainTaken(kv, op, next, tombstone.value, new Date(next.updatedAt));
  }
  const res = await op.commit();
  if (res.ok) return "saved";
  const after = await kv.get<string>(domainByNameKey(next.domain));
  return after.value !== next.id && await verifiedOwner(kv, after.value) ? "taken" : "changed";
}

/** Removes a domain, and its name's index only when that index is this domain's. */
export async function deleteDomain(kv: Deno.Kv, domain: ProjectDomain): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const [byName, claim] = await kv.getMany<[string, string]>([
      domainByNameKey(domain.domain),
      domainClaimKey(domain.domain, domain.projectId),
    ]);
    const op = kv.atomic()
      .check(byName, claim)
      .delete(domainKey(domain.id))
      .delete(domainByProjectKey(domain.projectId, domain.id));
    unstageOrder(op, "domains", domain.projectId, domainOrderParts(domain));
    if (byName.value === domain.id) op.delete(byName.key);
    if (claim.value === domain.id) op.delete(claim.key);
    if ((await op.commit()).ok) return;
  }
  throw conflict(`Domain "${domain.domain}" is changing; try again`);
}
