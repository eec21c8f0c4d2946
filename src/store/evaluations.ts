/**
 * Stored control evaluations: one snapshot per project, replaced as a whole
 * by each recompute. A snapshot is a list split into chunks that each fit a
 * KV value, written under a fresh id before a head entry is pointed at it in
 * one small atomic, so readers see one whole snapshot or the one before,
 * whatever the number of controls, and the atomic stays far from KV's
 * per-operation limits. Snapshots never go back in time: a head evaluated at
 * T2 is not replaced by one evaluated at T1 < T2.
 */
import type { ControlEvaluationSummary } from "../domain/publish.ts";
import { getManyChunked, splitBySize } from "./_chunks.ts";
import {
  evaluationChunkKey,
  evaluationPendingKey,
  evaluationsHeadKey,
  evaluationsOfProjectPrefix,
  evaluationsPendingPrefix,
} from "./keys.ts";

interface EvaluationsHead {
  snapshotId: string;
  /** Evaluation instant (ISO 8601) of every evaluation in the snapshot. */
  at: string;
  chunks: number;
}

interface Pending {
  chunks: number;
  startedAtMs: number;
}

/** A snapshot unfinished this long was left by a crashed writer, and is removed. */
const ABANDONED_AFTER_MS = 60 * 60 * 1000;
const READ_ATTEMPTS = 10;
const SWAP_ATTEMPTS = 50;

export interface StoredEvaluations {
  head: Deno.KvEntryMaybe<EvaluationsHead>;
  /** Evaluation instant of the stored evaluations, null when there are none. */
  at: string | null;
  evaluations: ControlEvaluationSummary[];
  /** Entries of the one-per-control layout, replaced by the first snapshot. */
  legacyKeys: Deno.KvKey[];
}

const chunkKeys = (projectId: string, snapshotId: string, chunks: number) =>
  Array.from({ length: chunks }, (_, i) => evaluationChunkKey(projectId, snapshotId, i));

async function readLegacy(kv: Deno.Kv, projectId: string) {
  const entries: Deno.KvEntry<ControlEvaluationSummary>[] = [];
  for await (
    const entry of kv.list<ControlEvaluationSummary>({
      prefix: evaluationsOfProjectPrefix(projectId),
    })
  ) entries.push(entry);
  return entries;
}

/**
 * The project's stored evaluations and the head they were read through. A
 * head that moves while its chunks are read is read again.
 */
export async function readEvaluations(kv: Deno.Kv, projectId: string): Promise<StoredEvaluations> {
  for (let attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
    const head = await kv.get<EvaluationsHead>(evaluationsHeadKey(projectId));
    if (head.value === null) {
      const legacy = await readLegacy(kv, projectId);
      return {
        head,
        at: legacy[0]?.value.updatedAt ?? null,
        evaluations: legacy.map((e) => e.value),
        legacyKeys: legacy.map((e) => e.key),
      };
    }
    const { snapshotId, chunks, at } = head.value;
    const parts = await getManyChunked<ControlEvaluationSummary[]>(
      kv,
      chunkKeys(projectId, snapshotId, chunks),
    );
    // A missing chunk means a newer snapshot replaced this one meanwhile.
    if (parts.every((p) => p.value !== null)) {
      return { head, at, evaluations: parts.flatMap((p) => p.value!), legacyKeys: [] };
    }
  }
  throw new Error(`Evaluations of project "${projectId}" kept changing while being read`);
}

export type StoreEvaluationsResult =
  | { stored: true; previous: ControlEvaluationSummary[] }
  | { stored: false; current: StoredEvaluations };

/** Removes a snapshot's chunks and its pending marker (a writer that lost, or crashed). */
async function discard(kv: Deno.Kv, projectId: string, snapshotId: string, chunks: number) {
  const op = kv.atomic().delete(evaluationPendingKey(projectId, snapshotId));
  for (const key of chunkKeys(projectId, snapshotId, chunks)) op.delete(key);
  await op.commit();
}

/** Removes snapshots whose writer started long ago and never finished (it crashed). */
async function sweepAbandoned(kv: Deno.Kv, projectId: string, nowMs: number) {
  for await (const entry of kv.list<Pending>({ prefix: evaluationsPendingPrefix(projectId) })) {
    if (entry.value.startedAtMs < nowMs - ABANDONED_AFTER_MS) {
      await discard(kv, projectId, String(entry.key[2]), entry.value.chunks);
    }
  }
}

/**
 * Stores `evaluations`, all evaluated at `at`, as the project's snapshot,
 * unless the stored one was evaluated later: then nothing is stored and the
 * newer stored evaluations are returned. Concurrent writers each store a
 * whole snapshot; the head swap checks the head it replaces, so `previous`
 * is exactly what this write replaced.
 */
export async function storeEvaluations(
  kv: Deno.Kv,
  projectId: string,
  next: { at: Date; evaluations: ControlEvaluationSummary[] },
): Promise<StoreEvaluationsResult> {
  const snapshotId = crypto.randomUUID();
  const chunks = splitBySize(next.evaluations);
  const pendingKey = evaluationPendingKey(projectId, snapshotId);
  // Times come from the evaluation instant (the injected clock), not the wall clock.
  const pending = await kv.set(pendingKey, {
    chunks: chunks.length,
    startedAtMs: next.at.getTime(),
  });
  await Promise.all(
    chunks.map((chunk, i) => kv.set(evaluationChunkKey(projectId, snapshotId, i), chunk)),
  );
  for (let attempt = 0; attempt < SWAP_ATTEMPTS; attempt++) {
    const current = await readEvaluations(kv, projectId);
    if (current.at !== null && Date.parse(current.at) > next.at.getTime()) {
      await discard(kv, projectId, snapshotId, chunks.length);
      return { stored: false, current };
    }
    const head: EvaluationsHead = { snapshotId, at: next.at.toISOString(), chunks: chunks.length };
    const op = kv.atomic()
      .check(current.head)
      .check({ key: pendingKey, versionstamp: pending.versionstamp })
      .set(evaluationsHeadKey(projectId), head)
      .delete(pendingKey);
    const old = current.head.value;
    for (const key of old ? chunkKeys(projectId, old.snapshotId, old.chunks) : []) op.delete(key);
    for (const key of current.legacyKeys) op.delete(key);
    if ((await op.commit()).ok) {
      await sweepAbandoned(kv, projectId, next.at.getTime());
      return { stored: true, previous: current.evaluations };
    }
    if ((await kv.get(pendingKey)).versionstamp !== pending.versionstamp) {
      // Only a writer that stored a snapshot evaluated over an hour later sweeps a pending
      // one away: this write lost to newer evaluations, which is not an error.
      const latest = await readEvaluations(kv, projectId);
      if (latest.at !== null && Date.parse(latest.at) > next.at.getTime()) {
        return { stored: false, current: latest };
      }
      throw new Error(`Evaluation snapshot "${snapshotId}" was removed before it was stored`);
    }
    // Another snapshot landed in between; back off a little so writers spread out.
    await new Promise((r) => setTimeout(r, Math.random() * 5 * (attempt + 1)));
  }
  await discard(kv, projectId, snapshotId, chunks.length);
  throw new Error("Evaluations changed concurrently on every attempt");
}
