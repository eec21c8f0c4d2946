/**
 * The due index of jobs, kept twice: by time (`jobs_due`: every scheduled or running job; what
 * readiness and the worker's sleep read) and by tenant and queue (`jobs_due_by_tenant`; a
 * job's queue is its lane when it has one, so one endpoint's or one render lane's waiting jobs
 * never hide the tenant's other work, else its class). A worker reads the front of the time
 * index; when a tenant has more due there than it may run now, those entries are parked: taken
 * out of the time index (their tenant entries stay) and the tenant and queue marked in
 * `jobs_backlog`, which every worker reads apart. However many jobs one tenant has due, the
 * front of the time index shows everybody else's.
 *
 * Invariant: a job's time entry is missing only while it is due and parked, and then its
 * tenant and queue have a backlog mark. A mark is removed only by a commit that checks it was
 * not set again since a read that found nothing due for it.
 *
 * Entries written before tenants were kept hold the job's id as their value and have no tenant
 * entry; `upgradeLegacyRefs` rewrites them when they reach the front, and claiming one writes
 * the new entries anyway.
 */
import { type Job, type JobTag, tagOf } from "../domain/jobs.ts";
import {
  jobBacklogKey,
  jobBacklogsPrefix,
  jobDueKey,
  jobKey,
  jobsDuePrefix,
  jobTenantDueKey,
  jobTenantDuePrefix,
} from "./keys.ts";

/** A due-index entry: which job, due when, and whose (null: an entry of the earlier format). */
export interface DueRef {
  id: string;
  dueAt: number;
  tag?: JobTag | null;
}

/** Mutations per parking commit (well under every KV's limit on one atomic operation). */
const PARK_CHUNK = 100;

/** The queue of a tag in the tenant index: its lane, or else its class. */
export const queueOf = (tag: JobTag): string => tag.lane ?? tag.cls;

/** Adds `job`'s due entries (both indexes) to `op`; `job.tag` says whose they are. */
export function stageDueEntries(op: Deno.AtomicOperation, job: Job & { tag: JobTag }): void {
  op.set(jobDueKey(job.dueAt, job.id), job.tag)
    .set(jobTenantDueKey(job.tag.tenant, queueOf(job.tag), job.dueAt, job.id), job.tag);
}

/** Adds the removal of `job`'s due entries, as they were written, to `op`. */
export function stageDueRemoval(op: Deno.AtomicOperation, job: Job): void {
  op.delete(jobDueKey(job.dueAt, job.id));
  if (job.tag) op.delete(jobTenantDueKey(job.tag.tenant, queueOf(job.tag), job.dueAt, job.id));
}

/** Adds the removal of the entries `ref` was read from (a stale pair) to `op`. */
export function stageRefRemoval(op: Deno.AtomicOperation, ref: DueRef): void {
  op.delete(jobDueKey(ref.dueAt, ref.id));
  if (ref.tag) op.delete(jobTenantDueKey(ref.tag.tenant, queueOf(ref.tag), ref.dueAt, ref.id));
}

function tagFrom(value: unknown): JobTag | null {
  if (typeof value !== "object" || value === null) return null;
  const tag = value as JobTag;
  return typeof tag.tenant === "string" && (tag.cls === "core" || tag.cls === "outbound")
    ? {
      tenant: tag.tenant,
      cls: tag.cls,
      lane: typeof tag.lane === "string" ? tag.lane : null,
      group: typeof tag.group === "string" ? tag.group : null,
      ...(typeof tag.destination === "string" ? { destination: tag.destination } : {}),
    }
    : null;
}

/** Up to `limit` entries of the time index due at `now` or earlier, earliest first. */
export async function listDueJobs(kv: Deno.Kv, now: number, limit: number): Promise<DueRef[]> {
  const refs: DueRef[] = [];
  const iter = kv.list<unknown>(
    { start: [...jobsDuePrefix()], end: [...jobsDuePrefix(), now + 1] },
    { limit },
  );
  for await (const entry of iter) {
    refs.push({
      dueAt: entry.key[1] as number,
      id: entry.key[2] as string,
      tag: tagFrom(entry.value),
    });
  }
  return refs;
}

/** Up to `limit` of one tenant's jobs of one queue due at `now` or earlier, earliest first. */
export async function listTenantDue(
  kv: Deno.Kv,
  queue: { tenant: string; queue: string },
  options: { now: number; limit: number },
): Promise<DueRef[]> {
  const prefix = jobTenantDuePrefix(queue.tenant, queue.queue);
  const refs: DueRef[] = [];
  const iter = kv.list<unknown>(
    { start: [...prefix], end: [...prefix, options.now + 1] },
    { limit: options.limit },
  );
  for await (const entry of iter) {
    refs.push({
      dueAt: entry.key[3] as number,
      id: entry.key[4] as string,
      tag: tagFrom(entry.value) ?? { tenant: queue.tenant, cls: "core", lane: null },
    });
  }
  return refs;
}

/** A tenant and queue whose due entries are parked, as read (its versionstamp guards removal). */
export interface Backlog {
  tenant: string;
  queue: string;
  entry: Deno.KvEntry<number>;
}

/** The parked backlogs, up to `limit`. */
export async function listBacklogs(kv: Deno.Kv, limit: number): Promise<Backlog[]> {
  const backlogs: Backlog[] = [];
  for await (const entry of kv.list<number>({ prefix: [...jobBacklogsPrefix()] }, { limit })) {
    const [, tenant, queue] = entry.key;
    if (typeof tenant !== "string" || typeof queue !== "string") continue;
    backlogs.push({ tenant, queue, entry });
  }
  return backlogs;
}

/**
 * Parks due entries of the time index (each with its tag): they leave it, their tenant entries
 * stay, and their tenant and queue are marked as having a backlog. Deleting an entry that a
 * claim moved meanwhile deletes nothing, so no commit here needs a check.
 */
export async function parkDue(kv: Deno.Kv, refs: DueRef[], now: number): Promise<void> {
  const tagged = refs.filter((ref) => ref.tag);
  for (let i = 0; i < tagged.length; i += PARK_CHUNK) {
    const chunk = tagged.slice(i, i + PARK_CHUNK);
    const op = kv.atomic();
    const marked = new Set<string>();
    for (const ref of chunk) {
      op.delete(jobDueKey(ref.dueAt, ref.id));
      const queue = queueOf(ref.tag!);
      const key = `${ref.tag!.tenant}\u0000${queue}`;
      if (marked.has(key)) continue;
      marked.add(key);
      op.set(jobBacklogKey(ref.tag!.tenant, queue), now);
    }
    await op.commit();
  }
}

/** Removes a backlog mark that is as `backlog` read it; false when it was set again since. */
export async function clearBacklog(kv: Deno.Kv, backlog: Backlog): Promise<boolean> {
  return (await kv.atomic().check(backlog.entry).delete(backlog.entry.key).commit()).ok;
}

/**
 * Gives entries of the earlier format (no tag) their tag: the job, its time entry and a tenant
 * entry are rewritten in one commit checked against the job. Returns the refs with the tags
 * now stored (entries whose job is gone or moved stay untagged; a claim removes them).
 */
export async function upgradeLegacyRefs(kv: Deno.Kv, refs: DueRef[]): Promise<DueRef[]> {
  const legacy = refs.filter((ref) => !ref.tag);
  if (legacy.length === 0) return refs;
  const tags = new Map<string, JobTag>();
  for (let i = 0; i < legacy.length; i += 10) {
    const chunk = legacy.slice(i, i + 10);
    const entries = await kv.getMany<Job[]>(chunk.map((ref) => jobKey(ref.id)));
    for (const [n, entry] of entries.entries()) {
      const job = entry.value;
      const ref = chunk[n];
      if (!job || job.state === "dead" || job.dueAt !== ref.dueAt) continue;
      const tag = job.tag ?? tagOf(job.message);
      const next = { ...job, tag };
      const op = kv.atomic().check(entry).set(entry.key, next);
      stageDueEntries(op, next);
      if ((await op.commit()).ok) tags.set(ref.id, tag);
    }
  }
  return refs.map((ref) => {
    const tag = tags.get(ref.id);
    return !ref.tag && tag ? { ...ref, tag } : ref;
  });
}

/** The earliest due time among parked backlogs (their first entries), or null. */
async function earliestParked(kv: Deno.Kv, limit: number): Promise<number | null> {
  let earliest: number | null = null;
  for (const backlog of await listBacklogs(kv, limit)) {
    const prefix = jobTenantDuePrefix(backlog.tenant, backlog.queue);
    for await (const entry of kv.list({ prefix: [...prefix] }, { limit: 1 })) {
      const dueAt = entry.key[3] as number;
      if (earliest === null || dueAt < earliest) earliest = dueAt;
    }
  }
  return earliest;
}

function earlier(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.min(a, b);
}

/**
 * When the earliest scheduled or running job is due (a running one: its lease end), parked
 * ones of the first 16 backlogs included; null when there is none. The loop asks this after
 * every look, and a few backlogs tell whether parked work is due (a look clears the marks of
 * those with nothing due).
 */
export async function nextDueAt(kv: Deno.Kv): Promise<number | null> {
  let first: number | null = null;
  for await (const entry of kv.list({ prefix: [...jobsDuePrefix()] }, { limit: 1 })) {
    first = entry.key[1] as number;
  }
  return earlier(first, await earliestParked(kv, 16));
}

/** When the job that has waited longest was due, if any is due at `now` (parked ones included). */
export async function oldestDueAt(kv: Deno.Kv, now: number): Promise<number | null> {
  const [front] = await listDueJobs(kv, now, 1);
  const parked = await earliestParked(kv, 100);
  return earlier(front?.dueAt ?? null, parked !== null && parked <= now ? parked : null);
}

/** When the earliest entry of the time index after `now` is due, or null. */
export async function nextDueAfter(kv: Deno.Kv, now: number): Promise<number | null> {
  const selector = { prefix: [...jobsDuePrefix()], start: [...jobsDuePrefix(), now + 1] };
  for await (const entry of kv.list(selector, { limit: 1 })) return entry.key[1] as number;
  return null;
}

/** Front entries read when looking for the oldest due job outside the backlogged tenants. */
const READINESS_WINDOW = 256;

/**
 * What waits in the due index at `now`: the oldest due job of the tenants without a backlog
 * (each such tenant has at most a few entries on the front, so a bounded read finds it), apart
 * from outbound ones (webhook attempts and emails wait on third parties, their hosts' pauses and
 * their turn), the oldest outbound one, and of the backlogged tenants (their jobs wait their
 * turn by design), with how many those are.
 */
export async function dueWaits(kv: Deno.Kv, now: number): Promise<{
  oldestDueAt: number | null;
  outbound: { oldestDueAt: number | null };
  backlog: { tenants: number; oldestDueAt: number | null };
}> {
  const backlogs = await listBacklogs(kv, 1000);
  const backlogged = new Set(backlogs.map((backlog) => backlog.tenant));
  let oldest: number | null = null;
  let oldestOutbound: number | null = null;
  let oldestBacklogged: number | null = null;
  for (const ref of await listDueJobs(kv, now, READINESS_WINDOW)) {
    const tenant = ref.tag?.tenant ?? "";
    if (ref.tag?.cls === "outbound") {
      oldestOutbound ??= ref.dueAt;
      continue;
    }
    if (!backlogged.has(tenant)) {
      oldest = ref.dueAt;
      break;
    }
    oldestBacklogged ??= ref.dueAt;
  }
  const parked = await earliestParked(kv, 100);
  if (parked !== null && parked <= now) oldestBacklogged = earlier(oldestBacklogged, parked);
  return {
    oldestDueAt: oldest,
    outbound: { oldestDueAt: oldestOutbound },
    backlog: { tenants: backlogged.size, oldestDueAt: oldestBacklogged },
  };
}
