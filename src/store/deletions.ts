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
import { getBlobGcState, getBlobGcSummary } from "./blob_gc.ts";
import { touchOrganization } from "./edge_pages.ts";
import { stageDueRemoval } from "./job_index.ts";
import { stageJob } from "./jobs.ts";
import { deletedSlugKey, deletionKey, jobKey } from "./keys.ts";
import { addNameChangeAppend } from "./log.ts";

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

/** Keys read per `getMany` (denokv's limit of read ranges per request). */
const READ_BATCH = 10;

/**
 * Which of `projectIds` have their own deletion scheduled: the organization's answers, its
 * questionnaire matching and its certification and document lists stop citing them at once,
 * while the rest of the organization keeps answering (an organization's own deletion withdraws
 * all of it instead). One read of ten deletion keys at a time.
 */
export async function withdrawnProjectIds(
  kv: Deno.Kv,
  projectIds: readonly string[],
): Promise<Set<string>> {
  const withdrawn = new Set<string>();
  for (let i = 0; i < projectIds.length; i += READ_BATCH) {
    const batch = projectIds.slice(i, i + READ_BATCH);
    const entries = await kv.getMany(batch.map((id) => deletionKey("project", id)));
    entries.forEach((entry, j) => {
      if (entry.versionstamp !== null) withdrawn.add(batch[j]);
    });
  }
  return withdrawn;
}

/**
 * When each of `projectIds` with its own deletion scheduled is due, by project id (the lists
 * that name projects mark them). One read of ten deletion keys at a time.
 */
export async function projectDeletionsDue(
  kv: Deno.Kv,
  projectIds: readonly string[],
): Promise<Record<string, string>> {
  const due: Record<string, string> = {};
  for (let i = 0; i < projectIds.length; i += READ_BATCH) {
    const batch = projectIds.slice(i, i + READ_BATCH);
    const entries = await kv.getMany<DeletionRecord[]>(
      batch.map((id) => deletionKey("project", id)),
    );
    entries.forEach((entry, j) => {
      if (entry.value) due[batch[j]] = entry.value.dueAt;
    });
  }
  return due;
}

/** Whether a slug of `kind` belonged to something deleted. */
export async function wasDeleted(kv: Deno.Kv, kind: DeletionKind, slug: string): Promise<boolean> {
  const key = deletedSlugKey(kind, await sha256Hex(slug));
  return (await kv.get(key)).versionstamp !== null;
}

/** What a name can be reserved as: a project's or an organization's slug, a custom domain. */
export type ReservedNameKind = DeletionKind | "domain";

/**
 * The tombstone of a deleted project's or organization's slug (or a verified custom domain),
 * at `["deleted_slugs", kind, sha256(name)]`: the name itself is not kept, only its hash, when
 * it was left and the publication log's size then (its last entry is `logSize - 1`: a buyer's
 * checkpoint of that size or smaller predates any later holder of the name). It reserves the
 * name against every tenant until an operator releases it (`deno task names release`).
 */
export interface NameTombstone {
  deletedAt: string;
  /** The log's size when the name was left (null on tombstones kept before it was recorded). */
  logSize?: number | null;
  /**
   * When the operator released the name: from then on any tenant may take it, and the commit
   * that does removes the tombstone (a project's slug also appends the change of publisher to
   * the log). Until then its routes still answer 410.
   */
  releasedAt?: string;
}

/** The tombstone key of `name` as a `kind`. */
export async function tombstoneKey(kind: ReservedNameKind, name: string): Promise<Deno.KvKey> {
  return deletedSlugKey(kind, await sha256Hex(name));
}

/** The tombstone of `name`, or null when the name is free of one. */
export async function getTombstone(
  kv: Deno.Kv,
  kind: ReservedNameKind,
  name: string,
): Promise<NameTombstone | null> {
  return (await kv.get<NameTombstone>(await tombstoneKey(kind, name))).value;
}

/** The 409 a reserved name answers: it belonged to something deleted. */
export function reservedNameConflict(kind: ReservedNameKind, name: string) {
  const what = kind === "domain" ? "custom domain" : `${kind} slug`;
  const owner = kind === "domain" ? "a deleted project" : `a deleted ${kind}`;
  return conflict(
    `The ${what} "${name}" belonged to ${owner} and is reserved: buyers who bookmarked or ` +
      "pinned it must not read another publisher under it. Choose another name.",
  );
}

/**
 * Refuses (409) a name that is reserved by a tombstone, and adds to `op` the check that the
 * tombstone is as read when it commits (a deletion writes it before freeing the name's index).
 * A tombstone the operator released is removed by `op`, and returned: the name had another
 * holder, which a project's slug records in the log (`addPublisherChangeAppend`).
 */
export async function stageNameNotReserved(
  kv: Deno.Kv,
  op: Deno.AtomicOperation,
  kind: ReservedNameKind,
  name: string,
): Promise<NameTombstone | null> {
  const entry = await kv.get<NameTombstone>(await tombstoneKey(kind, name));
  if (entry.value && !entry.value.releasedAt) throw reservedNameConflict(kind, name);
  op.check(entry);
  if (!entry.value) return null;
  op.delete(entry.key);
  return entry.value;
}

/**
 * Adds to `op` the log entry recording that a released organization slug or custom domain
 * (its tombstone `released`, which `stageNameNotReserved` returned and removes) passes to a
 * new holder: the organization `holder.organization` or, for a domain, its project
 * `holder.projectId`. The same record as a project slug's change of publisher
 * (`addPublisherChangeAppend`): a buyer sees that the name is another publisher's since it.
 */
export async function stageNameTaken(
  kv: Deno.Kv,
  op: Deno.AtomicOperation,
  change: {
    kind: "organization" | "domain";
    name: string;
    released: NameTombstone;
    organization: { id: string; slug: string };
    projectId: string | null;
    now: Date;
  },
): Promise<void> {
  await addNameChangeAppend(kv, op, {
    kind: change.kind,
    slug: change.name,
    previousLogSize: change.released.logSize ?? null,
    projectId: change.projectId,
    organizationSlug: change.organization.slug,
    organizationId: change.organization.id,
    takenAt: change.now.toISOString(),
  }, change.released.releasedAt ?? null);
}

/**
 * Marks the tombstone of `name` released (the operator's release): from then on any tenant
 * may take the name, and the first to do so removes it. Returns whether there was a
 * reservation to release (false for none, or one already released).
 */
export async function releaseName(
  kv: Deno.Kv,
  kind: ReservedNameKind,
  name: string,
  now: Date,
): Promise<boolean> {
  const entry = await kv.get<NameTombstone>(await tombstoneKey(kind, name));
  if (!entry.value || entry.value.releasedAt) return false;
  const released: NameTombstone = { ...entry.value, releasedAt: now.toISOString() };
  return (await kv.atomic().check(entry).set(entry.key, released).commit()).ok;
}

/**
 * The entries a render's writes of a tenant's pages must check (one consistent read): the
 * organization's record and its deletion key, and the project's too for a project's pages.
 * Null when the tenant is being deleted (its record gone, its deletion due or started): then
 * nothing may be written for it. A deletion job starts by rewriting its record
 * (`markDeletionStarted`), so a render that read it before fails every later check.
 */
export async function renderFence(
  kv: Deno.Kv,
  target: { organizationId: string; projectId: string | null },
  now: Date,
): Promise<Deno.KvEntryMaybe<unknown>[] | null> {
  const keys: Deno.KvKey[] = [
    ["organizations", target.organizationId],
    deletionKey("organization", target.organizationId),
  ];
  if (target.projectId) {
    keys.push(["projects", target.projectId], deletionKey("project", target.projectId));
  }
  const entries = await kv.getMany<unknown[]>(keys);
  for (let i = 0; i < entries.length; i += 2) {
    if (entries[i].versionstamp === null) return null;
    const deletion = entries[i + 1].value as (DeletionRecord & { startedAt?: string }) | null;
    if (deletion && (deletion.startedAt || Date.parse(deletion.dueAt) <= now.getTime())) {
      return null;
    }
  }
  // The records themselves change with ordinary edits; only the deletion keys are checked.
  return entries.filter((_, i) => i % 2 === 1);
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
    // Hidden from search at once: search skips what a scheduled deletion names (its index
    // entries stay, for an undo, and go with the deletion job). Removing them here would put
    // every project's entries in this one commit, past KV's limits for a large organization.
    if ((await op.commit()).ok) return record;
  }
  throw conflict(`This ${target.kind}'s deletion is already scheduled`);
}

/**
 * Undoes a scheduled deletion: its record and its job go, and the edge renders the target's
 * pages again. False when none was scheduled, or once its job has started (the record says
 * so from its first run on: data is being removed).
 */
export async function cancelDeletion(
  kv: Deno.Kv,
  kind: DeletionKind,
  targetId: string,
): Promise<boolean> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const entry = await kv.get<DeletionRecord>(deletionKey(kind, targetId));
    if (!entry.value || (entry.value as { startedAt?: string }).startedAt) return false;
    const job = await kv.get<Job>(jobKey(entry.value.id));
    if (job.value?.state === "running") return false;
    const op = kv.atomic().check(entry, job).delete(entry.key);
    if (job.value) {
      op.delete(job.key);
      stageDueRemoval(op, job.value);
    }
    if ((await op.commit()).ok) return true;
  }
  throw conflict("The deletion changed while it was being undone; please retry");
}

/**
 * Keeps the tombstone of a deleted name (its routes answer 410, and no tenant may take it,
 * until an operator releases it). An existing tombstone is kept as it was.
 */
export async function rememberDeletedSlug(
  kv: Deno.Kv,
  kind: ReservedNameKind,
  options: { slug: string; now: Date; logSize: number | null },
): Promise<void> {
  const key = await tombstoneKey(kind, options.slug);
  const tombstone: NameTombstone = {
    deletedAt: options.now.toISOString(),
    logSize: options.logSize,
  };
  await kv.atomic().check({ key, versionstamp: null }).set(key, tombstone).commit();
}

/**
 * Remembers that the public document `documentId` went with its deleted project, as the
 * SHA-256 of its id beside the names' tombstones (`["deleted_slugs", "document", …]`): its
 * download URL answers 410 like the project's other routes, not 404. Document ids are random
 * and never given again, so nothing is reserved and there is nothing to release.
 */
export async function rememberDeletedDocument(
  kv: Deno.Kv,
  documentId: string,
  now: Date,
): Promise<void> {
  const key = deletedSlugKey("document", await sha256Hex(documentId));
  await kv.atomic().check({ key, versionstamp: null }).set(key, { deletedAt: now.toISOString() })
    .commit();
}

/** Whether the document `documentId` went with a deleted project (`rememberDeletedDocument`). */
export async function wasDocumentDeleted(kv: Deno.Kv, documentId: string): Promise<boolean> {
  const key = deletedSlugKey("document", await sha256Hex(documentId));
  return (await kv.get(key)).versionstamp !== null;
}

/**
 * Marks a deletion as started, in one commit with its memo (what its later runs need): from
 * then on it cannot be undone, and a render that read the record before fails its checks
 * (`renderFence`). Returns the record as stored.
 */
export async function markDeletionStarted<M extends Record<string, unknown>>(
  kv: Deno.Kv,
  record: DeletionRecord,
  memo: M,
  now: Date,
): Promise<DeletionRecord & M & { startedAt: string }> {
  const started = { ...record, ...memo, startedAt: now.toISOString() };
  await kv.set(deletionKey(record.kind, record.targetId), started);
  return started;
}

/**
 * Keeps on a started deletion when its data was removed: the instant a blob collector cycle
 * must begin at or after to see none of its references, later than the start of any cycle
 * under way or ended (which may have marked them; cycles begin strictly after each other).
 */
export async function markDeletionRemoved(
  kv: Deno.Kv,
  record: DeletionRecord,
  now: Date,
): Promise<string> {
  const [state, last] = await Promise.all([getBlobGcState(kv), getBlobGcSummary(kv)]);
  const removedAt = new Date(Math.max(
    now.getTime(),
    state.value ? state.value.startedAt + 1 : -Infinity,
    last ? Date.parse(last.startedAt) + 1 : -Infinity,
  )).toISOString();
  await kv.set(deletionKey(record.kind, record.targetId), { ...record, removedAt });
  return removedAt;
}

/**
 * Ends a deletion whose data is gone: its record goes (the tombstones were written when it
 * started), and the organization's pages render again (its trust center without the project).
 * The deletion job writes around the commit path (src/store/public_writes.ts), so this is the
 * one touch made by hand: after a project's removal, never for a removed organization.
 */
export async function finishDeletion(
  kv: Deno.Kv,
  record: DeletionRecord,
  options: { now: Date },
): Promise<void> {
  const op = kv.atomic().delete(deletionKey(record.kind, record.targetId));
  if (record.kind === "project") touchOrganization(op, record.organizationId, options.now);
  await op.commit();
}
