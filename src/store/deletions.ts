/**
 * Scheduled deletions of projects and organizations: one record per target, written with the
 * job that carries it out after the grace (same id) and the edge touch that takes the
 * target's public pages away at once; undone by removing both. What a finished deletion
 * leaves is the SHA-256 of the slug (so its routes answer 410 Gone) and the log's hashes.
 */
import {
  DELETION_GRACE_MS,
  DELETION_JOB,
  type DeletionKind,
  type DeletionMessage,
  type DeletionRecord,
} from "../domain/deletion.ts";
import { conflict } from "../domain/errors.ts";
import type { Job } from "../domain/jobs.ts";
import { sha256Hex } from "../lib/hash.ts";
import { timeOrderedUuid } from "../lib/ids.ts";
import { touchOrganization, touchProject } from "./edge_pages.ts";
import { stageDueRemoval } from "./job_index.ts";
import { stageJob } from "./jobs.ts";
import { deletedSlugKey, deletionKey, jobKey } from "./keys.ts";

/** The scheduled deletion of a project or an organization, or null. */
export async function getDeletion(
  kv: Deno.Kv,
  kind: DeletionKind,
  id: string,
): Promise<DeletionRecord | null> {
  return (await kv.get<DeletionRecord>(deletionKey(kind, id))).value;
}

/**
 * The deletion that hides a project now: its own, or its organization's (null when neither is
 * scheduled). One read of two keys.
 */
export async function pendingDeletionOf(
  kv: Deno.Kv,
  target: { projectId?: string; organizationId: string },
): Promise<DeletionRecord | null> {
  const keys = [deletionKey("organization", target.organizationId)];
  if (target.projectId) keys.push(deletionKey("project", target.projectId));
  const entries = await kv.getMany<DeletionRecord[]>(keys);
  return entries.find((e) => e.value)?.value ?? null;
}

/** Whether a slug of `kind` belonged to something deleted. */
export async function wasDeleted(kv: Deno.Kv, kind: DeletionKind, slug: string): Promise<boolean> {
  const key = deletedSlugKey(kind, await sha256Hex(slug));
  return (await kv.get(key)).versionstamp !== null;
}

/**
 * Schedules the deletion of a project or an organization `DELETION_GRACE_MS` from now, with
 * its job, and touches the edge so its stored pages are rendered again (as 410: gone).
 * Conflicts when one is already scheduled.
 */
export async function scheduleDeletion(
  kv: Deno.Kv,
  target: { kind: DeletionKind; targetId: string; organizationId: string; userId: string },
  now: Date,
): Promise<DeletionRecord> {
  const key = deletionKey(target.kind, target.targetId);
  const record: DeletionRecord = {
    id: timeOrderedUuid(now),
    kind: target.kind,
    targetId: target.targetId,
    organizationId: target.organizationId,
    requestedBy: target.userId,
    requestedAt: now.toISOString(),
    dueAt: new Date(now.getTime() + DELETION_GRACE_MS).toISOString(),
  };
  const message: DeletionMessage = {
    kind: DELETION_JOB,
    deletionId: record.id,
    target: record.kind,
    targetId: record.targetId,
    organizationId: record.organizationId,
  };
  for (let attempt = 0; attempt < 5; attempt++) {
    if ((await kv.get(key)).versionstamp !== null) break;
    const op = kv.atomic().check({ key, versionstamp: null }).set(key, record);
    stageJob(op, message, { now, dueAt: Date.parse(record.dueAt), id: record.id });
    touch(op, record, now);
    // Hidden from search at once: search skips what a scheduled deletion names (its index
    // entries stay, for an undo, and go with the deletion job). Removing them here would put
    // every project's entries in this one commit, past KV's limits for a large organization.
    if ((await op.commit()).ok) return record;
  }
  throw conflict(`This ${target.kind}'s deletion is already scheduled`);
}

function touch(op: Deno.AtomicOperation, record: DeletionRecord, now: Date) {
  if (record.kind === "project") {
    touchProject(op, { organizationId: record.organizationId, projectId: record.targetId }, now);
  }
  touchOrganization(op, record.organizationId, now);
}

/**
 * Undoes a scheduled deletion: its record and its job go, and the edge renders the target's
 * pages again. False when none was scheduled (or it has started: see `startDeletion`).
 */
export async function cancelDeletion(
  kv: Deno.Kv,
  kind: DeletionKind,
  targetId: string,
  now: Date,
): Promise<boolean> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const entry = await kv.get<DeletionRecord>(deletionKey(kind, targetId));
    if (!entry.value) return false;
    const job = await kv.get<Job>(jobKey(entry.value.id));
    if (job.value?.state === "running") return false;
    const op = kv.atomic().check(entry, job).delete(entry.key);
    if (job.value) {
      op.delete(job.key);
      stageDueRemoval(op, job.value);
    }
    touch(op, entry.value, now);
    if ((await op.commit()).ok) return true;
  }
  throw conflict("The deletion changed while it was being undone; please retry");
}

/** Keeps the hash of a deleted slug (its routes answer 410 from then on). */
export async function rememberDeletedSlug(
  kv: Deno.Kv,
  kind: DeletionKind,
  options: { slug: string; now: Date },
): Promise<void> {
  await kv.set(deletedSlugKey(kind, await sha256Hex(options.slug)), {
    deletedAt: options.now.toISOString(),
  });
}

/**
 * Ends a deletion whose data is gone: its record goes, the slug's hash stays (410 from then
 * on), and the organization's pages render again (its trust center without the project).
 */
export async function finishDeletion(
  kv: Deno.Kv,
  record: DeletionRecord,
  options: { slug: string | null; now: Date },
): Promise<void> {
  const op = kv.atomic().delete(deletionKey(record.kind, record.targetId));
  if (options.slug) {
    op.set(deletedSlugKey(record.kind, await sha256Hex(options.slug)), {
      deletedAt: options.now.toISOString(),
    });
  }
  if (record.kind === "project") touchOrganization(op, record.organizationId, options.now);
  await op.commit();
}
