/**
 * The one commit path for public data. Stored public pages (src/store/edge_pages.ts) are
 * derived from the records: a commit that changes what a page shows must bump the generations
 * those pages were rendered at and stage the render, in the same commit. Instead of each writer
 * remembering to, every collection declares in the key register (`KEY_COLLECTIONS[name].public`,
 * src/store/tenant_keys.ts) which public scope its writes alter, and the service's KV is wrapped
 * here: a commit (atomic or single set/delete) that mutates a key of a public collection gets the
 * touch of the page groups that read what it mutated (src/domain/stored_urls.ts declares what each
 * stored URL reads) added before it is sent. A writer cannot forget, and a new
 * collection cannot be registered without saying whether it is public (the type requires it;
 * tests/store/public_writes_test.ts checks every commit of a whole tenant's life).
 *
 * Only the tenant's removal itself (the deletion job, src/lifecycle/deletion.ts) writes around
 * it, through `untracked`: it removes the pages with the data and re-renders once, at its end.
 */
import type { Clock } from "../lib/clock.ts";
import { type PublicChange, stageTouch } from "./edge_pages.ts";
import { projectKey } from "./keys.ts";
import { KEY_COLLECTIONS } from "./tenant_keys.ts";

/** Pages a write alters: an organization's (every page of it) or one project's. */
export type PublicTarget =
  | { organizationId: string; projectId?: undefined }
  | { organizationId?: string; projectId: string };

/**
 * What a write to a collection changes of the public pages:
 * - `"none"`: nothing public is rendered from it (private data, or an index derived from a
 *   public record that is written in the same commit as that record);
 * - `{ project: i }` / `{ organization: i }`: the key's part `i` names the project or the
 *   organization whose pages it alters;
 * - `{ targets }`: the record (the value written, or for a removal the value removed) says which.
 */
export type PublicEffect =
  | "none"
  | { project: number }
  | { organization: number }
  | { targets: (key: Deno.KvKey, value: unknown) => PublicTarget[] };

/** The effect declared for `key`'s collection ("none" for a collection nobody registered). */
export function effectOf(key: Deno.KvKey): PublicEffect {
  return KEY_COLLECTIONS[String(key[0])]?.public ?? "none";
}

/** The largest number of keys one `getMany` reads (denokv's 10 read ranges per request). */
const READ_BATCH = 10;
/** Project ids and their organizations, which never change: kept to save the read. */
const ORGANIZATION_OF_PROJECT_LIMIT = 10_000;

type Mutation = { key: Deno.KvKey; value: unknown; removed: boolean };

/** What one organization's public data lost or gained in a commit, by collection. */
type Change = { organization: Set<string>; projects: Map<string, Set<string>> };

/** The touches (organization → what changed of its public data) a list of mutations needs. */
async function changesOf(
  kv: Deno.Kv,
  mutations: readonly Mutation[],
  organizationOf: (projectId: string) => Promise<string | null>,
): Promise<Map<string, PublicChange>> {
  const targets: { collection: string; target: PublicTarget }[] = [];
  const removedRecords: Mutation[] = [];
  for (const mutation of mutations) {
    const collection = String(mutation.key[0]);
    const effect = effectOf(mutation.key);
    if (effect === "none") continue;
    if ("project" in effect) {
      targets.push({ collection, target: { projectId: String(mutation.key[effect.project]) } });
    } else if ("organization" in effect) {
      targets.push({
        collection,
        target: { organizationId: String(mutation.key[effect.organization]) },
      });
    } else if (mutation.removed) removedRecords.push(mutation);
    else {
      for (const target of effect.targets(mutation.key, mutation.value)) {
        targets.push({ collection, target });
      }
    }
  }
  // A removal's record says whose it was: read before the commit removes it.
  for (let i = 0; i < removedRecords.length; i += READ_BATCH) {
    const batch = removedRecords.slice(i, i + READ_BATCH);
    const entries = await kv.getMany(batch.map((m) => m.key));
    entries.forEach((entry, j) => {
      const effect = effectOf(batch[j].key);
      if (entry.value !== null && typeof effect === "object" && "targets" in effect) {
        for (const target of effect.targets(entry.key, entry.value)) {
          targets.push({ collection: String(batch[j].key[0]), target });
        }
      }
    });
  }
  // A project whose record this same commit writes (its creation, or an organization's import,
  // which writes a project's record with its versions) is that record's organization's.
  const written = new Map<string, string>();
  for (const mutation of mutations) {
    const value = mutation.value as { organizationId?: unknown } | null | undefined;
    if (mutation.key[0] === "projects" && !mutation.removed) {
      if (typeof value?.organizationId === "string") {
        written.set(String(mutation.key[1]), value.organizationId);
      }
    }
  }
  const changes = new Map<string, Change>();
  for (const { collection, target } of targets) {
    const organizationId = target.organizationId ??
      (target.projectId
        ? (await organizationOf(target.projectId)) ?? written.get(target.projectId)
        : null);
    // A project not stored (any more) has no pages to render.
    if (!organizationId) continue;
    let change = changes.get(organizationId);
    if (!change) {
      change = { organization: new Set(), projects: new Map() };
      changes.set(organizationId, change);
    }
    if (target.projectId === undefined) change.organization.add(collection);
    else {
      const set = change.projects.get(target.projectId) ?? new Set<string>();
      set.add(collection);
      change.projects.set(target.projectId, set);
    }
  }
  return changes;
}

const UNTRACKED = Symbol("untracked");

/** Atomic operations made through `untracked`: a deliberate write around the commit path. */
const untrackedOps = new WeakSet<Deno.AtomicOperation>();

/** Whether `op` was made through `untracked` (tests audit every other commit). */
export function isDeliberatelyUntracked(op: Deno.AtomicOperation): boolean {
  return untrackedOps.has(op);
}

/**
 * The KV under `kv` that writes without touching the pages: for the deletion job only (see the
 * module's description). Its commits are marked as such.
 */
export function untracked(kv: Deno.Kv): Deno.Kv {
  const inner = (kv as unknown as { [UNTRACKED]?: Deno.Kv })[UNTRACKED] ?? kv;
  const atomic = () => {
    const op = inner.atomic();
    untrackedOps.add(op);
    return op;
  };
  const wrapped: Partial<Deno.Kv> = {
    atomic,
    set: async (key, value, options) => {
      const result = await atomic().set(key, value, options).commit();
      if (!result.ok) throw new Error("The write was not committed");
      return result;
    },
    delete: async (key) => {
      await atomic().delete(key).commit();
    },
  };
  return new Proxy(inner, {
    get(target, property) {
      if (Object.hasOwn(wrapped, property)) return wrapped[property as keyof Deno.Kv];
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** An atomic operation that records what it mutates and adds the touches when it commits. */
function trackedAtomic(
  kv: Deno.Kv,
  touchesOf: (mutations: Mutation[]) => Promise<Map<string, PublicChange>>,
  now: () => Date,
): Deno.AtomicOperation {
  const inner = kv.atomic();
  const mutations: Mutation[] = [];
  const record = (key: Deno.KvKey, value: unknown, removed: boolean) => {
    if (effectOf(key) !== "none") mutations.push({ key, value, removed });
  };
  const tracked: Deno.AtomicOperation = {
    check(...checks) {
      inner.check(...checks);
      return tracked;
    },
    mutate(...list) {
      for (const m of list) record(m.key, "value" in m ? m.value : undefined, m.type === "delete");
      inner.mutate(...list);
      return tracked;
    },
    sum(key, n) {
      record(key, undefined, false);
      inner.sum(key, n);
      return tracked;
    },
    min(key, n) {
      record(key, undefined, false);
      inner.min(key, n);
      return tracked;
    },
    max(key, n) {
      record(key, undefined, false);
      inner.max(key, n);
      return tracked;
    },
    set(key, value, options) {
      record(key, value, false);
      inner.set(key, value, options);
      return tracked;
    },
    delete(key) {
      record(key, undefined, true);
      inner.delete(key);
      return tracked;
    },
    enqueue(value, options) {
      inner.enqueue(value, options);
      return tracked;
    },
    async commit() {
      if (mutations.length > 0) {
        for (const [organizationId, change] of await touchesOf(mutations)) {
          stageTouch(inner, organizationId, change, now());
        }
      }
      return await inner.commit();
    },
  };
  return tracked;
}

/**
 * `kv` with every commit that mutates a public collection carrying its touches. Reads, lists,
 * watches and closing go to `kv` unchanged.
 */
export function trackPublicWrites(kv: Deno.Kv, clock: Pick<Clock, "now">): Deno.Kv {
  if ((kv as unknown as { [UNTRACKED]?: Deno.Kv })[UNTRACKED]) return kv;
  const organizations = new Map<string, string>();
  const organizationOf = async (projectId: string) => {
    const known = organizations.get(projectId);
    if (known) return known;
    const project = await kv.get<{ organizationId: string }>(projectKey(projectId));
    const organizationId = project.value?.organizationId ?? null;
    if (organizationId) {
      if (organizations.size >= ORGANIZATION_OF_PROJECT_LIMIT) organizations.clear();
      organizations.set(projectId, organizationId);
    }
    return organizationId;
  };
  const now = () => clock.now();
  const touchesOf = (mutations: Mutation[]) => changesOf(kv, mutations, organizationOf);
  const atomic = () => trackedAtomic(kv, touchesOf, now);
  const wrapped: Partial<Deno.Kv> & { [UNTRACKED]: Deno.Kv } = {
    [UNTRACKED]: kv,
    atomic,
    set: async (key, value, options) => {
      if (effectOf(key) === "none") return await kv.set(key, value, options);
      const result = await atomic().set(key, value, options).commit();
      if (!result.ok) throw new Error("The write was not committed");
      return result;
    },
    delete: async (key) => {
      if (effectOf(key) === "none") return await kv.delete(key);
      await atomic().delete(key).commit();
    },
  };
  return new Proxy(kv, {
    get(target, property) {
      if (Object.hasOwn(wrapped, property)) return wrapped[property as keyof typeof wrapped];
      const value = Reflect.get(target, property, target);
      // Deno.Kv's methods read private fields, so they must run on the real object.
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
