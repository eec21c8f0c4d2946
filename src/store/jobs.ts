/**
 * The job store: each job is a record plus one entry in a due-time index, written with the
 * change that causes it (an outbox: `stageJob` adds both to that change's atomic operation).
 * A worker claims a due job by an atomic check of its versionstamp that moves its index entry
 * to the end of a lease, so a crashed worker's job becomes due again by itself; it then ends
 * the job (deleted, rescheduled with backoff, or dead-lettered) in one more atomic commit.
 *
 * Only get, list and atomic check/set/delete are used, so this runs on every Deno KV: local
 * SQLite, Deno Deploy's database and KV Connect, none of which needs `enqueue`. The due index
 * (by time, and by tenant for fairness) is src/store/job_index.ts.
 */
import {
  backoffMs,
  DEFAULT_MAX_ATTEMPTS,
  type Job,
  type JobMessage,
  MAX_JOB_ERROR_CHARS,
  MAX_JOB_ERRORS,
  tagOf,
} from "../domain/jobs.ts";
import { timeOrderedUuid } from "../lib/ids.ts";
import { type DueRef, stageDueEntries, stageDueRemoval, stageRefRemoval } from "./job_index.ts";
import { jobDeadKey, jobKey, jobsDeadPrefix } from "./keys.ts";

export { type DueRef, listDueJobs, nextDueAt } from "./job_index.ts";

/** Commits tried when a job changed between a read and the commit that follows it. */
const MAX_TRIES = 10;

type StagedListener = (dueAt: number) => void;
const stagedListeners = new Set<StagedListener>();
const stagedOps = new WeakMap<Deno.AtomicOperation, number>();

/**
 * Calls `listener` with the earliest due time of the jobs an operation staged, once that
 * operation has committed in this process: a worker here wakes for work this instance made.
 * Returns the function that removes the listener.
 */
export function onJobsCommitted(listener: StagedListener): () => void {
  stagedListeners.add(listener);
  return () => stagedListeners.delete(listener);
}

/** Makes `op` tell the listeners about `dueAt` once it commits. */
function announceOnCommit(op: Deno.AtomicOperation, dueAt: number): void {
  const earlier = stagedOps.get(op);
  stagedOps.set(op, Math.min(earlier ?? Infinity, dueAt));
  if (earlier !== undefined) return;
  const commit = op.commit.bind(op);
  op.commit = async () => {
    const result = await commit();
    if (result.ok) {
      const earliest = stagedOps.get(op)!;
      for (const listener of stagedListeners) listener(earliest);
    }
    return result;
  };
}

/** A new scheduled job. */
export function newJob(
  message: JobMessage,
  options: { now: Date; dueAt?: number; id?: string; maxAttempts?: number },
): Job {
  return {
    id: options.id ?? timeOrderedUuid(options.now),
    kind: message.kind,
    message,
    state: "scheduled",
    dueAt: options.dueAt ?? options.now.getTime(),
    attempt: 0,
    maxAttempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    errors: [],
    createdAt: options.now.toISOString(),
    lease: null,
    rerunAt: null,
    deadAt: null,
    tag: tagOf(message),
  };
}

/**
 * Adds a job to `op`, so it exists only if (and when) `op` commits: the outbox of the change
 * `op` makes. Due at `dueAt` (epoch ms), or now. A job given its `id` is checked not to exist
 * yet; a new id (time-ordered, 74 random bits) is not: that check would only spend one of the
 * commit's checks (denokv allows 10) on a collision that does not happen.
 */
export function stageJob(
  op: Deno.AtomicOperation,
  message: JobMessage,
  options: { now: Date; dueAt?: number; id?: string },
): Job {
  const job = { ...newJob(message, options), tag: tagOf(message) };
  if (options.id !== undefined) op.check({ key: jobKey(job.id), versionstamp: null });
  op.set(jobKey(job.id), job);
  stageDueEntries(op, job);
  announceOnCommit(op, job.dueAt);
  return job;
}

/** Adds a job in a commit of its own; returns it. */
export async function insertJob(
  kv: Deno.Kv,
  message: JobMessage,
  options: { now: Date; dueAt?: number },
): Promise<Job> {
  const op = kv.atomic();
  const job = stageJob(op, message, options);
  if (!(await op.commit()).ok) throw new Error("Could not store the job");
  return job;
}

/**
 * Adds to `op` the replacement of a job read as `entry` by `next`, index entries included (a
 * job of the earlier format gets its tag and tenant entry here).
 */
function stageReplace(op: Deno.AtomicOperation, entry: Deno.KvEntry<Job>, next: Job | null) {
  const current = entry.value;
  op.check(entry);
  if (current.state === "dead") op.delete(jobDeadKey(Date.parse(current.deadAt!), current.id));
  else stageDueRemoval(op, current);
  if (!next) return op.delete(entry.key);
  const tagged = { ...next, tag: tagOf(next.message) };
  op.set(entry.key, tagged);
  if (next.state === "dead") op.set(jobDeadKey(Date.parse(next.deadAt!), next.id), next.id);
  else stageDueEntries(op, tagged);
  if (next.state === "scheduled") announceOnCommit(op, next.dueAt);
  return op;
}

/**
 * Ensures the unique job `id` runs no later than `dueAt`: creates it, moves it earlier, or,
 * while it runs, asks for one more run at `dueAt` once this one ends (work that arrived during
 * a run is not lost). One job per id: a project's recomputes are one job.
 */
export async function scheduleUniqueJob(
  kv: Deno.Kv,
  id: string,
  options: { message: JobMessage; dueAt: number; now: Date },
): Promise<void> {
  for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
    const entry = await kv.get<Job>(jobKey(id));
    const job = entry.value;
    const op = kv.atomic();
    if (!job) {
      // stageJob checks that no job has this id yet.
      stageJob(op, options.message, { now: options.now, dueAt: options.dueAt, id });
    } else if (job.state === "running") {
      if (job.rerunAt !== null && job.rerunAt <= options.dueAt) return;
      // The message stays as its entries were written; the next run's replace updates both.
      op.check(entry).set(entry.key, { ...job, rerunAt: options.dueAt });
    } else if (job.state === "scheduled") {
      if (job.dueAt <= options.dueAt) return;
      stageReplace(op, entry as Deno.KvEntry<Job>, {
        ...job,
        message: options.message,
        dueAt: options.dueAt,
      });
    } else {
      // A dead unique job is revived: new work is a new chance, with a fresh count.
      stageReplace(op, entry as Deno.KvEntry<Job>, {
        ...job,
        message: options.message,
        state: "scheduled",
        dueAt: options.dueAt,
        attempt: 0,
        deadAt: null,
      });
    }
    if ((await op.commit()).ok) return;
  }
  throw new Error(`Could not schedule job "${id}": it kept changing`);
}

/** A claim on a running job: its id and the lease token that proves the claim. */
export interface JobClaim {
  job: Job;
  token: string;
  /**
   * The job's record as this claim last wrote it: the next change commits against it without
   * reading the job first (its check fails if anything changed it since, and then the job is
   * read). Absent: read first.
   */
  stored?: Deno.KvEntry<Job>;
}

/**
 * Stages into `op` the claim of the job read as `entry` for `ref`: it becomes `running` under a
 * new lease that ends `leaseMs` from `now` (its index entries move there), with one more attempt
 * counted. "stale" when the entries at `ref.dueAt` are not the job's own (another worker moved
 * it first, it is gone or dead, or a hand-edited database left them); "early" when it is not due
 * yet. Nothing is staged then.
 */
function stageClaim(
  op: Deno.AtomicOperation,
  entry: Deno.KvEntryMaybe<Job>,
  ref: DueRef,
  options: { now: number; leaseMs: number; owner: string },
): JobClaim | "stale" | "early" {
  const job = entry.value;
  if (!job || job.state === "dead" || job.dueAt !== ref.dueAt) return "stale";
  if (job.dueAt > options.now) return "early";
  const token = crypto.randomUUID();
  const next: Job = {
    ...job,
    state: "running",
    dueAt: options.now + options.leaseMs,
    attempt: job.attempt + 1,
    lease: { token, owner: options.owner },
    tag: tagOf(job.message),
  };
  stageReplace(op, entry as Deno.KvEntry<Job>, next);
  return { job: next, token };
}

/** Records on `claim` the record its committed claim wrote (see `JobClaim.stored`). */
function claimed(claim: JobClaim, entry: Deno.KvEntryMaybe<Job>, versionstamp: string): JobClaim {
  claim.stored = { key: entry.key, value: claim.job, versionstamp };
  return claim;
}

/**
 * Claims a due job (see `stageClaim`). Null when another worker took it first or it is no
 * longer due; stale entries at `ref.dueAt` are deleted (safe: they are not the job's own).
 */
export async function claimJob(
  kv: Deno.Kv,
  ref: DueRef,
  options: { now: number; leaseMs: number; owner: string },
): Promise<JobClaim | null> {
  const entry = await kv.get<Job>(jobKey(ref.id));
  const op = kv.atomic();
  const claim = stageClaim(op, entry, ref, options);
  if (claim === "stale") {
    const removal = kv.atomic().check(entry);
    stageRefRemoval(removal, ref);
    await removal.commit();
    return null;
  }
  if (claim === "early") return null;
  const result = await op.commit();
  return result.ok ? claimed(claim, entry, result.versionstamp) : null;
}

/** Jobs claimed (or ended) in one commit at most (one check each: denokv allows 10). */
const CLAIM_BATCH = 10;

/**
 * Claims several due jobs as `claimJob` claims one, with one read and one commit per
 * CLAIM_BATCH of them: a look's picks are claimed together. When the commit fails (another
 * worker took one of them, or one changed), each is claimed on its own instead; entries that
 * are not their job's own are removed as `claimJob` removes them. Results are in `refs`' order.
 */
export async function claimJobs(
  kv: Deno.Kv,
  refs: readonly DueRef[],
  options: { now: number; leaseMs: number; owner: string },
): Promise<Array<JobClaim | null>> {
  const claims: Array<JobClaim | null> = [];
  for (let i = 0; i < refs.length; i += CLAIM_BATCH) {
    const chunk = refs.slice(i, i + CLAIM_BATCH);
    if (chunk.length === 1) {
      claims.push(await claimJob(kv, chunk[0], options));
      continue;
    }
    const entries = await kv.getMany<Job[]>(chunk.map((ref) => jobKey(ref.id)));
    const op = kv.atomic();
    const results: Array<JobClaim | null> = chunk.map(() => null);
    const staged: Array<{ index: number; claim: JobClaim }> = [];
    const alone: number[] = [];
    chunk.forEach((ref, index) => {
      const claim = stageClaim(op, entries[index], ref, options);
      if (claim === "stale") alone.push(index);
      else if (claim !== "early") staged.push({ index, claim });
    });
    if (staged.length > 0) {
      const result = await op.commit();
      for (const { index, claim } of staged) {
        if (result.ok) results[index] = claimed(claim, entries[index], result.versionstamp);
        else alone.push(index);
      }
    }
    // Stale entries, and every job of a commit that failed: one by one, read again.
    for (const index of alone.sort((a, b) => a - b)) {
      results[index] = await claimJob(kv, chunk[index], options);
    }
    claims.push(...results);
  }
  return claims;
}

/** The next state of a claimed job from its stored one (null deletes it). */
type ClaimChange = (job: Job) => Job | null;

/** Whether `job`, as stored, is still running under `claim`'s lease. */
const holds = (claim: JobClaim, job: Job | null): job is Job =>
  job !== null && job.state === "running" && job.lease?.token === claim.token;

/** Records on `claim` what its committed change wrote (`next`: null when it deleted the job). */
function changed(claim: JobClaim, key: Deno.KvKey, next: Job | null, versionstamp: string): void {
  claim.stored = next
    ? { key, value: { ...next, tag: tagOf(next.message) }, versionstamp }
    : undefined;
}

/**
 * Changes a job this claim still holds: `change` gets the stored job and returns its next
 * state (null deletes it). Returns false when the claim was lost (the lease ran out and
 * another worker took the job, or an operator changed it).
 */
async function changeClaimed(kv: Deno.Kv, claim: JobClaim, change: ClaimChange): Promise<boolean> {
  for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
    // First as this claim last wrote it (checked: unchanged since, so still running under
    // this lease), then as read.
    const entry = (attempt === 0 && claim.stored) || await kv.get<Job>(jobKey(claim.job.id));
    if (!holds(claim, entry.value)) return false;
    const next = change(entry.value);
    const op = stageReplace(kv.atomic(), entry as Deno.KvEntry<Job>, next);
    const result = await op.commit();
    if (result.ok) {
      changed(claim, entry.key, next, result.versionstamp);
      return true;
    }
  }
  throw new Error(`Job "${claim.job.id}" kept changing while it was being updated`);
}

/** Extends a held lease to `leaseMs` from `now`; false once the claim was lost. */
export function renewJobLease(
  kv: Deno.Kv,
  claim: JobClaim,
  options: { now: number; leaseMs: number },
): Promise<boolean> {
  return changeClaimed(kv, claim, (job) => ({ ...job, dueAt: options.now + options.leaseMs }));
}

/** A successful run's end: deleted, or scheduled again when asked for while it ran. */
const completion: ClaimChange = (job) =>
  job.rerunAt === null ? null : {
    ...job,
    state: "scheduled",
    dueAt: job.rerunAt,
    attempt: 0,
    errors: [],
    lease: null,
    rerunAt: null,
  };

/** A release's end: due again at `until` (default `now`), the run not counted. */
const release = (options: { now: number; until?: number }): ClaimChange => (job) => ({
  ...job,
  state: "scheduled",
  dueAt: Math.min(options.until ?? options.now, job.rerunAt ?? Infinity),
  attempt: Math.max(0, job.attempt - 1),
  lease: null,
  rerunAt: null,
});

/** A failed run's end: a retry after a backoff, or the dead letter after the last attempt. */
function failure(options: { error: string; now: Date; random?: () => number }): ClaimChange {
  return (job) => {
    const errors = [...job.errors, {
      attempt: job.attempt,
      at: options.now.toISOString(),
      error: options.error.slice(0, MAX_JOB_ERROR_CHARS),
    }].slice(-MAX_JOB_ERRORS);
    const base = { ...job, errors, lease: null, rerunAt: null };
    // Work asked for during the failed run is not held back by the backoff: a unique job
    // (a project's recompute) runs again for it, as it would had it arrived after the run.
    const retryAt = options.now.getTime() + backoffMs(job.attempt, options.random);
    return job.attempt >= job.maxAttempts
      ? { ...base, state: "dead", deadAt: options.now.toISOString() }
      : { ...base, state: "scheduled", dueAt: Math.min(retryAt, job.rerunAt ?? Infinity) };
  };
}

/** `change` that also keeps the last state it returned (what a failed run stored). */
function keeping(change: ClaimChange): { change: ClaimChange; last: () => Job | null } {
  let last: Job | null = null;
  return { change: (job) => (last = change(job)), last: () => last };
}

/**
 * Ends a successful run: the job is deleted, unless it was asked for again while it ran
 * (then it is scheduled for that time, with a fresh count of attempts).
 */
export function completeJob(kv: Deno.Kv, claim: JobClaim): Promise<boolean> {
  return changeClaimed(kv, claim, completion);
}

/**
 * Gives back a job this claim holds without counting the run: it is due again at `until`
 * (default `now`), for any worker. A stopping instance releases what it could not finish, so
 * nobody waits for its lease to run out; a handler that must wait (JobDeferred) is released to
 * later. A rerun asked for meanwhile is kept. False when the claim was lost already.
 */
export function releaseJob(
  kv: Deno.Kv,
  claim: JobClaim,
  options: { now: number; until?: number },
): Promise<boolean> {
  return changeClaimed(kv, claim, release(options));
}

/**
 * Ends a failed run: the job is scheduled again after a backoff, or, after its last attempt,
 * dead-lettered with its errors. Returns the job as stored (null when the claim was lost).
 */
export async function failJob(
  kv: Deno.Kv,
  claim: JobClaim,
  options: { error: string; now: Date; random?: () => number },
): Promise<Job | null> {
  const { change, last } = keeping(failure(options));
  return (await changeClaimed(kv, claim, change)) ? last() : null;
}

/** Ends runs as `completeJob`, `releaseJob` and `failJob` do, committing ends together. */
export interface JobEnds {
  complete(claim: JobClaim): Promise<boolean>;
  release(claim: JobClaim, options: { now: number; until?: number }): Promise<boolean>;
  fail(
    claim: JobClaim,
    options: { error: string; now: Date; random?: () => number },
  ): Promise<Job | null>;
}

interface PendingEnd {
  claim: JobClaim;
  change: ClaimChange;
  resolve: (ok: boolean) => void;
  reject: (error: unknown) => void;
}

/**
 * Ends of runs committed together: the ends asked for in one turn, or while the previous
 * commit was under way, are one atomic write per CLAIM_BATCH of them, each checked against the
 * record its claim wrote (no read). Runs claimed together tend to end together, so a look's
 * picks are claimed in one commit and ended in about one more, instead of one each. When such a
 * commit fails its checks (a lease was lost, a job changed), each end is tried on its own as
 * `completeJob` tries it; when it throws, each of its ends gets the error.
 */
export function createJobEnds(kv: Deno.Kv): JobEnds {
  const pending: PendingEnd[] = [];
  let flushing = false;

  function end(claim: JobClaim, change: ClaimChange): Promise<boolean> {
    return new Promise((resolve, reject) => {
      pending.push({ claim, change, resolve, reject });
      if (flushing) return;
      flushing = true;
      // After the current turn's other runs have reached their ends too.
      queueMicrotask(flush);
    });
  }

  async function flush(): Promise<void> {
    try {
      while (pending.length > 0) {
        const batch = pending.splice(0, CLAIM_BATCH);
        // Whatever fails (a closed KV), every end of the batch still gets its answer.
        await commitTogether(batch).catch((error) => {
          for (const end of batch) end.reject(error);
        });
      }
    } finally {
      flushing = false;
    }
  }

  async function alone(ends: PendingEnd[]): Promise<void> {
    await Promise.all(
      ends.map((end) => changeClaimed(kv, end.claim, end.change).then(end.resolve, end.reject)),
    );
  }

  async function commitTogether(batch: PendingEnd[]): Promise<void> {
    const ids = new Set<string>();
    const together: Array<{ end: PendingEnd; entry: Deno.KvEntry<Job>; next: Job | null }> = [];
    const rest: PendingEnd[] = [];
    for (const end of batch) {
      const entry = end.claim.stored;
      // Without a record it wrote (or twice the same job), an end reads first, on its own.
      if (!entry || !holds(end.claim, entry.value) || ids.has(end.claim.job.id)) {
        rest.push(end);
        continue;
      }
      ids.add(end.claim.job.id);
      together.push({ end, entry, next: null });
    }
    if (together.length < 2) return alone(batch);
    const op = kv.atomic();
    for (const item of together) {
      item.next = item.end.change(item.entry.value);
      stageReplace(op, item.entry, item.next);
    }
    let result: Deno.KvCommitResult | Deno.KvCommitError;
    try {
      result = await op.commit();
    } catch (error) {
      for (const { end } of together) end.reject(error);
      return alone(rest);
    }
    if (!result.ok) return alone(batch);
    for (const { end, entry, next } of together) {
      changed(end.claim, entry.key, next, result.versionstamp);
      end.resolve(true);
    }
    await alone(rest);
  }

  return {
    complete: (claim) => end(claim, completion),
    release: (claim, options) => end(claim, release(options)),
    async fail(claim, options) {
      const { change, last } = keeping(failure(options));
      return (await end(claim, change)) ? last() : null;
    },
  };
}

/** Dead-lettered jobs, newest first. */
export async function listDeadJobs(kv: Deno.Kv, limit: number): Promise<Job[]> {
  const ids: string[] = [];
  for await (
    const entry of kv.list<string>({ prefix: [...jobsDeadPrefix()] }, { reverse: true, limit })
  ) ids.push(entry.value);
  const jobs: Job[] = [];
  for (let i = 0; i < ids.length; i += 10) {
    const entries = await kv.getMany<Job[]>(ids.slice(i, i + 10).map(jobKey));
    for (const entry of entries) if (entry.value?.state === "dead") jobs.push(entry.value);
  }
  return jobs;
}

/** The number of dead-lettered jobs, counted up to `max`. */
export async function countDeadJobs(kv: Deno.Kv, max: number): Promise<number> {
  let count = 0;
  for await (const _ of kv.list({ prefix: [...jobsDeadPrefix()] }, { limit: max })) count++;
  return count;
}

/** One job, or null. */
export async function getJob(kv: Deno.Kv, id: string): Promise<Job | null> {
  return (await kv.get<Job>(jobKey(id))).value;
}

/**
 * Schedules a dead-lettered job to run now, with a fresh count of attempts (its errors are
 * kept). Returns the job, or null when no dead job has that id.
 */
export async function retryDeadJob(kv: Deno.Kv, id: string, now: Date): Promise<Job | null> {
  for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
    const entry = await kv.get<Job>(jobKey(id));
    if (entry.value?.state !== "dead") return null;
    const next: Job = {
      ...entry.value,
      state: "scheduled",
      dueAt: now.getTime(),
      attempt: 0,
      deadAt: null,
    };
    if ((await stageReplace(kv.atomic(), entry as Deno.KvEntry<Job>, next).commit()).ok) {
      return next;
    }
  }
  throw new Error(`Job "${id}" kept changing while it was being retried`);
}
