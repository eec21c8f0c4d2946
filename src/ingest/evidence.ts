/**
 * Evidence ingest: canonicalize and hash each payload, read it with the
 * evaluator's probe for its type, store the payloads as content-addressed
 * blobs, then commit every record in one atomic. A record's id is derived
 * from its content, so the same record sent twice, or a whole request
 * replayed, resolves to what is already stored.
 */
import type { BlobStore } from "../blobs/mod.ts";
import type { Collector, EvidenceItem, EvidenceRecordSummary } from "../domain/collector.ts";
import { AppError, conflict, validationFailed } from "../domain/errors.ts";
import { readEvidence } from "../evaluate/reading.ts";
import { canonicalJson } from "../lib/canonical_json.ts";
import { sha256HexSync } from "../lib/hash.ts";
import { stableUuid } from "../lib/ids.ts";
import type { SignatureCheck } from "../domain/sigstore.ts";
import { claimsSignature, loadSigstoreVerifier } from "../sigstore/load.ts";
import {
  CHECKED_RECORDS,
  commitEvidence,
  getEvidenceMany,
  getIdempotencyRecord,
  getIngestStamp,
  getStoredEvidence,
} from "../store/evidence.ts";
import { getSigstoreIdentities } from "../store/sigstore_identities.ts";
import { loadSubjectRule } from "./subject_rule.ts";

/** Observations may be this far ahead of the server's clock (collector clock skew). */
export const MAX_FUTURE_SKEW_MS = 5 * 60 * 1000;
/**
 * Commits tried per batch. A large batch checks its project's ingest stamp, which every other
 * large batch to the project moves: under concurrent batches (two instances, parallel CI jobs)
 * a try can lose several times in a row, so tries are spread by a short random wait that
 * doubles (2, 4, 8… ms, at most 200) instead of failing the batch after five quick losses.
 */
const MAX_ATTEMPTS = 12;
const RETRY_BASE_MS = 2;
const RETRY_MAX_MS = 200;

/** A random wait before try `attempt` (1 for the second try), growing with each loss. */
function contentionWait(attempt: number): Promise<void> {
  const ceiling = Math.min(RETRY_BASE_MS * 2 ** attempt, RETRY_MAX_MS);
  return new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
}
/**
 * Payload bytes that may share the records' atomic when the blob store lives in the same KV
 * (KV allows 800 KiB per atomic; the records and indexes of a full batch take under 150 KiB).
 */
const STAGE_BUDGET_BYTES = 512 * 1024;

export interface IngestResult {
  records: EvidenceRecordSummary[];
  /** False when everything was already stored (a replay): answer 200, not 201. */
  created: boolean;
}

interface Prepared {
  record: EvidenceRecordSummary;
  bytes: Uint8Array;
}

function prepare(
  collector: Collector,
  items: readonly EvidenceItem[],
  now: Date,
  fieldPrefix: (i: number) => string,
  signatures: ReadonlyArray<SignatureCheck | null>,
): Prepared[] {
  const prepared: Prepared[] = [];
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    const claimed = new Date(item.observedAt);
    if (claimed.getTime() > now.getTime() + MAX_FUTURE_SKEW_MS) {
      throw validationFailed(
        `Field "${fieldPrefix(i)}observedAt": More than 5 minutes in the future`,
      );
    }
    const observed = signedNoLaterThan(claimed, signatures[i]);
    let text: string;
    try {
      text = canonicalJson(item.payload);
    } catch (error) {
      throw validationFailed(`Field "${fieldPrefix(i)}payload": ${(error as Error).message}`);
    }
    const bytes = new TextEncoder().encode(text);
    const digest = sha256HexSync(bytes);
    const observedAt = observed.toISOString();
    prepared.push({
      bytes,
      record: {
        id: stableUuid(
          collector.projectId,
          item.evidenceType,
          item.sourceType,
          item.sourceRef,
          observedAt,
          digest,
        ),
        organizationId: collector.organizationId,
        projectId: collector.projectId,
        collectorPrincipalId: collector.id,
        collector: { id: collector.id, name: collector.name },
        evidenceType: item.evidenceType,
        sourceType: item.sourceType,
        sourceRef: item.sourceRef,
        payloadS3Key: `evidence/${digest}`,
        checksum: `sha256:${digest}`,
        observedAt,
        receivedAt: now.toISOString(),
        reading: readEvidence(item.evidenceType, item.payload, signatures[i]),
      },
    });
  }
  return prepared;
}

/**
 * Signed evidence cannot have been observed after it was signed: a verified signature's
 * earliest timestamp (Rekor's integrated time, an RFC 3161 time) caps the claimed
 * observation time, so freshness counts from the signature and a bundle replayed later
 * stays as old as it is.
 */
function signedNoLaterThan(claimed: Date, signature: SignatureCheck | null): Date {
  const signedAt = signature?.signedAt ? Date.parse(signature.signedAt) : NaN;
  return Number.isFinite(signedAt) && signedAt < claimed.getTime() ? new Date(signedAt) : claimed;
}

/**
 * The Sigstore verification of each item's payload (null for payloads that claim no
 * signature), against the configured trusted root, the project's expected identities and
 * its provenance subject rule, so each record's reading says whether its signature
 * verified.
 */
async function checkSignatures(
  kv: Deno.Kv,
  blobs: BlobStore,
  projectId: string,
  items: readonly EvidenceItem[],
  trustedRoot: Record<string, unknown> | null,
): Promise<Array<SignatureCheck | null>> {
  if (!items.some((item) => claimsSignature(item.payload))) return items.map(() => null);
  const [verifier, identities, subjects] = await Promise.all([
    loadSigstoreVerifier(trustedRoot),
    getSigstoreIdentities(kv, projectId),
    loadSubjectRule(kv, blobs, projectId),
  ]);
  return items.map((item) => verifier.check(item.payload, identities, subjects));
}

/**
 * The stored result of an earlier request with the same Idempotency-Key, or
 * null when there is none (or its records are gone); the same key with a
 * different request is a conflict.
 */
async function replayed(
  kv: Deno.Kv,
  prepared: readonly Prepared[],
  idempotency: { projectId: string; key: string; requestHash: string },
): Promise<IngestResult | null> {
  const seen = await getIdempotencyRecord(kv, idempotency.projectId, idempotency.key);
  if (!seen) return null;
  if (seen.requestHash !== idempotency.requestHash) {
    throw conflict("This Idempotency-Key was already used with a different request");
  }
  const stored = await getEvidenceMany(kv, seen.recordIds);
  if (!stored.every((r) => r !== null)) return null;
  return { records: withReadings(stored as EvidenceRecordSummary[], prepared), created: false };
}

/**
 * Ingests `items` for the collector's project, all or nothing. With an
 * Idempotency-Key, a replay of the same request returns the stored records;
 * the same key with a different request is a conflict.
 */
export async function ingestEvidence(
  collector: Collector,
  items: readonly EvidenceItem[],
  options: {
    kv: Deno.Kv;
    blobs: BlobStore;
    now: Date;
    idempotencyKey?: string;
    fieldPrefix?: (i: number) => string;
    /** The SIGSTORE_TRUSTED_ROOT document; null or absent: the shipped public-good root. */
    sigstoreTrustedRoot?: Record<string, unknown> | null;
  },
): Promise<IngestResult> {
  const { kv, blobs, now } = options;
  const projectId = collector.projectId;
  const signatures = await checkSignatures(
    kv,
    blobs,
    projectId,
    items,
    options.sigstoreTrustedRoot ?? null,
  );
  const prepared = prepare(collector, items, now, options.fieldPrefix ?? (() => ""), signatures);

  let requestHash: string | undefined;
  if (options.idempotencyKey) {
    requestHash = sha256HexSync(
      prepared.map((p) => `${p.record.id} ${p.record.checksum}`).join("\n"),
    );
    const key = options.idempotencyKey;
    const replay = await replayed(kv, prepared, { projectId, key, requestHash });
    if (replay) return replay;
  }

  const ids = prepared.map((p) => p.record.id);
  const preparedRecords = prepared.map((p) => p.record);
  // Optimistic: assume every record is new; a failed check means some exist (a replay or a
  // concurrent identical write), and only then are they read.
  let existing: Array<EvidenceRecordSummary | null> = ids.map(() => null);
  // A batch larger than the records one commit checks one by one reads the project's ingest
  // stamp, then which records exist, and its commit checks the stamp instead.
  const large = prepared.length > CHECKED_RECORDS;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (attempt > 0) await contentionWait(attempt);
    const stamp = large ? await getIngestStamp(kv, projectId) : undefined;
    if (attempt > 0 || large) existing = await getStoredEvidence(kv, preparedRecords);
    const fresh = new Map<string, Prepared>();
    prepared.forEach((p, i) => {
      if (!existing[i]) fresh.set(p.record.id, p);
    });
    const bytes = [...fresh.values()].map((p) => p.bytes);
    const committed = await commitEvidence(kv, [...fresh.values()].map((p) => p.record), {
      collectorId: collector.id,
      now,
      idempotency: options.idempotencyKey && requestHash
        ? { projectId, key: options.idempotencyKey, record: { requestHash, recordIds: ids } }
        : undefined,
      stage: bytes.length > 0 ? (op) => storePayloads(op, { blobs, bytes }) : undefined,
      stamp,
    });
    if (committed) {
      const records = prepared.map((p, i) => existing[i] ?? p.record);
      return { records: withReadings(records, prepared), created: fresh.size > 0 };
    }
  }
  throw conflict("The evidence changed concurrently while being recorded; please retry");
}

/**
 * Stores the payloads of new records: those within the budget are staged in
 * the records' atomic when the blob store lives in the same KV, the rest are
 * written before it commits.
 */
async function storePayloads(
  op: Deno.AtomicOperation,
  { blobs, bytes }: { blobs: BlobStore; bytes: Uint8Array[] },
): Promise<void> {
  try {
    const staged = blobs.stageMany
      ? await blobs.stageMany(op, "evidence", bytes, STAGE_BUDGET_BYTES)
      : bytes.map(() => false);
    await blobs.putMany("evidence", bytes.filter((_, i) => !staged[i]));
  } catch (error) {
    throw new AppError("internal", "Evidence storage failed; nothing was recorded", {}, error);
  }
}

/**
 * Records stored before readings existed have none; the same id means the same type and
 * payload, so the reading just taken of the request's item is theirs.
 */
function withReadings(
  records: EvidenceRecordSummary[],
  prepared: readonly Prepared[],
): EvidenceRecordSummary[] {
  return records.map((record, i) =>
    record.reading ? record : { ...record, reading: prepared[i].record.reading }
  );
}
