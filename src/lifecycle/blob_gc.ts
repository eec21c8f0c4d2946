/**
 * The blob garbage collector: a mark-and-sweep over the blob store, in small resumable steps.
 * Blobs are content-addressed and shared (the same bytes sent by two projects, or two tenants,
 * are one blob), so a blob is removed only when no record names it. A cycle:
 *
 * 1. **mark**: reads every entry of every reference source (src/store/blob_references.ts:
 *    evidence payloads, publication artifacts, documents and their stamped copies, logos,
 *    stored public pages) and marks the blob keys they name;
 * 2. **sweep**: lists the blob store in key order and removes each blob that is unmarked and
 *    was stored (or re-stamped by a put that found it) before `startedAt - grace`;
 * 3. **clean**: removes the cycle's marks.
 *
 * The grace rule: a writer stores its blobs first and commits the record that names them after
 * (seconds later at most: a publish, an ingest, an upload). A blob stored after the mark phase
 * began may be named by a commit the mark phase did not see, so it must stay: only blobs whose
 * stamp is older than the mark's start minus the grace (BLOB_GC_GRACE_MS, 6 hours) go. A put
 * that finds its blob already stored re-stamps a stamp older than BLOB_RESTAMP_MS (1 hour), so
 * a writer reusing an old unreferenced blob has five hours to commit its reference. On the KV
 * store the stamp check and the removal are one atomic; on S3 a HEAD precedes the DELETE (a
 * put of the same bytes between the two is the one race left; see docs/lifecycle.md).
 *
 * Each step commits its marks (or mark removals) with the moved cycle state, checked against
 * the state it read, and one collector runs at a time (a lease), so a cycle interrupted
 * anywhere resumes from its last commit.
 */
import { type BlobStore, parseBlobKey } from "../blobs/mod.ts";
import type { JobMessage } from "../domain/jobs.ts";
import type { Clock } from "../lib/clock.ts";
import type { JobWorker } from "../live/worker.ts";
import {
  type BlobGcState,
  type BlobGcSummary,
  commitBlobGcStep,
  getBlobGcState,
  getBlobGcSummary,
  listMarkKeys,
  markedOf,
} from "../store/blob_gc.ts";
import { BLOB_REFERENCE_SOURCES, type BlobReferenceSource } from "../store/blob_references.ts";
import { scheduleUniqueJob } from "../store/jobs.ts";
import { LeaseTimeout, withLease } from "../store/leases.ts";

/** How long a blob is kept after it was last stored, referenced or not (see the module doc). */
export const BLOB_GC_GRACE_MS = 6 * 3600 * 1000;

/**
 * Entries of a reference source read per mark step, and blob keys marked (or marks removed) per
 * step at most: a mark's key is about 130 bytes, and an atomic commit may hold 80 KiB of keys.
 */
const MARK_ENTRIES = 200;
const MARKS_PER_STEP = 400;
const CLEAN_MARKS = 400;
/** Blobs looked at per sweep step. */
const SWEEP_BLOBS = 100;
/** Steps per call unless asked otherwise, and per run of the job. */
const DEFAULT_STEPS = 200;

/** What the collector reads and removes. */
export interface BlobGcDeps {
  kv: Deno.Kv;
  blobs: BlobStore;
  clock: Clock;
}

export interface CollectOptions {
  /** Blobs stored within this long before a cycle's mark began are kept (default 6 hours). */
  graceMs?: number;
  /** Steps to take at most in this call (each is a small batch); default 200. */
  maxSteps?: number;
  /**
   * Complete only once a cycle whose mark began at or after this instant has ended (a caller
   * that just removed records passes the time of its removal).
   */
  startedAfter?: Date;
  /** The reference sources (default: every one the service has). */
  sources?: readonly BlobReferenceSource[];
}

/** Where the collector stands after a call. */
export interface BlobCollection {
  /** A cycle (one started at or after `startedAfter`, when given) ended. */
  complete: boolean;
  /** Another collector held the lease: nothing was done. */
  busy: boolean;
  /** The cycle under way, if any. */
  state: BlobGcState | null;
  /** The last cycle that ended. */
  last: BlobGcSummary | null;
}

/**
 * Runs the collector for at most `maxSteps` small steps: continues the cycle under way or
 * starts one, and stops when a cycle ends (`complete`) or the steps run out (call again, or
 * let the "blob-gc" job go on). The deletion of a tenant calls it after removing the records,
 * with `startedAfter` set to that moment and enough steps, or asks for the job
 * (`requestBlobCollection`).
 */
export async function collectUnreferencedBlobs(
  deps: BlobGcDeps,
  options: CollectOptions = {},
): Promise<BlobCollection> {
  try {
    return await withLease(
      deps.kv,
      { name: "blob-gc", id: "all", ttlMs: 15_000, waitMs: 0 },
      () => collect(deps, options),
    );
  } catch (error) {
    if (!(error instanceof LeaseTimeout)) throw error;
    const state = (await getBlobGcState(deps.kv)).value;
    return { complete: false, busy: true, state, last: await getBlobGcSummary(deps.kv) };
  }
}

async function collect(deps: BlobGcDeps, options: CollectOptions): Promise<BlobCollection> {
  const { kv } = deps;
  const sources = options.sources ?? BLOB_REFERENCE_SOURCES;
  const since = options.startedAfter?.getTime() ?? null;
  const maxSteps = options.maxSteps ?? DEFAULT_STEPS;
  let ended = false;
  for (let steps = 0; steps < maxSteps; steps++) {
    const read = await getBlobGcState(kv);
    const state = read.value;
    if (state === null) {
      const last = await getBlobGcSummary(kv);
      const recentEnough = since === null || (last !== null && Date.parse(last.startedAt) >= since);
      if ((ended || since !== null) && recentEnough) {
        return { complete: true, busy: false, state: null, last };
      }
      await commitBlobGcStep(kv, read, { runId: "", next: newCycle(deps.clock, options, last) });
      continue;
    }
    const step = state.phase === "mark"
      ? await markStep(kv, state, sources)
      : state.phase === "sweep"
      ? await sweepStep(deps, state)
      : await cleanStep(kv, state, deps.clock);
    if (await commitBlobGcStep(kv, read, { runId: state.runId, ...step }) && !step.next) {
      ended = true;
    }
  }
  const state = (await getBlobGcState(kv)).value;
  const last = await getBlobGcSummary(kv);
  const recentEnough = since === null || (last !== null && Date.parse(last.startedAt) >= since);
  return { complete: ended && state === null && recentEnough, busy: false, state, last };
}

/**
 * A new cycle, begun strictly after the last one (a clock that stands still, or steps back,
 * still orders cycles: `startedAfter` can name the instant after one that was under way).
 */
function newCycle(
  clock: Clock,
  options: CollectOptions,
  last: BlobGcSummary | null,
): BlobGcState {
  const after = last ? Date.parse(last.startedAt) + 1 : -Infinity;
  return {
    runId: crypto.randomUUID(),
    phase: "mark",
    startedAt: Math.max(clock.now().getTime(), after),
    graceMs: options.graceMs ?? BLOB_GC_GRACE_MS,
    source: 0,
    cursor: null,
    marked: 0,
    examined: 0,
    deleted: 0,
    deletedBytes: 0,
    young: 0,
  };
}

type Step = { next: BlobGcState | null; marks?: string[]; unmarks?: Deno.KvKey[] } & {
  summary?: BlobGcSummary;
};

function isBlobKey(key: unknown): key is string {
  if (typeof key !== "string") return false;
  try {
    parseBlobKey(key);
    return true;
  } catch {
    return false;
  }
}

/** Marks the blob keys of the next entries of the current source (or moves to the next one). */
async function markStep(
  kv: Deno.Kv,
  state: BlobGcState,
  sources: readonly BlobReferenceSource[],
): Promise<Step> {
  const source = sources[state.source];
  if (!source) return { next: { ...state, phase: "sweep", cursor: null } };
  const marks = new Set<string>();
  const entries = kv.list(
    { prefix: source.prefix },
    { limit: MARK_ENTRIES, cursor: state.cursor ?? undefined },
  );
  let cursor = state.cursor;
  let read = 0;
  let full = false;
  for await (const entry of entries) {
    const keys = source.keysOf(entry).filter(isBlobKey);
    if (read > 0 && marks.size + keys.length > MARKS_PER_STEP) {
      full = true;
      break;
    }
    for (const key of keys) marks.add(key);
    cursor = entries.cursor;
    read++;
  }
  const more = full || read === MARK_ENTRIES;
  const next: BlobGcState = more
    ? { ...state, cursor, marked: state.marked + marks.size }
    : { ...state, source: state.source + 1, cursor: null, marked: state.marked + marks.size };
  return { next, marks: [...marks] };
}

/** Removes the unmarked blobs older than the grace among the next ones of the store. */
async function sweepStep(deps: BlobGcDeps, state: BlobGcState): Promise<Step> {
  const blobs = await deps.blobs.list({ after: state.cursor ?? undefined, limit: SWEEP_BLOBS });
  if (blobs.length === 0) return { next: { ...state, phase: "clean", cursor: null } };
  const marked = await markedOf(deps.kv, state.runId, blobs.map((b) => b.key));
  const cutoff = state.startedAt - state.graceMs;
  let { deleted, deletedBytes, young } = state;
  for (const blob of blobs) {
    if (marked.has(blob.key)) continue;
    if (blob.storedAt < cutoff && await deps.blobs.delete(blob.key, { storedBefore: cutoff })) {
      deleted++;
      deletedBytes += blob.size;
    } else young++;
  }
  return {
    next: {
      ...state,
      cursor: blobs[blobs.length - 1].key,
      examined: state.examined + blobs.length,
      deleted,
      deletedBytes,
      young,
    },
  };
}

/** Removes the cycle's marks; the cycle ends once none is left. */
async function cleanStep(kv: Deno.Kv, state: BlobGcState, clock: Clock): Promise<Step> {
  const unmarks = await listMarkKeys(kv, state.runId, CLEAN_MARKS);
  if (unmarks.length > 0) return { next: state, unmarks };
  const { marked, examined, deleted, deletedBytes, young } = state;
  return {
    next: null,
    summary: {
      startedAt: new Date(state.startedAt).toISOString(),
      completedAt: clock.now().toISOString(),
      marked,
      examined,
      deleted,
      deletedBytes,
      young,
    },
  };
}

/** The job kind that runs the collector, and the id of its one job. */
export const BLOB_GC_JOB = "blob-gc";
const BLOB_GC_JOB_ID = "blob-gc";

/** The collector's job; `organizationId` is the tenant whose change asked for it. */
export interface BlobGcMessage extends JobMessage {
  kind: typeof BLOB_GC_JOB;
  organizationId: string;
}

/**
 * Asks for a collector cycle no later than `dueAt` (default now): one job for the whole
 * service, however many ask (a pruning run, a deleted tenant).
 */
export async function requestBlobCollection(
  kv: Deno.Kv,
  options: { organizationId: string; now: Date; dueAt?: number },
): Promise<void> {
  const message: BlobGcMessage = { kind: BLOB_GC_JOB, organizationId: options.organizationId };
  await scheduleUniqueJob(kv, BLOB_GC_JOB_ID, {
    message,
    dueAt: options.dueAt ?? options.now.getTime(),
    now: options.now,
  });
}

/** Registers the handler of the collector's job: a run of steps, then again until it ends. */
export function registerBlobCollector(deps: BlobGcDeps & { jobs: JobWorker }): void {
  deps.jobs.on(BLOB_GC_JOB, async (message) => {
    const { organizationId } = message as BlobGcMessage;
    const result = await collectUnreferencedBlobs(deps, { maxSteps: DEFAULT_STEPS });
    if (result.complete) return;
    const now = deps.clock.now();
    // Busy: another instance collects now; look again later in case it stops half-way.
    const dueAt = now.getTime() + (result.busy ? 60_000 : 1_000);
    await requestBlobCollection(deps.kv, { organizationId: organizationId ?? "", now, dueAt });
  });
}
