/**
 * Evidence retention in KV: the settings (a project's and an organization's own), the
 * citations of published versions (a payload digest a version cites keeps its records), the
 * pruning state of a project (its run under way, resumable), and the two primitives pruning
 * is made of: the candidates of one index stream, and the commit that removes a batch.
 */
import type { EvidenceRecordSummary } from "../domain/collector.ts";
import type { Publication } from "../domain/publication.ts";
import type { RetentionSetting } from "../domain/retention.ts";
import {
  evidenceByObservationKey,
  evidenceByObservationPrefix,
  evidenceCitationKey,
  evidenceKey,
  organizationRetentionKey,
  projectRetentionKey,
  pruneStateKey,
  publicationPartsOfProjectPrefix,
  publicationsOfProjectPrefix,
} from "./keys.ts";
import { serializedSize } from "./_chunks.ts";

const INHERIT: RetentionSetting = { days: null, recordsPerType: null };

export async function getProjectRetention(
  kv: Deno.Kv,
  projectId: string,
): Promise<RetentionSetting> {
  return (await kv.get<RetentionSetting>(projectRetentionKey(projectId))).value ?? INHERIT;
}

export async function getOrganizationRetention(
  kv: Deno.Kv,
  organizationId: string,
): Promise<RetentionSetting> {
  return (await kv.get<RetentionSetting>(organizationRetentionKey(organizationId))).value ??
    INHERIT;
}

export async function setProjectRetention(
  kv: Deno.Kv,
  projectId: string,
  setting: RetentionSetting,
): Promise<void> {
  await kv.set(projectRetentionKey(projectId), setting);
}

export async function setOrganizationRetention(
  kv: Deno.Kv,
  organizationId: string,
  setting: RetentionSetting,
): Promise<void> {
  await kv.set(organizationRetentionKey(organizationId), setting);
}

/**
 * Adds to `op` (a version's commit) the citations of its payload digests (the caller leaves out
 * those cited before, which keep their first version). Unchecked: one check per digest made a
 * first publish citing several go past denokv's 10 checks per atomic write; the version's
 * commit already checks the project's latest version (no other publish of it slips between),
 * and what retention reads is that a citation exists, not its version (the one-time backfill
 * of older versions racing it could only leave the newer version there).
 */
export function stageCitations(
  op: Deno.AtomicOperation,
  projectId: string,
  digests: readonly string[],
  version: number,
): void {
  for (const digest of new Set(digests)) op.set(evidenceCitationKey(projectId, digest), version);
}

/** Records the citations of an older version (the backfill); existing ones are kept. */
export async function addCitations(
  kv: Deno.Kv,
  projectId: string,
  digests: readonly string[],
  version: number,
): Promise<void> {
  const distinct = [...new Set(digests)];
  const existing = await citedOf(kv, projectId, distinct);
  const op = kv.atomic();
  for (const digest of distinct) {
    if (!existing.has(digest)) op.set(evidenceCitationKey(projectId, digest), version);
  }
  await op.commit();
}

/** Which of `checksums` some published version of the project cites. */
export async function citedOf(
  kv: Deno.Kv,
  projectId: string,
  checksums: readonly string[],
): Promise<Set<string>> {
  const distinct = [...new Set(checksums)];
  const groups = [];
  for (let i = 0; i < distinct.length; i += 10) groups.push(distinct.slice(i, i + 10));
  const results = await Promise.all(
    groups.map((g) => kv.getMany(g.map((c) => evidenceCitationKey(projectId, c)))),
  );
  const cited = new Set<string>();
  results.flat().forEach((entry) => {
    if (entry.versionstamp !== null) cited.add(entry.key[2] as string);
  });
  return cited;
}

/** A position in an index stream: observation time and record id. */
export interface StreamPosition {
  observedAtMs: number;
  id: string;
}

/** A pruning run under way: which stream it is at, after which entry, and what it removed. */
export interface PruneRun {
  startedAt: string;
  stream: number;
  after: StreamPosition | null;
  records: number;
  payloadBytes: number;
}

/** A project's pruning state. */
export interface PruneState {
  /** Versions up to this one had their citations recorded by the backfill (null: not yet). */
  citationsThrough: number | null;
  run: PruneRun | null;
  lastRun: { completedAt: string; records: number; payloadBytes: number } | null;
}

export async function getPruneState(
  kv: Deno.Kv,
  projectId: string,
): Promise<Deno.KvEntryMaybe<PruneState>> {
  return await kv.get<PruneState>(pruneStateKey(projectId));
}

export async function setPruneState(
  kv: Deno.Kv,
  read: Deno.KvEntryMaybe<PruneState>,
  next: PruneState,
): Promise<boolean> {
  return (await kv.atomic().check(read).set(read.key, next).commit()).ok;
}

/**
 * Up to `limit` entries of one index stream that retention no longer keeps by age or count,
 * oldest first, after `after`: those observed before `cutoffMs` and older than the stream's
 * `keep` newest entries. Whether one is cited is the caller's to check.
 */
export async function listPruneCandidates(
  kv: Deno.Kv,
  projectId: string,
  stream: string,
  options: { keep: number; cutoffMs: number; after: StreamPosition | null; limit: number },
): Promise<StreamPosition[]> {
  const prefix = evidenceByObservationPrefix(projectId, stream);
  let boundary: Deno.KvKey | null = null;
  let newest = 0;
  for await (const entry of kv.list({ prefix }, { reverse: true, limit: options.keep })) {
    boundary = entry.key;
    newest++;
  }
  if (boundary === null || newest < options.keep) return [];
  const byAge: Deno.KvKey = [...prefix, options.cutoffMs];
  const end = (boundary[3] as number) >= options.cutoffMs ? byAge : boundary;
  const start: Deno.KvKey = options.after
    ? evidenceByObservationKey(projectId, stream, options.after.observedAtMs, options.after.id)
    : prefix;
  const found: StreamPosition[] = [];
  for await (const entry of kv.list({ start, end }, { limit: options.limit + 1 })) {
    const position = { observedAtMs: entry.key[3] as number, id: entry.key[4] as string };
    if (options.after && position.id === options.after.id) continue;
    if (found.length < options.limit) found.push(position);
  }
  return found;
}

/**
 * Removes a batch of records of one stream (record and index entry) and moves the pruning
 * state, in one atomic checked against the state read and against any citation of the
 * removed checksums appearing meanwhile (a version published since). False when either moved.
 */
export async function commitPrune(
  kv: Deno.Kv,
  read: Deno.KvEntryMaybe<PruneState>,
  options: {
    projectId: string;
    stream: string;
    positions: readonly StreamPosition[];
    records: readonly EvidenceRecordSummary[];
    next: PruneState;
  },
): Promise<boolean> {
  const { projectId, stream } = options;
  const op = kv.atomic().check(read);
  for (const checksum of new Set(options.records.map((r) => r.checksum))) {
    op.check({ key: evidenceCitationKey(projectId, checksum), versionstamp: null });
  }
  for (const position of options.positions) {
    op.delete(evidenceByObservationKey(projectId, stream, position.observedAtMs, position.id));
    op.delete(evidenceKey(position.id));
  }
  op.set(pruneStateKey(projectId), options.next);
  return (await op.commit()).ok;
}

/** What one project holds in KV, as the usage report counts it. */
export interface ProjectStorage {
  evidenceRecords: number;
  /** Serialized size (V8, as KV measures values) of the keys and values read. */
  kvBytes: number;
  /** The distinct blob keys its evidence and published versions name. */
  blobKeys: Set<string>;
}

/**
 * Reads every evidence record (with its index entry) and every published version of a project
 * and sizes them: a cost in the number of records and versions, for the usage report.
 */
export async function measureProjectStorage(
  kv: Deno.Kv,
  projectId: string,
  streams: readonly string[],
): Promise<ProjectStorage> {
  const storage: ProjectStorage = { evidenceRecords: 0, kvBytes: 0, blobKeys: new Set() };
  const ids: string[] = [];
  for (const stream of streams) {
    const prefix = evidenceByObservationPrefix(projectId, stream);
    for await (const entry of kv.list<string>({ prefix }, { batchSize: 500 })) {
      storage.kvBytes += serializedSize(entry.key) + serializedSize(entry.value);
      ids.push(entry.value);
    }
  }
  for (let i = 0; i < ids.length; i += 10) {
    const keys = ids.slice(i, i + 10).map((id) => evidenceKey(id));
    for (const entry of await kv.getMany<EvidenceRecordSummary[]>(keys)) {
      if (entry.value === null) continue;
      storage.evidenceRecords++;
      storage.kvBytes += serializedSize(entry.key) + serializedSize(entry.value);
      storage.blobKeys.add(entry.value.payloadS3Key);
    }
  }
  for (
    const prefix of [
      publicationsOfProjectPrefix(projectId),
      publicationPartsOfProjectPrefix(projectId),
    ]
  ) {
    for await (const entry of kv.list<Publication>({ prefix }, { batchSize: 100 })) {
      storage.kvBytes += serializedSize(entry.key) + serializedSize(entry.value);
      if (entry.key[0] !== prefix[0] || !entry.value.artifacts) continue;
      for (const artifact of Object.values(entry.value.artifacts)) {
        if (!artifact) continue;
        storage.blobKeys.add(artifact.key);
        for (const key of Object.values(artifact.encodings ?? {})) storage.blobKeys.add(key);
        for (const key of artifact.parts ?? []) storage.blobKeys.add(key);
      }
    }
  }
  return storage;
}
