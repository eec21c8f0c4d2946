/**
 * Evidence records and their indexes. Reads never scan history: listing is
 * a bounded page of an index, and "latest evidence of a type" is the last
 * entry of the observation-time index (a reverse read of one entry).
 */
import type { EvidenceRecordSummary } from "../domain/collector.ts";
import type { EvidenceType } from "../domain/control.ts";
import { badRequest } from "../domain/errors.ts";
import { touchCollector } from "./collectors.ts";
import {
  evidenceByObservationKey,
  evidenceByObservationPrefix,
  evidenceByProjectKey,
  evidenceByProjectPrefix,
  evidenceKey,
  idempotencyKey,
} from "./keys.ts";

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

export async function getIdempotencyRecord(
  kv: Deno.Kv,
  projectId: string,
  key: string,
): Promise<IdempotencyRecord | null> {
  return (await kv.get<IdempotencyRecord>(idempotencyKey(projectId, key))).value;
}

/**
 * Adds new records with their indexes to `op`, each guarded by
 * `versionstamp: null` so a concurrent identical write cannot duplicate it;
 * the commit fails instead (the caller re-reads and retries).
 */
export function addEvidence(
  op: Deno.AtomicOperation,
  records: readonly EvidenceRecordSummary[],
  options: {
    collectorId: string;
    now: Date;
    idempotency?: { projectId: string; key: string; record: IdempotencyRecord };
  },
): Deno.AtomicOperation {
  for (const record of records) {
    const received = Date.parse(record.receivedAt);
    op.check({ key: evidenceKey(record.id), versionstamp: null })
      .set(evidenceKey(record.id), record)
      .set(evidenceByProjectKey(record.projectId, received, record.id), record.id)
      .set(
        evidenceByObservationKey(
          record.projectId,
          record.evidenceType,
          Date.parse(record.observedAt),
          record.id,
        ),
        record.id,
      );
  }
  touchCollector(op, options.collectorId, options.now);
  if (options.idempotency) {
    const { projectId, key, record } = options.idempotency;
    op.set(idempotencyKey(projectId, key), record, { expireIn: IDEMPOTENCY_TTL_MS });
  }
  return op;
}

/**
 * A page of a project's evidence: newest received first, or, filtered by
 * type, newest observed first (the observation index, which also answers
 * "latest evidence of a type", so the filter costs no extra index).
 */
export async function listEvidenceByProject(
  kv: Deno.Kv,
  projectId: string,
  options: { evidenceType?: EvidenceType; limit: number; cursor?: string },
): Promise<{ values: EvidenceRecordSummary[]; cursor: string | null }> {
  const prefix = options.evidenceType
    ? evidenceByObservationPrefix(projectId, options.evidenceType)
    : evidenceByProjectPrefix(projectId);
  let iterator: Deno.KvListIterator<string>;
  const ids: string[] = [];
  try {
    iterator = kv.list<string>({ prefix }, {
      reverse: true,
      limit: options.limit,
      cursor: options.cursor,
    });
    for await (const entry of iterator) ids.push(entry.value);
  } catch (error) {
    if (options.cursor && error instanceof Error) throw badRequest("The cursor is not valid");
    throw error;
  }
  const values = (await getEvidenceMany(kv, ids)).filter((r): r is EvidenceRecordSummary =>
    r !== null
  );
  return {
    values,
    cursor: ids.length === options.limit && iterator.cursor ? iterator.cursor : null,
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
