/**
 * The blob collector's records: the cycle under way (phase, cursor, counts), the summary of
 * the last cycle that ended, and the marks of the blobs a cycle found referenced. Each step of
 * a cycle commits its marks (or removals of marks) together with the moved state, checked
 * against the state it read, so a cycle resumes exactly where its last commit left it.
 */
import { blobGcLastKey, blobGcMarkKey, blobGcMarksPrefix, blobGcStateKey } from "./keys.ts";

/** The phases of a cycle: mark what is referenced, sweep the rest, clean the marks away. */
export type BlobGcPhase = "mark" | "sweep" | "clean";

/** What a cycle has counted so far. */
export interface BlobGcCounts {
  /** Blob keys marked as referenced (counted once per batch they appear in). */
  marked: number;
  /** Blobs the sweep looked at. */
  examined: number;
  /** Blobs removed, and their bytes. */
  deleted: number;
  deletedBytes: number;
  /** Unreferenced blobs kept because they were stored within the grace. */
  young: number;
}

/** The cycle under way. */
export interface BlobGcState extends BlobGcCounts {
  runId: string;
  phase: BlobGcPhase;
  /** When its mark phase began (epoch ms): blobs stored after `startedAt - graceMs` stay. */
  startedAt: number;
  graceMs: number;
  /** The reference source being read (mark phase), by index. */
  source: number;
  /** Where the phase resumes: a KV list cursor (mark, clean), the last blob key (sweep). */
  cursor: string | null;
}

/** The last cycle that ended. */
export interface BlobGcSummary extends BlobGcCounts {
  startedAt: string;
  completedAt: string;
}

/** Marks left by an abandoned cycle go by themselves after this long. */
const MARK_TTL_MS = 7 * 24 * 3600 * 1000;

export async function getBlobGcState(kv: Deno.Kv): Promise<Deno.KvEntryMaybe<BlobGcState>> {
  return await kv.get<BlobGcState>(blobGcStateKey());
}

export async function getBlobGcSummary(kv: Deno.Kv): Promise<BlobGcSummary | null> {
  return (await kv.get<BlobGcSummary>(blobGcLastKey())).value;
}

/**
 * Commits one step: `marks` (blob keys found referenced) are added, `unmarks` removed, and the
 * state moves from `read` to `next` (null: the cycle ended, `summary` is kept). False when
 * another collector moved the state first.
 */
export async function commitBlobGcStep(
  kv: Deno.Kv,
  read: Deno.KvEntryMaybe<BlobGcState>,
  step: {
    next: BlobGcState | null;
    runId: string;
    marks?: readonly string[];
    unmarks?: readonly Deno.KvKey[];
    summary?: BlobGcSummary;
  },
): Promise<boolean> {
  const op = kv.atomic().check(read);
  for (const key of step.marks ?? []) {
    op.set(blobGcMarkKey(step.runId, key), 1, { expireIn: MARK_TTL_MS });
  }
  for (const key of step.unmarks ?? []) op.delete(key);
  if (step.next) op.set(blobGcStateKey(), step.next);
  else op.delete(blobGcStateKey());
  if (step.summary) op.set(blobGcLastKey(), step.summary);
  return (await op.commit()).ok;
}

/** Which of `keys` cycle `runId` marked. */
export async function markedOf(
  kv: Deno.Kv,
  runId: string,
  keys: readonly string[],
): Promise<Set<string>> {
  const groups = [];
  for (let i = 0; i < keys.length; i += 10) groups.push(keys.slice(i, i + 10));
  const results = await Promise.all(
    groups.map((g) => kv.getMany(g.map((key) => blobGcMarkKey(runId, key)))),
  );
  const marked = new Set<string>();
  results.flat().forEach((entry) => {
    if (entry.versionstamp !== null) marked.add(entry.key[2] as string);
  });
  return marked;
}

/** Up to `limit` mark keys of cycle `runId`, to remove. */
export async function listMarkKeys(
  kv: Deno.Kv,
  runId: string,
  limit: number,
): Promise<Deno.KvKey[]> {
  const keys: Deno.KvKey[] = [];
  for await (const entry of kv.list({ prefix: blobGcMarksPrefix(runId) }, { limit })) {
    keys.push(entry.key);
  }
  return keys;
}
