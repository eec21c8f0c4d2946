/**
 * The latest trust pages with their live block, kept for one second per instance. The block
 * reads several collections and renders vendor Markdown, which made a page about six times
 * dearer than the published artifact (`tests/bench/trust_page.ts`); holding the composed page
 * for a second keeps a busy page off KV without widening the five minutes shared caches may
 * keep it anyway (`s-maxage=300`). Any successful write through this instance drops every
 * entry at once, so a writer here never reads its own change as missing; other instances see
 * it within the second.
 */

/** A composed latest page: its bytes, ETag and Content-Security-Policy. */
export interface LivePage {
  bytes: Uint8Array<ArrayBuffer>;
  etag: string;
  csp: string;
}

export interface LivePageCache {
  /** The page under `key` from memory when fresh, else built (one build per key at a time). */
  get(key: string, build: () => Promise<LivePage>): Promise<LivePage>;
  /** Forgets everything; called after every successful local write. */
  invalidate(): void;
}

const MAX_ENTRIES = 1000;

export function createLivePageCache(
  options: { ttlMs?: number; now?: () => number } = {},
): LivePageCache {
  const ttl = options.ttlMs ?? 1000;
  const now = options.now ?? (() => performance.now());
  let generation = 0;
  const entries = new Map<string, { at: number; generation: number; page: Promise<LivePage> }>();
  return {
    get(key, build) {
      const hit = entries.get(key);
      if (hit && hit.generation === generation && now() - hit.at < ttl) return hit.page;
      const page = build();
      if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
      entries.set(key, { at: now(), generation, page });
      page.catch(() => entries.delete(key));
      return page;
    },
    invalidate() {
      generation++;
      entries.clear();
    },
  };
}
