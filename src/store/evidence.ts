/**
 * Evidence records and their one index, by project, type and observation
 * time. Reads never scan history: "latest evidence of a type" is the last
 * entry of its type (a reverse read of one entry), and a page of the listing
 * is at most `limit + 1` index entries per type, merged.
 */
import type { EvidenceRecordSummary } from "../domain/collector.ts";
import { EvidenceType } from "../domain/control.ts";
import { validationFailed } from "../domain/errors.ts";
import { VEX_FORMATS } from "../domain/evidence_formats.ts";
import { touchCollector } from "./collectors.ts";
import {
  evidenceByObservationKey,
  evidenceByObservationPrefix,
  evidenceIngestStampKey,
  evidenceKey,
  idempotencyKey,
  VEX_STREAM,
} from "./keys.ts";

/**
 * New records one commit checks one by one (`versionstamp: null` each). A larger batch checks
 * the project's ingest stamp instead, which every evidence commit of the project bumps, after
 * reading which records exist. 10: denokv (a self-hosted KV Connect server) allows 10 checks
 * per atomic write (its proto/limits.rs), Deno Deploy and the local KV 100.
 */
export const CHECKED_RECORDS = 10;

/** How long an Idempotency-Key is remembered. */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;

export interface IdempotencyRecord {
  requestHash: string;
  recordIds: string[];
}

export async function getEvidence(kv: Deno.Kv, id: string): Promise<EvidenceRecordSummary | null> {
  return (await kv.get<EvidenceRecordSummary>(evidenceKey(id))).value;
}

/** Records by id, in order; absent ones are null. */
export async function getEvidenceMany(
  kv: Deno.Kv,
  ids: readonly string[],
): Promise<Array<EvidenceRecordSummary | null>> {
  const groups = [];
  for (let i = 0; i < ids.length; i += 10) groups.push(ids.slice(i, i + 10));
  const results = await Promise.all(
    groups.map((g) => kv.getMany<EvidenceRecordSummary[]>(g.map((id) => evidenceKey(id)))),
  );
  return results.flat().map((e) => e.value);
}

/** Instants (type and observation time) a batch may span to be looked up by the index. */
const INDEX_LOOKUP_INSTANTS = 4;
/** Index entries read at one instant at most; more, and records are read by id instead. */
const INDEX_LOOKUP_ENTRIES = 200;

/**
 * Which of `records` (ingest's, of one project, ids derived from their content) are stored
 * already, in order (null: not stored). A stored record has its observation-index entry at its
 * own observation time, under its type's streams (entries and records are written and deleted
 * together; a project's deletion finds its records through them), so a batch observed at a few
 * instants is looked up with one ranged read of each instant, instead of one read of a key per
 * 10 records, and only the records found are read. Up to 10 records, a batch spread over more
 * instants, or an instant with more entries than a read should hold, is read by id.
 */
export async function getStoredEvidence(
  kv: Deno.Kv,
  records: readonly EvidenceRecordSummary[],
): Promise<Array<EvidenceRecordSummary | null>> {
  const ids = records.map((record) => record.id);
  const instants = new Map<string, { projectId: string; stream: string; ms: number }>();
  for (const record of records) {
    const ms = Date.parse(record.observedAt);
    for (const stream of streamsOf(record.evidenceType)) {
      instants.set(JSON.stringify([record.projectId, stream, ms]), {
        projectId: record.projectId,
        stream,
        ms,
      });
    }
  }
  // Up to 10 ids are one read already.
  if (ids.length <= 10 || instants.size > INDEX_LOOKUP_INSTANTS) return getEvidenceMany(kv, ids);
  const indexed = new Set<string>();
  for (const { projectId, stream, ms } of instants.values()) {
    const iterator = kv.list<string>(
      { prefix: [...evidenceByObservationPrefix(projectId, stream), ms] },
      { limit: INDEX_LOOKUP_ENTRIES + 1 },
    );
    let count = 0;
    for await (const entry of iterator) {
      if (++count > INDEX_LOOKUP_ENTRIES) return getEvidenceMany(kv, ids);
      indexed.add(entry.key[4] as string);
    }
  }
  const found = ids.filter((id) => indexed.has(id));
  if (found.length === 0) return ids.map(() => null);
  const stored = new Map<string, EvidenceRecordSummary | null>();
  (await getEvidenceMany(kv, found)).forEach((record, i) => stored.set(found[i], record));
  return ids.map((id) => stored.get(id) ?? null);
}

export async function getIdempotencyRecord(
  kv: Deno.Kv,
  projectId: string,
  key: string,
): Promise<IdempotencyRecord | null> {
  return (await kv.get<IdempotencyRecord>(idempotencyKey(projectId, key))).value;
}

/** What is committed with a batch of new evidence records. */
export interface CommitEvidenceOptions {
  collectorId: string;
  now: Date;
  idempotency?: { projectId: string; key: string; record: IdempotencyRecord };
  /** Adds the caller's writes to the same atomic first (payloads staged in this KV). */
  stage?: (op: Deno.AtomicOperation) => Promise<void>;
  /**
   * The project's ingest stamp as read before the records that exist were: checked instead
   * of each record (for more than CHECKED_RECORDS), so no other commit slipped between.
   */
  stamp?: Deno.KvEntryMaybe<unknown>;
}

/** The project's ingest stamp, to read before reading which records of a large batch exist. */
export async function getIngestStamp(
  kv: Deno.Kv,
  projectId: string,
): Promise<Deno.KvEntryMaybe<unknown>> {
  return await kv.get(evidenceIngestStampKey(projectId));
}

/**
 * Commits new records with their indexes, the collector's activity and the
 * Idempotency-Key in one atomic. Each record is guarded by `versionstamp:
 * null` (or, beyond CHECKED_RECORDS, the whole commit by the project's ingest
 * stamp) so a concurrent identical write cannot duplicate it: the commit fails
 * instead and false is returned (the caller re-reads and retries).
 */
export async function commitEvidence(
  kv: Deno.Kv,
  records: readonly EvidenceRecordSummary[],
  options: CommitEvidenceOptions,
): Promise<boolean> {
  const op = kv.atomic();
  await options.stage?.(op);
  return (await addEvidence(op, records, options).commit()).ok;
}

function addEvidence(
  op: Deno.AtomicOperation,
  records: readonly EvidenceRecordSummary[],
  options: CommitEvidenceOptions,
): Deno.AtomicOperation {
  if (records.length > CHECKED_RECORDS && !options.stamp) {
    throw new Error(`More than ${CHECKED_RECORDS} records need the project's ingest stamp`);
  }
  if (options.stamp) op.check(options.stamp);
  for (const record of records) {
    if (!options.stamp) op.check({ key: evidenceKey(record.id), versionstamp: null });
    op.set(evidenceKey(record.id), record)
      .set(
        evidenceByObservationKey(
          record.projectId,
          indexStream(record),
          Date.parse(record.observedAt),
          record.id,
        ),
        record.id,
      );
  }
  const projectId = records[0]?.projectId;
  if (projectId) op.set(evidenceIngestStampKey(projectId), crypto.randomUUID());
  touchCollector(op, options.collectorId, options.now);
  if (options.idempotency) {
    const { projectId, key, record } = options.idempotency;
    op.set(idempotencyKey(projectId, key), record, { expireIn: IDEMPOTENCY_TTL_MS });
  }
  return op;
}

/**
 * The index stream of a record: its evidence type, except VEX documents sent as
 * vulnerability_scan evidence (recognized by their reading), which have a stream of their
 * own so that they never count as the latest scan.
 */
function indexStream(record: EvidenceRecordSummary): string {
  const vex = record.evidenceType === "vulnerability_scan" && record.reading.format !== null &&
    VEX_FORMATS.includes(record.reading.format);
  return vex ? VEX_STREAM : record.evidenceType;
}

/** The index streams listed for an evidence type (VEX documents are vulnerability_scan). */
function streamsOf(evidenceType: EvidenceType): string[] {
  return evidenceType === "vulnerability_scan" ? [evidenceType, VEX_STREAM] : [evidenceType];
}

/** Where a page ends: the observation time and id of its last record. */
interface Position {
  observedAtMs: number;
  id: string;
}

const CURSOR = /^(-?\d{1,15})\.([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

function parseCursor(cursor: string): Position {
  const match = CURSOR.exec(cursor);
  if (!match) throw validationFailed("cursor is not one this service handed out");
  return { observedAtMs: Number(match[1]), id: match[2] };
}

/** Newest observation first; ties by id, descending, as the index orders them in reverse. */
function newestFirst(a: Position, b: Position): number {
  return b.observedAtMs - a.observedAtMs || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

/**
 * A page of a project's evidence, newest observed first, of one type or of all. Without a
 * filter the per-type index ranges are merged: each contributes at most `limit + 1` entries
 * older than the cursor, so a page costs the same however long the history is.
 */
export async function listEvidenceByProject(
  kv: Deno.Kv,
  projectId: string,
  options: { evidenceType?: EvidenceType; limit: number; cursor?: string },
): Promise<{ values: EvidenceRecordSummary[]; cursor: string | null }> {
  const after = options.cursor === undefined ? undefined : parseCursor(options.cursor);
  const types = options.evidenceType ? [options.evidenceType] : EvidenceType.options;
  const ranges = await Promise.all(
    types.flatMap(streamsOf).map(async (type) => {
      const prefix = evidenceByObservationPrefix(projectId, type);
      const selector = after
        ? { prefix, end: [...prefix, after.observedAtMs, after.id] }
        : { prefix };
      const positions: Position[] = [];
      for await (const entry of kv.list(selector, { reverse: true, limit: options.limit + 1 })) {
        positions.push({ observedAtMs: entry.key[3] as number, id: entry.key[4] as string });
      }
      return positions;
    }),
  );
  const merged = ranges.flat().sort(newestFirst);
  const page = merged.slice(0, options.limit);
  const records = await getEvidenceMany(kv, page.map((p) => p.id));
  const values = records.filter((r): r is EvidenceRecordSummary => r !== null);
  const last = page.at(-1);
  return {
    values,
    cursor: merged.length > options.limit && last ? `${last.observedAtMs}.${last.id}` : null,
  };
}

/** The evidence of `evidenceType` with the newest observation time, or null. */
export async function getLatestEvidence(
  kv: Deno.Kv,
  projectId: string,
  evidenceType: EvidenceType,
): Promise<EvidenceRecordSummary | null> {
  const iterator = kv.list<string>(
    { prefix: evidenceByObservationPrefix(projectId, evidenceType) },
    {
      reverse: true,
      limit: 1,
    },
  );
  for await (const entry of iterator) return await getEvidence(kv, entry.value);
  return null;
}

/**
 * The project's `limit` newest VEX documents (by observation time), oldest first: the
 * order in which later statements override earlier ones. One ranged read of at most
 * `limit` index entries, whatever the history.
 */
export async function listLatestVexEvidence(
  kv: Deno.Kv,
  projectId: string,
  limit: number,
): Promise<EvidenceRecordSummary[]> {
  const ids: string[] = [];
  const iterator = kv.list<string>(
    { prefix: evidenceByObservationPrefix(projectId, VEX_STREAM) },
    { reverse: true, limit },
  );
  for await (const entry of iterator) ids.push(entry.value);
  const records = await getEvidenceMany(kv, ids.reverse());
  return records.filter((r): r is EvidenceRecordSummary => r !== null);
}
