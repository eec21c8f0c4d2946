/**
 * The deletion job: once a project's or an organization's grace has passed, removes every
 * key src/store/tenant_keys.ts lists for it, in atomic batches of `DELETION_BATCH` keys and at
 * most `DELETION_KEYS_PER_RUN` a run (then the job runs again: a crash resumes from what is
 * left, since every step is a delete). The log's entries of its versions are erased to their
 * leaf hash instead, first, so the log keeps its size and every proof. An organization's logo
 * is forgotten unless another organization shows the same bytes (its URL then answers 404).
 * Then the edge purges the tenant's tags, the slug's hash is kept so its routes answer 410,
 * and the blob collector (when the service has one) removes the payloads nothing references
 * any more, the logo's bytes among them.
 */
import { untracked } from "../store/public_writes.ts";
import {
  DELETION_BATCH,
  DELETION_JOB,
  DELETION_KEYS_PER_RUN,
  type DeletionMessage,
  type DeletionRecord,
} from "../domain/deletion.ts";
import { JobDeferred, type JobMessage } from "../domain/jobs.ts";
import type { StoredOrganizationProfile } from "../domain/vendor.ts";
import type { BlobStore } from "../blobs/mod.ts";
import { collectUnreferencedBlobs, requestBlobCollection } from "./blob_gc.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/log.ts";
import type { JobWorker } from "../live/worker.ts";
import {
  finishDeletion,
  getDeletion,
  markDeletionRemoved,
  markDeletionStarted,
  rememberDeletedDocument,
  rememberDeletedSlug,
} from "../store/deletions.ts";
import { organizationProfileKey } from "../store/keys.ts";
import { eraseLogEntry, getLogSize } from "../store/log.ts";
import { isRetainedKey, organizationKeys, projectKeys } from "../store/tenant_keys.ts";
import { forgetUnsharedLogo } from "../serve/logos.ts";

export interface DeletionDeps {
  kv: Deno.Kv;
  clock: Clock;
  log: Logger;
  jobs: JobWorker;
  /** Purges edge cache tags (src/edge/purge.ts). */
  purge(tags: string[]): Promise<void>;
  /** Keys removed per run at most (tests lower it); default `DELETION_KEYS_PER_RUN`. */
  keysPerRun?: number;
  /**
   * Removes the blobs nothing references any more (`collectAfterDeletion`); false when a
   * collector cycle begun after `startedAfter` has not ended yet (the job waits for it).
   */
  collectBlobs?: (startedAfter: Date) => Promise<boolean | void>;
}

/**
 * The slugs a deletion must remember, read (and kept on its record) before anything goes, and
 * the SHA-256 of the organization's logo (its profile, which names it, goes with the rest).
 */
interface SlugMemo {
  project: string[];
  organization: string[];
  /** Absent on records kept before logos were forgotten with their organization. */
  logos?: string[];
  /** Verified custom domains of the projects (reserved like slugs). */
  domains?: string[];
  /**
   * A project's own documents (by id): their public downloads answer 410 once they are gone
   * (absent on records kept before, and on an organization's, whose routes all answer 410).
   */
  documents?: string[];
}

async function domainsOf(kv: Deno.Kv, projectId: string, into: string[]) {
  for await (const entry of kv.list<string>({ prefix: ["domains_by_project", projectId] })) {
    const domain = await kv.get<{ domain: string; verificationStatus?: string }>(
      ["domains", entry.key[2] as string],
    );
    if (domain.value?.verificationStatus === "verified") into.push(domain.value.domain);
  }
}

async function slugsOf(kv: Deno.Kv, record: DeletionRecord): Promise<SlugMemo> {
  const memo: SlugMemo = { project: [], organization: [], logos: [], domains: [] };
  if (record.kind === "project") {
    const project = await kv.get<{ slug: string }>(["projects", record.targetId]);
    if (project.value) memo.project.push(project.value.slug);
    await domainsOf(kv, record.targetId, memo.domains!);
    memo.documents = [];
    for await (
      const entry of kv.list<{ id: string; projectId?: string | null }>({
        prefix: ["documents", record.organizationId],
      })
    ) {
      const document = entry.value;
      if (document?.projectId === record.targetId && typeof document.id === "string") {
        memo.documents.push(document.id);
      }
    }
    return memo;
  }
  const org = await kv.get<{ slug: string }>(["organizations", record.organizationId]);
  if (org.value) memo.organization.push(org.value.slug);
  const profile = await kv.get<StoredOrganizationProfile>(
    organizationProfileKey(record.organizationId),
  );
  if (profile.value?.logo) memo.logos!.push(profile.value.logo.sha256);
  for await (
    const entry of kv.list<string>({ prefix: ["projects_by_organization", record.organizationId] })
  ) {
    const project = await kv.get<{ slug: string }>(["projects", entry.key[2] as string]);
    if (project.value) memo.project.push(project.value.slug);
    await domainsOf(kv, entry.key[2] as string, memo.domains!);
  }
  return memo;
}

/** A deletion record as its job keeps it across runs. */
type RunningDeletion = DeletionRecord & {
  slugs?: SlugMemo;
  startedAt?: string;
  removedAt?: string;
};

/**
 * On the first run: reads the names, marks the deletion started (no undo from then on, and
 * renders in flight are fenced off) and writes the names' tombstones, before anything is
 * removed, so no tenant can take a name between its index's removal and the job's end. A
 * resumed run reads them from the record.
 */
async function start(
  kv: Deno.Kv,
  record: RunningDeletion,
  now: Date,
): Promise<{ record: RunningDeletion; slugs: SlugMemo }> {
  let current = record;
  if (!current.slugs || !current.startedAt) {
    const slugs = current.slugs ?? await slugsOf(kv, current);
    current = await markDeletionStarted(kv, current, { slugs }, now);
  }
  const slugs = current.slugs!;
  const logSize = await getLogSize(kv);
  const tombstone = { now, logSize };
  for (const slug of slugs.project) {
    await rememberDeletedSlug(kv, "project", { slug, ...tombstone });
  }
  for (const slug of slugs.organization) {
    await rememberDeletedSlug(kv, "organization", { slug, ...tombstone });
  }
  for (const slug of slugs.domains ?? []) {
    await rememberDeletedSlug(kv, "domain", { slug, ...tombstone });
  }
  for (const documentId of slugs.documents ?? []) {
    await rememberDeletedDocument(kv, documentId, now);
  }
  return { record: current, slugs };
}

/** Whether `key` is the running deletion's own (its record, job and job index entries). */
function isOwnKey(key: Deno.KvKey, record: DeletionRecord): boolean {
  const collection = String(key[0]);
  if (collection === "deletions") return key[1] === record.kind && key[2] === record.targetId;
  return collection.startsWith("jobs") && key[key.length - 1] === record.id;
}

/**
 * Collections through which the enumeration finds other keys (an index listing records, a
 * record naming its indexes), by depth: a run removes every other key before them, and the
 * deeper ones before those that lead to them, so a run that stops half way never leaves a key
 * nothing leads to any more. The project and organization records go last: the enumeration
 * starts from them.
 */
const SOURCE_TIERS: Readonly<Record<string, number>> = {
  collectors: 2,
  domains: 2,
  webhooks: 2,
  documents: 2,
  access_requests: 2,
  jobs: 2,
  collectors_by_project: 3,
  domains_by_project: 3,
  evidence_by_observation: 3,
  log_entries_by_publication: 3,
  log_name_changes: 3,
  subscriptions_by_scope: 3,
  edge_state: 3,
  memberships: 3,
  memberships_by_user: 3,
  jobs_due_by_tenant: 3,
  jobs_dead: 3,
  projects: 4,
  projects_by_organization: 5,
  organizations: 5,
};

/** Removal order: the log's entries first (erased), then derived keys, then their sources. */
function order(key: Deno.KvKey): number {
  return isRetainedKey(key) ? 0 : SOURCE_TIERS[String(key[0])] ?? 1;
}

/** Whether a listed key still holds something to remove (a log entry: not erased yet). */
function pending(key: Deno.KvKey, entry: Deno.KvEntryMaybe<unknown>): boolean {
  if (entry.versionstamp === null) return false;
  return !isRetainedKey(key) || !(entry.value as { erased?: boolean } | null)?.erased;
}

/**
 * Removes one run's worth of the target's keys (at most `keysPerRun` that exist: the listing
 * also names keys that may not); returns whether more are left for another run.
 */
async function removeBatch(
  deps: DeletionDeps,
  record: DeletionRecord,
  keysPerRun: number,
): Promise<boolean> {
  const { kv } = deps;
  const keys = record.kind === "project"
    ? projectKeys(kv, record.targetId)
    : organizationKeys(kv, record.organizationId);
  const listed: Deno.KvKey[] = [];
  for await (const key of keys) if (!isOwnKey(key, record)) listed.push(key);
  // Stable: within one rank, the enumeration's own order (records before what they name).
  const ordered = listed.map((key, i) => ({ key, i }))
    .sort((a, b) => order(a.key) - order(b.key) || a.i - b.i)
    .map(({ key }) => key);
  const chosen: Deno.KvKey[] = [];
  let more = false;
  for (let i = 0; i < ordered.length && !more; i += 10) {
    const group = ordered.slice(i, i + 10);
    const entries = await kv.getMany(group);
    for (let j = 0; j < group.length; j++) {
      if (!pending(group[j], entries[j])) continue;
      if (chosen.length === keysPerRun) {
        more = true;
        break;
      }
      chosen.push(group[j]);
    }
  }
  for (let i = 0; i < chosen.length; i += DELETION_BATCH) {
    const op = kv.atomic();
    for (const key of chosen.slice(i, i + DELETION_BATCH)) {
      if (isRetainedKey(key)) eraseLogEntry(op, key[1] as number);
      else op.delete(key);
    }
    await op.commit();
  }
  return more;
}

/** Runs one deletion job (see the module comment). */
export async function runDeletion(
  tracked: DeletionDeps,
  message: DeletionMessage,
): Promise<void> {
  // The removal writes around the commit path: a touch would stage renders that write pages of
  // the tenant being removed. `finishDeletion` renders the organization once, after a project.
  const deps = { ...tracked, kv: untracked(tracked.kv) };
  const { kv, clock, log } = deps;
  const record = await getDeletion(kv, message.target, message.targetId);
  // Undone (or done by an earlier run): nothing to do.
  if (!record || record.id !== message.deletionId) return;
  const dueAt = Date.parse(record.dueAt);
  if (clock.now().getTime() < dueAt) throw new JobDeferred(dueAt, "The grace period has not ended");
  const started = await start(kv, record, clock.now());
  const slugs = started.slugs;
  const keysPerRun = deps.keysPerRun ?? DELETION_KEYS_PER_RUN;
  if (await removeBatch(deps, record, keysPerRun)) {
    throw new JobDeferred(clock.now().getTime(), "More keys to remove");
  }
  // Once more: a job of the tenant that was running meanwhile (an email, a render begun before
  // the due time) may have written after the pass above listed its keys.
  if (await removeBatch(deps, record, keysPerRun)) {
    throw new JobDeferred(clock.now().getTime(), "More keys to remove");
  }
  // Before the record goes, so a failure here is retried by the job.
  for (const sha256 of slugs.logos ?? []) await forgetUnsharedLogo(kv, sha256);
  // The blobs only the tenant named go too before the job reports done: a collector cycle
  // begun after the removal must end. Another tenant's deletion (or the collector's job) may
  // hold the collector: the job runs again until a cycle it can count on has ended.
  const removedAt = started.record.removedAt ??
    await markDeletionRemoved(kv, started.record, clock.now());
  if (deps.collectBlobs && (await deps.collectBlobs(new Date(removedAt))) === false) {
    await new Promise((resolve) => setTimeout(resolve, COLLECTOR_WAIT_MS));
    throw new JobDeferred(clock.now().getTime(), "Waiting for the blob collector");
  }
  const now = clock.now();
  await finishDeletion(kv, record, { now });
  const tags = record.kind === "project"
    ? [`project-${record.targetId}`]
    : [`org-${record.organizationId}`];
  try {
    await deps.purge(tags);
  } catch (error) {
    // The pages were taken out of the stored layer when the deletion was scheduled; a failed
    // purge leaves the edge's copy to its own lifetime.
    log.warn("The edge purge after a deletion failed", {
      tags: tags.join(" "),
      error: String(error),
    });
  }
  log.info("Deleted", { kind: record.kind, id: record.targetId });
}

/** Steps of the blob collector a deletion runs itself per run of its job. */
const COLLECTOR_STEPS = 1_000;
/** How long a deletion waits for a busy blob collector before its job runs again. */
const COLLECTOR_WAIT_MS = 200;

/**
 * Runs the blob collector after a deletion's records are gone: a cycle begun after
 * `startedAfter` (so none of the removed references is still marked). True once such a cycle
 * has ended; else false, and the collector's job is asked for (it names no organization: the
 * one it would name is gone) while the deletion's job runs again.
 */
export async function collectAfterDeletion(
  deps: { kv: Deno.Kv; blobs: BlobStore; clock: Clock },
  startedAfter: Date,
): Promise<boolean> {
  const result = await collectUnreferencedBlobs(deps, { startedAfter, maxSteps: COLLECTOR_STEPS });
  if (!result.complete) {
    await requestBlobCollection(deps.kv, { organizationId: "", now: deps.clock.now() });
  }
  return result.complete;
}

/** Registers the deletion job's handler. */
export function registerDeletion(deps: DeletionDeps): void {
  deps.jobs.on(
    DELETION_JOB,
    (message: JobMessage) => runDeletion(deps, message as DeletionMessage),
  );
}
