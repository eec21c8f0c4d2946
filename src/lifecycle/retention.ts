/**
 * Evidence retention: which records a project keeps, and the pruning job that removes the
 * rest (docs/lifecycle.md). The rule, per index stream (an evidence type; VEX documents are a
 * stream of their own):
 *
 * - always kept: the latest record (the `MAX_VEX_DOCUMENTS` newest VEX documents, which the
 *   evaluator reads together) and every record whose payload digest a published version cites
 *   (its citation is recorded with the version), so old versions stay verifiable;
 * - otherwise a record is kept while it was observed within `days`, or is among the newest
 *   `recordsPerType` of its stream, whichever keeps more.
 *
 * A run walks each stream oldest first from a cursor kept in KV, removing at most 90 records
 * per atomic commit (with the cursor, checked against citations made meanwhile) and at most
 * `RUN_RECORDS` per job run; the job goes on from the cursor until the run ends, then asks the
 * blob collector for a cycle (the payloads are blobs other records may share) and is due again
 * a day later (the job: prune_job.ts). Pruning changes no public page: pages show published versions (whose evidence
 * is kept) and the latest evaluations (whose records are the latest), so the edge is not
 * touched.
 */
import type { BlobStore } from "../blobs/mod.ts";
import type { Config } from "../config.ts";
import type { EvidenceRecordSummary } from "../domain/collector.ts";
import { EvidenceType } from "../domain/control.ts";
import type { PruneSummary, RetentionPolicy } from "../domain/retention.ts";
import type { Project } from "../domain/workspace.ts";
import { MAX_VEX_DOCUMENTS } from "../evaluate/mod.ts";
import type { Clock } from "../lib/clock.ts";
import { getBlobGcSummary } from "../store/blob_gc.ts";
import { getEvidenceMany } from "../store/evidence.ts";
import { VEX_STREAM } from "../store/keys.ts";
import { getLatestPublicationEntry, listPublicationsPage } from "../store/publications.ts";
import {
  addCitations,
  citedOf,
  commitPrune,
  getOrganizationRetention,
  getProjectRetention,
  getPruneState,
  listPruneCandidates,
  type PruneRun,
  type PruneState,
  setPruneState,
  type StreamPosition,
} from "../store/retention.ts";
import { requestBlobCollection } from "./blob_gc.ts";

export const DAY_MS = 24 * 3600 * 1000;
/** The index streams of a project, in the order a run walks them. */
export const STREAMS: readonly string[] = [...EvidenceType.options, VEX_STREAM];
/** Records removed per atomic commit: with a citation check each and the state's, under 100. */
export const PRUNE_BATCH = 90;
/** Records removed per job run at most; the job goes on from its cursor. */
export const RUN_RECORDS = 1000;
/** Commits that lost a race tried again, per call. */
const MAX_CONFLICTS = 20;
/** The blob collector runs at most this often after pruning. */
const COLLECT_EVERY_MS = 6 * 3600 * 1000;

export interface RetentionDeps {
  kv: Deno.Kv;
  blobs: BlobStore;
  clock: Clock;
  config: Config;
}

/** The policy in effect for a project: its own values, else its organization's, else the service's. */
export async function effectiveRetention(
  kv: Deno.Kv,
  config: Config,
  project: Pick<Project, "id" | "organizationId">,
): Promise<RetentionPolicy> {
  const [own, organization] = await Promise.all([
    getProjectRetention(kv, project.id),
    getOrganizationRetention(kv, project.organizationId),
  ]);
  const pick = <K extends "days" | "recordsPerType">(key: K) =>
    own[key] !== null
      ? { value: own[key]!, from: "project" as const }
      : organization[key] !== null
      ? { value: organization[key]!, from: "organization" as const }
      : { value: config.evidenceRetention[key], from: "service" as const };
  const days = pick("days");
  const records = pick("recordsPerType");
  return {
    days: days.value,
    recordsPerType: records.value,
    daysFrom: days.from,
    recordsPerTypeFrom: records.from,
  };
}

/** The newest entries of a stream that are kept whatever their age. */
function keepOf(stream: string, policy: RetentionPolicy): number {
  return stream === VEX_STREAM
    ? Math.max(policy.recordsPerType, MAX_VEX_DOCUMENTS)
    : policy.recordsPerType;
}

/** The payload digests a stored version's trust.json cites. */
async function citedDigests(blobs: BlobStore, key: string): Promise<string[]> {
  const bytes = await blobs.get(key);
  if (!bytes) return [];
  const profile = JSON.parse(new TextDecoder().decode(bytes)) as {
    controls?: Array<{ evidence?: { digest?: string | null } }>;
  };
  return (profile.controls ?? []).flatMap((c) => c.evidence?.digest ? [c.evidence.digest] : []);
}

/**
 * Records the citations of the versions published before citations were recorded with each
 * version (once per project: every version up to the latest one at the time).
 */
async function backfillCitations(deps: RetentionDeps, projectId: string): Promise<PruneState> {
  const read = await getPruneState(deps.kv, projectId);
  const state = read.value ?? { citationsThrough: null, run: null, lastRun: null };
  if (state.citationsThrough !== null) return state;
  const latest = (await getLatestPublicationEntry(deps.kv, projectId)).value ?? 0;
  let before: number | undefined = latest + 1;
  while (before !== undefined) {
    const page = await listPublicationsPage(deps.kv, projectId, { before, limit: 20 });
    for (const publication of page.publications) {
      const digests = await citedDigests(deps.blobs, publication.artifacts.trustJson.key);
      await addCitations(deps.kv, projectId, digests, publication.version);
    }
    before = page.more ? page.publications.at(-1)?.version : undefined;
  }
  const next = { ...state, citationsThrough: latest };
  await setPruneState(deps.kv, read, next);
  return next;
}

/** The byte sizes of the distinct payloads of `records`. */
async function payloadBytes(blobs: BlobStore, records: readonly EvidenceRecordSummary[]) {
  const sizes = await Promise.all(
    [...new Set(records.map((r) => r.payloadS3Key))].map((key) => blobs.stat(key)),
  );
  return sizes.reduce((sum, info) => sum + (info?.size ?? 0), 0);
}

/** One batch of a stream: what to remove of the candidates after `after`. */
async function nextBatch(
  deps: RetentionDeps,
  project: Pick<Project, "id">,
  run: PruneRun,
  options: { policy: RetentionPolicy; cutoffMs: number },
) {
  const stream = STREAMS[run.stream];
  const positions = await listPruneCandidates(deps.kv, project.id, stream, {
    keep: keepOf(stream, options.policy),
    cutoffMs: options.cutoffMs,
    after: run.after,
    limit: PRUNE_BATCH,
  });
  const found = await getEvidenceMany(deps.kv, positions.map((p) => p.id));
  const cited = await citedOf(
    deps.kv,
    project.id,
    found.flatMap((r) => r ? [r.checksum] : []),
  );
  const remove: StreamPosition[] = [];
  const records: EvidenceRecordSummary[] = [];
  positions.forEach((position, i) => {
    const record = found[i];
    if (record && cited.has(record.checksum)) return;
    remove.push(position);
    if (record) records.push(record);
  });
  return { stream, positions, remove, records, bytes: await payloadBytes(deps.blobs, records) };
}

/**
 * Prunes a project: continues its run under way (or starts one) and removes at most
 * `maxRecords` records in this call. With `dryRun` nothing is written or removed: the answer
 * is what a full run would remove now.
 */
export async function pruneProject(
  deps: RetentionDeps,
  project: Pick<Project, "id" | "organizationId">,
  options: { maxRecords?: number; dryRun?: boolean } = {},
): Promise<{ pruned: PruneSummary; complete: boolean }> {
  const policy = await effectiveRetention(deps.kv, deps.config, project);
  const now = deps.clock.now();
  const cutoffMs = now.getTime() - policy.days * DAY_MS;
  const fresh = (): PruneRun => ({
    startedAt: now.toISOString(),
    stream: 0,
    after: null,
    records: 0,
    payloadBytes: 0,
  });
  if (options.dryRun) {
    const run = fresh();
    while (run.stream < STREAMS.length) {
      const batch = await nextBatch(deps, project, run, { policy, cutoffMs });
      if (batch.positions.length === 0) {
        run.stream++;
        run.after = null;
        continue;
      }
      run.after = batch.positions.at(-1)!;
      run.records += batch.remove.length;
      run.payloadBytes += batch.bytes;
    }
    return { pruned: { records: run.records, payloadBytes: run.payloadBytes }, complete: true };
  }
  await backfillCitations(deps, project.id);
  const budget = options.maxRecords ?? RUN_RECORDS;
  let removed = 0;
  for (let conflicts = 0; conflicts < MAX_CONFLICTS;) {
    const read = await getPruneState(deps.kv, project.id);
    const state = read.value;
    if (state?.citationsThrough == null) {
      // Another run's first commit raced the backfill's: backfill (again) before removing.
      await backfillCitations(deps, project.id);
      conflicts++;
      continue;
    }
    const run = state.run ?? fresh();
    const counts = { records: run.records, payloadBytes: run.payloadBytes };
    if (run.stream >= STREAMS.length) {
      const lastRun = { completedAt: now.toISOString(), ...counts };
      if (!await setPruneState(deps.kv, read, { ...state, run: null, lastRun })) {
        conflicts++;
        continue;
      }
      if (counts.records > 0) await askForCollection(deps, project.organizationId);
      return { pruned: counts, complete: true };
    }
    if (removed >= budget) return { pruned: counts, complete: false };
    const batch = await nextBatch(deps, project, run, { policy, cutoffMs });
    const next: PruneRun = batch.positions.length === 0
      ? { ...run, stream: run.stream + 1, after: null }
      : {
        ...run,
        after: batch.positions.at(-1)!,
        records: run.records + batch.remove.length,
        payloadBytes: run.payloadBytes + batch.bytes,
      };
    const ok = await commitPrune(deps.kv, read, {
      projectId: project.id,
      stream: batch.stream,
      positions: batch.remove,
      records: batch.records,
      next: { ...state, run: next },
    });
    if (ok) removed += batch.remove.length;
    else conflicts++;
  }
  throw new Error(`Pruning project "${project.id}" kept conflicting with other writes`);
}

/** Asks for a blob collector cycle, no sooner than COLLECT_EVERY_MS after the last one. */
async function askForCollection(deps: RetentionDeps, organizationId: string): Promise<void> {
  const last = await getBlobGcSummary(deps.kv);
  const now = deps.clock.now();
  const after = last ? Date.parse(last.startedAt) + COLLECT_EVERY_MS : 0;
  await requestBlobCollection(deps.kv, {
    organizationId,
    now,
    dueAt: Math.max(now.getTime(), after),
  });
}
