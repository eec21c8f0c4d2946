/**
 * A short-lived in-process cache of what public reads resolve per slug
 * (the project and its latest publication). Public responses carry
 * `Cache-Control: public, s-maxage=300`, so shared caches may serve them for
 * five minutes anyway; holding the pointer for one second per instance keeps
 * the hot path off KV without widening that window. Writes in this process
 * (publish, project changes) drop the cache at once, so a reader here never
 * sees an older version than the one just written.
 */
import type { Project } from "../domain/workspace.ts";
import { getProjectBySlug } from "../store/projects.ts";
import type { Publication } from "../domain/publication.ts";
import { getLatestPublication } from "../store/publications.ts";

export interface PublicView {
  project: Project | null;
  publication: Publication | null;
}

export interface PublicCache {
  /** The project and latest publication of `slug`, from memory when fresh. */
  get(kv: Deno.Kv, slug: string): Promise<PublicView>;
  /** The fresh, already resolved view of `slug`, or undefined (then use `get`). */
  peek(slug: string): PublicView | undefined;
  /** Forgets everything; called after any local write that public reads depend on. */
  invalidate(): void;
}

const MAX_ENTRIES = 10_000;

export function createPublicCache(
  options: { ttlMs?: number; now?: () => number } = {},
): PublicCache {
  const ttl = options.ttlMs ?? 1000;
  const now = options.now ?? (() => performance.now());
  let generation = 0;
  const entries = new Map<
    string,
    { at: number; generation: number; view: Promise<PublicView>; resolved?: PublicView }
  >();
  return {
    peek(slug) {
      const hit = entries.get(slug);
      if (hit && hit.generation === generation && now() - hit.at < ttl) return hit.resolved;
      return undefined;
    },
    get(kv, slug) {
      const hit = entries.get(slug);
      if (hit && hit.generation === generation && now() - hit.at < ttl) return hit.view;
      const view = (async () => {
        const project = await getProjectBySlug(kv, slug);
        const publication = project ? await getLatestPublication(kv, project.id) : null;
        return { project, publication };
      })();
      if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
      const entry: {
        at: number;
        generation: number;
        view: Promise<PublicView>;
        resolved?: PublicView;
      } = { at: now(), generation, view };
      entries.set(slug, entry);
      view.then((resolved) => entry.resolved = resolved, () => entries.delete(slug));
      return view;
    },
    invalidate() {
      generation++;
      entries.clear();
    },
  };
}
