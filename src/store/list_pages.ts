/**
 * Lists read in pages, in the order they are shown: an organization's projects (oldest first,
 * then by slug), members (oldest first), subscribers (newest first), and a project's collectors
 * and domains (oldest first). Each has an order index kept in the same commit as its records,
 * `[collection, parentId, createdAt, (slug,) id] → id`, so a page lists its own entries from a
 * cursor and reads their records, whatever the size of the whole list.
 *
 * The key equal to the prefix (`[collection, parentId]`) marks an index as complete. A list
 * without it (written before the index existed) is read whole once through its former index,
 * and its entries written, then the marker. Writers keep the entries whether or not the marker
 * exists. An entry whose record is gone (a removal the index missed, an expired claim) is
 * skipped and deleted when a page meets it.
 */
import { getManyChunked } from "./_chunks.ts";

/** The order index's prefix of each list (its exact key is the "complete" marker). */
const PREFIXES = {
  projects: (organizationId: string) => ["projects_by_created", organizationId] as const,
  members: (organizationId: string) => ["memberships_by_created", organizationId] as const,
  subscribers: (organizationId: string) => ["subscriptions_by_created", organizationId] as const,
  collectors: (projectId: string) => ["collectors_by_created", projectId] as const,
  domains: (projectId: string) => ["domains_by_created", projectId] as const,
};
export type OrderedList = keyof typeof PREFIXES;

/** The lists kept in order, by the collection of their order index. */
export const ORDER_COLLECTIONS = Object.fromEntries(
  Object.entries(PREFIXES).map(([list, prefix]) => [list, prefix("")[0]]),
) as Record<OrderedList, string>;

/** Key parts after the parent: the sort parts and the id. */
const PARTS: Record<OrderedList, number> = {
  projects: 3,
  members: 2,
  subscribers: 2,
  collectors: 2,
  domains: 2,
};

/** Most index entries one page looks at past the page itself (stale or hidden ones). */
const MAX_SKIPPED = 200;

/** The order index's prefix of one list (its exact key is the "complete" marker). */
export const orderPrefix = (list: OrderedList, parentId: string): Deno.KvKey =>
  PREFIXES[list](parentId);

/** The order key of one item: its sort parts (createdAt, then slug for projects) and its id. */
export const orderKey = (
  list: OrderedList,
  parentId: string,
  parts: readonly string[],
) => [...PREFIXES[list](parentId), ...parts];

/** Adds an item's order entry to `op` (with the record's expiry, when it has one). */
export function stageOrder(
  op: Deno.AtomicOperation,
  list: OrderedList,
  parentId: string,
  parts: readonly string[],
  options?: { expireIn?: number },
): Deno.AtomicOperation {
  return op.set(orderKey(list, parentId, parts), parts.at(-1)!, options);
}

/** Adds the removal of an item's order entry to `op`. */
export function unstageOrder(
  op: Deno.AtomicOperation,
  list: OrderedList,
  parentId: string,
  parts: readonly string[],
): Deno.AtomicOperation {
  return op.delete(orderKey(list, parentId, parts));
}

/** The cursor naming an order entry: its parts, as base64url of their JSON. */
export function encodeCursor(parts: readonly string[]): string {
  const bytes = new TextEncoder().encode(JSON.stringify(parts));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_")
    .replace(/(?<!=)=+$/, "");
}

/** The parts a cursor of `list` names, or null when it is not one of its cursors. */
export function decodeCursor(list: OrderedList, cursor: string): string[] | null {
  if (!/^[A-Za-z0-9_-]{1,600}$/.test(cursor)) return null;
  try {
    const text = atob(cursor.replaceAll("-", "+").replaceAll("_", "/"));
    const parts: unknown = JSON.parse(
      new TextDecoder("utf-8", { fatal: true }).decode(
        Uint8Array.from(text, (c) => c.charCodeAt(0)),
      ),
    );
    if (
      !Array.isArray(parts) || parts.length !== PARTS[list] ||
      !parts.every((p) => typeof p === "string" && p.length > 0 && p.length <= 200)
    ) return null;
    return parts;
  } catch {
    return null;
  }
}

/** How one list reads its records and builds its index from the former one. */
export interface OrderedSource<T> {
  list: OrderedList;
  parentId: string;
  /** Newest first (subscribers) instead of oldest first. */
  reverse?: boolean;
  /** The record keys of `ids`, in order. */
  recordKeys: (ids: string[]) => Deno.KvKey[];
  /** Whether a stored record is shown (a lapsed claim, an expired sign-up is not). */
  shown?: (record: T) => boolean;
  /** An item's order parts (sort parts then id). */
  partsOf: (record: T) => string[];
  /** The whole list through its former index, for a list indexed before the order index. */
  legacy: () => Promise<T[]>;
}

/** One page: its records in order and the cursor of the next, or null on the last. */
export interface Page<T> {
  values: T[];
  nextCursor: string | null;
}

/** Writes the order index of a list that has none yet, then its marker. */
async function ensureIndexed<T>(kv: Deno.Kv, source: OrderedSource<T>): Promise<void> {
  const marker = orderPrefix(source.list, source.parentId);
  if ((await kv.get(marker)).versionstamp !== null) return;
  const all = await source.legacy();
  for (let i = 0; i < all.length; i += 100) {
    const op = kv.atomic();
    for (const record of all.slice(i, i + 100)) {
      stageOrder(op, source.list, source.parentId, source.partsOf(record));
    }
    await op.commit();
  }
  await kv.set(marker, true);
}

/**
 * The page of `limit` items after `cursor` (parts from `decodeCursor`), reading only its own
 * index entries and records (and at most `MAX_SKIPPED` entries of hidden or gone ones; a page
 * cut short by them still gives the cursor after the last entry it looked at).
 */
export async function readOrderedPage<T>(
  kv: Deno.Kv,
  source: OrderedSource<T>,
  page: { cursor: string[] | null; limit: number },
): Promise<Page<T>> {
  await ensureIndexed(kv, source);
  const prefix = orderPrefix(source.list, source.parentId);
  const from = page.cursor ? orderKey(source.list, source.parentId, page.cursor) : null;
  const selector: Deno.KvListSelector = !from
    ? { prefix }
    : source.reverse
    ? { prefix, end: from }
    : { prefix, start: from };
  const budget = page.limit + 1 + MAX_SKIPPED;
  const iterator = kv.list<string>(selector, {
    reverse: source.reverse ?? false,
    limit: budget + 1,
    batchSize: Math.min(page.limit + 1, 500),
  });
  const kept: { record: T; key: Deno.KvKey }[] = [];
  let batch: Deno.KvEntry<string>[] = [];
  let looked = 0;
  let lastLooked: Deno.KvKey | null = null;
  let exhausted = true;
  const flush = async () => {
    const records = await getManyChunked<T>(kv, source.recordKeys(batch.map((e) => e.value)));
    const stale: Deno.KvKey[] = [];
    batch.forEach((entry, i) => {
      const record = records[i].value;
      if (record === null) stale.push(entry.key);
      else if (!source.shown || source.shown(record)) kept.push({ record, key: entry.key });
    });
    for (const key of stale) await kv.delete(key);
    batch = [];
  };
  for await (const entry of iterator) {
    if (from && !source.reverse && sameKey(entry.key, from)) continue;
    if (looked === budget) {
      exhausted = false;
      break;
    }
    looked++;
    lastLooked = entry.key;
    batch.push(entry);
    if (kept.length + batch.length > page.limit) {
      await flush();
      if (kept.length > page.limit) {
        exhausted = false;
        break;
      }
    }
  }
  if (batch.length > 0) await flush();
  const values = kept.slice(0, page.limit);
  let nextCursor: string | null = null;
  if (kept.length > page.limit) nextCursor = cursorOf(kept[page.limit - 1].key);
  else if (!exhausted && lastLooked) nextCursor = cursorOf(lastLooked);
  return { values: values.map((v) => v.record), nextCursor };
}

function cursorOf(key: Deno.KvKey): string {
  return encodeCursor(key.slice(2).map(String));
}

function sameKey(a: Deno.KvKey, b: Deno.KvKey): boolean {
  return a.length === b.length && a.every((part, i) => part === b[i]);
}
