/**
 * The storage report of an organization (`GET /organizations/{id}/usage`): per project, its
 * evidence records, the bytes of the blobs its records and versions name, an estimate of its
 * KV bytes, and what pruning would remove now. It reads every record and version of the
 * organization's projects (and stats each distinct blob), so it costs in their number; it is
 * an owner's occasional view, not a hot read.
 */
import type { ProjectUsage, UsageResponse } from "../domain/retention.ts";
import { listProjectsByOrganization } from "../store/projects.ts";
import { getDeletion } from "../store/deletions.ts";
import { measureProjectStorage } from "../store/retention.ts";
import { effectiveRetention, pruneProject, type RetentionDeps, STREAMS } from "./retention.ts";

/** Blob stats sent at once. */
const STAT_CONCURRENCY = 16;

async function blobBytes(deps: RetentionDeps, keys: Set<string>): Promise<number> {
  const all = [...keys];
  let total = 0;
  for (let i = 0; i < all.length; i += STAT_CONCURRENCY) {
    const infos = await Promise.all(
      all.slice(i, i + STAT_CONCURRENCY).map((k) => deps.blobs.stat(k)),
    );
    for (const info of infos) total += info?.size ?? 0;
  }
  return total;
}

/** The usage report of one organization's projects, in the order they are listed. */
export async function organizationUsage(
  deps: RetentionDeps,
  organizationId: string,
): Promise<UsageResponse> {
  const measuredAt = deps.clock.now().toISOString();
  const projects: ProjectUsage[] = [];
  for (const project of await listProjectsByOrganization(deps.kv, organizationId)) {
    const storage = await measureProjectStorage(deps.kv, project.id, STREAMS);
    const [bytes, retention, next, deletion] = await Promise.all([
      blobBytes(deps, storage.blobKeys),
      effectiveRetention(deps.kv, deps.config, project),
      pruneProject(deps, project, { dryRun: true }),
      getDeletion(deps.kv, "project", project.id),
    ]);
    projects.push({
      projectId: project.id,
      slug: project.slug,
      name: project.name,
      evidenceRecords: storage.evidenceRecords,
      blobBytes: bytes,
      kvBytes: storage.kvBytes,
      retention,
      nextPrune: next.pruned,
      deletionDueAt: deletion?.dueAt ?? null,
    });
  }
  return { measuredAt, projects };
}
