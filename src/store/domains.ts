/**
 * Custom domains of projects. A domain name is unique across all projects
 * (its index is guarded with `versionstamp: null`).
 */
import type { ProjectDomain } from "../domain/publish.ts";
import { conflict } from "../domain/errors.ts";
import { domainByNameKey, domainByProjectKey, domainKey, domainsByProjectPrefix } from "./keys.ts";
import { compareCodePoints } from "../lib/order.ts";

export async function createDomain(kv: Deno.Kv, domain: ProjectDomain): Promise<ProjectDomain> {
  const res = await kv.atomic()
    .check({ key: domainByNameKey(domain.domain), versionstamp: null })
    .set(domainKey(domain.id), domain)
    .set(domainByNameKey(domain.domain), domain.id)
    .set(domainByProjectKey(domain.projectId, domain.id), domain.id)
    .commit();
  if (!res.ok) throw conflict(`Domain "${domain.domain}" is already assigned to a project`);
  return domain;
}

export async function getDomainEntry(
  kv: Deno.Kv,
  id: string,
): Promise<Deno.KvEntryMaybe<ProjectDomain>> {
  return await kv.get<ProjectDomain>(domainKey(id));
}

export async function getDomainByName(kv: Deno.Kv, name: string): Promise<ProjectDomain | null> {
  const index = await kv.get<string>(domainByNameKey(name));
  return index.value ? (await getDomainEntry(kv, index.value)).value : null;
}

export async function listDomainsByProject(
  kv: Deno.Kv,
  projectId: string,
): Promise<ProjectDomain[]> {
  const out: ProjectDomain[] = [];
  for await (const entry of kv.list<string>({ prefix: domainsByProjectPrefix(projectId) })) {
    const domain = (await getDomainEntry(kv, entry.value)).value;
    if (domain) out.push(domain);
  }
  return out.sort((a, b) => compareCodePoints(a.createdAt, b.createdAt));
}

/** Saves a checked domain record; false when it changed meanwhile. */
export async function updateDomain(
  kv: Deno.Kv,
  entry: Deno.KvEntry<ProjectDomain>,
  next: ProjectDomain,
): Promise<boolean> {
  return (await kv.atomic().check(entry).set(entry.key, next).commit()).ok;
}

export async function deleteDomain(kv: Deno.Kv, domain: ProjectDomain): Promise<void> {
  await kv.atomic()
    .delete(domainKey(domain.id))
    .delete(domainByNameKey(domain.domain))
    .delete(domainByProjectKey(domain.projectId, domain.id))
    .commit();
}
