/**
 * Collector principals. The secret itself is never stored: only its
 * SHA-256, in a unique index used to authenticate.
 */
import type { Collector, CollectorAction, CollectorPrincipal } from "../domain/collector.ts";
import { conflict } from "../domain/errors.ts";
import {
  collectorByProjectKey,
  collectorBySecretHashKey,
  collectorKey,
  collectorLastSeenKey,
  collectorsByProjectPrefix,
} from "./keys.ts";
import { compareCodePoints } from "../lib/order.ts";
import { type Page, readOrderedPage, stageOrder } from "./list_pages.ts";
import { getManyChunked } from "./_chunks.ts";

/** The stored record: the principal without lastSeenAt (kept apart), plus the secret's hash. */
interface StoredCollector extends Omit<CollectorPrincipal, "lastSeenAt"> {
  secretHash: string;
}

const MAX_ATTEMPTS = 10;

function withLastSeen(stored: StoredCollector, lastSeen: Deno.KvU64 | null): Collector {
  return {
    ...stored,
    lastSeenAt: lastSeen ? new Date(Number(lastSeen.value)).toISOString() : null,
  };
}

/** The public shape: everything but the secret's hash. */
export function toPrincipal(collector: Collector): CollectorPrincipal {
  const { secretHash: _hash, ...principal } = collector;
  return principal;
}

export async function createCollector(
  kv: Deno.Kv,
  input: {
    organizationId: string;
    projectId: string;
    name: string;
    allowedActions: CollectorAction[];
    createdByUserId: string;
    secretHash: string;
  },
  now: Date,
): Promise<Collector> {
  const stored: StoredCollector = {
    id: crypto.randomUUID(),
    organizationId: input.organizationId,
    projectId: input.projectId,
    name: input.name,
    type: "cli",
    status: "active",
    allowedActions: input.allowedActions,
    createdByUserId: input.createdByUserId,
    createdAt: now.toISOString(),
    revokedAt: null,
    secretHash: input.secretHash,
  };
  const op = kv.atomic()
    .check({ key: collectorBySecretHashKey(input.secretHash), versionstamp: null })
    .set(collectorKey(stored.id), stored)
    .set(collectorByProjectKey(input.projectId, stored.id), stored.id)
    .set(collectorBySecretHashKey(input.secretHash), stored.id);
  stageOrder(op, "collectors", input.projectId, [stored.createdAt, stored.id]);
  const res = await op.commit();
  if (!res.ok) throw new Error("Collector secret collision");
  return withLastSeen(stored, null);
}

export async function getCollector(kv: Deno.Kv, id: string): Promise<Collector | null> {
  const [stored, lastSeen] = await kv.getMany<[StoredCollector, Deno.KvU64]>([
    collectorKey(id),
    collectorLastSeenKey(id),
  ]);
  return stored.value ? withLastSeen(stored.value, lastSeen.value) : null;
}

export async function getCollectorBySecretHash(
  kv: Deno.Kv,
  hash: string,
): Promise<Collector | null> {
  const index = await kv.get<string>(collectorBySecretHashKey(hash));
  return index.value ? await getCollector(kv, index.value) : null;
}

export async function listCollectorsByProject(
  kv: Deno.Kv,
  projectId: string,
): Promise<Collector[]> {
  const collectors: Collector[] = [];
  for await (const entry of kv.list({ prefix: collectorsByProjectPrefix(projectId) })) {
    const collector = await getCollector(kv, entry.key[2] as string);
    if (collector) collectors.push(collector);
  }
  return collectors.sort((a, b) => compareCodePoints(a.createdAt, b.createdAt));
}

/** One page of a project's collectors, oldest first, after `cursor`. */
export async function listCollectorsPage(
  kv: Deno.Kv,
  projectId: string,
  page: { cursor: string[] | null; limit: number },
): Promise<Page<Collector>> {
  const stored = await readOrderedPage<StoredCollector>(kv, {
    list: "collectors",
    parentId: projectId,
    recordKeys: (ids) => ids.map((id) => collectorKey(id)),
    partsOf: (collector) => [collector.createdAt, collector.id],
    legacy: async () => {
      const ids: string[] = [];
      for await (const entry of kv.list({ prefix: collectorsByProjectPrefix(projectId) })) {
        ids.push(entry.key[2] as string);
      }
      const found = await getManyChunked<StoredCollector>(kv, ids.map((id) => collectorKey(id)));
      return found.flatMap((entry) => entry.value ? [entry.value] : []);
    },
  }, page);
  const seen = await getManyChunked<Deno.KvU64>(
    kv,
    stored.values.map((collector) => collectorLastSeenKey(collector.id)),
  );
  return {
    values: stored.values.map((collector, i) => withLastSeen(collector, seen[i].value)),
    nextCursor: stored.nextCursor,
  };
}

async function change(
  kv: Deno.Kv,
  id: string,
  apply: (stored: StoredCollector, op: Deno.AtomicOperation) => StoredCollector,
): Promise<Collector | null> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const entry = await kv.get<StoredCollector>(collectorKey(id));
    if (!entry.value) return null;
    const op = kv.atomic().check(entry);
    const next = apply(entry.value, op);
    op.set(collectorKey(id), next);
    if ((await op.commit()).ok) {
      return withLastSeen(next, (await kv.get<Deno.KvU64>(collectorLastSeenKey(id))).value);
    }
  }
  throw conflict("The collector changed while it was being updated; please retry");
}

/** Replaces the secret; the old one stops working in the same commit. Revoked collectors cannot rotate. */
export function rotateCollectorSecret(
  kv: Deno.Kv,
  id: string,
  secretHash: string,
): Promise<Collector | null> {
  return change(kv, id, (stored, op) => {
    if (stored.status === "revoked") throw conflict("A revoked collector cannot get a new secret");
    op.delete(collectorBySecretHashKey(stored.secretHash))
      .check({ key: collectorBySecretHashKey(secretHash), versionstamp: null })
      .set(collectorBySecretHashKey(secretHash), id);
    return { ...stored, secretHash };
  });
}

/** Revokes the collector: its secret stops working at once. Idempotent. */
export function revokeCollector(kv: Deno.Kv, id: string, now: Date): Promise<Collector | null> {
  return change(kv, id, (stored, op) => {
    if (stored.status === "revoked") return stored;
    op.delete(collectorBySecretHashKey(stored.secretHash));
    return { ...stored, status: "revoked", revokedAt: now.toISOString() };
  });
}

/** Adds the write that records activity of a collector at `now` (monotonic, no check needed). */
export function touchCollector(op: Deno.AtomicOperation, id: string, now: Date) {
  return op.max(collectorLastSeenKey(id), BigInt(now.getTime()));
}

/** Records that the collector was active at `now` (its last-seen time never goes back). */
export async function markCollectorSeen(kv: Deno.Kv, id: string, now: Date): Promise<void> {
  await touchCollector(kv.atomic(), id, now).commit();
}
