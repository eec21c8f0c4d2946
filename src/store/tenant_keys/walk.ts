/**
 * How the enumerations of a tenant's keys walk the KV: listing by prefix, scanning a
 * collection with no tenant index, dropping repeats, and the keys of stored pages and jobs that
 * project, organization and user share.
 *
 * @module
 */
import type { Job } from "../../domain/jobs.ts";
import { jobDueKey, jobKey } from "../keys.ts";
import { CompactStringSet } from "../../lib/compact_set.ts";

const CODINGS = ["identity", "gzip", "br"] as const;

/** Keys as they are found, possibly more than once (`distinct` drops the repeats). */
export type Found = AsyncGenerator<Deno.KvKey>;

export async function* listKeys(kv: Deno.Kv, prefix: Deno.KvKey): Found {
  for await (const entry of kv.list({ prefix }, { batchSize: 500 })) yield entry.key;
}

/** Entries of a whole collection whose value passes `match` (collections with no index). */
export async function* scan<T>(
  kv: Deno.Kv,
  collection: string,
  match: (value: T, key: Deno.KvKey) => boolean,
): Found {
  for await (const entry of kv.list<T>({ prefix: [collection] }, { batchSize: 500 })) {
    if (entry.value !== null && match(entry.value, entry.key)) yield entry.key;
  }
}

/**
 * Keys yielded once each, in the order found, as they are found: nothing is gathered ahead of
 * the reader; what stays is each yielded key's text in a `CompactStringSet` (to drop repeats),
 * so the memory of a walk is its keys' bytes and 16 more per key, outside the JS heap's
 * objects, not the keys and their entries.
 */
export async function* distinct(found: Found): AsyncGenerator<Deno.KvKey> {
  const seen = new CompactStringSet();
  for await (const key of found) {
    if (seen.add(keyText(key))) yield key;
  }
}

/** A key as one string, distinct for distinct keys (parts tagged by type). */
function keyText(key: Deno.KvKey): string {
  let text = "";
  for (const part of key) {
    if (typeof part === "string") text += `s${JSON.stringify(part)}`;
    else if (typeof part === "number") text += `n${Object.is(part, -0) ? "-0" : part};`;
    else if (typeof part === "bigint") text += `b${part};`;
    else if (typeof part === "boolean") text += part ? "t" : "f";
    else text += `u${Array.from(part as Uint8Array).join(".")};`;
  }
  return text;
}

/**
 * The keys of stored pages of one edge scope (a project's id, or the trust center's): each
 * group's state lists its paths; the generations of the scope's groups (and of the form of
 * earlier releases, one state and generation per scope).
 */
export async function* edgeScopeKeys(kv: Deno.Kv, organizationId: string, scope: string): Found {
  const legacy = ["edge_state", organizationId, scope];
  const states = [await kv.get<{ paths?: string[]; writing?: string[] }>(legacy)];
  for await (
    const entry of kv.list<{ paths?: string[]; writing?: string[] }>({ prefix: legacy })
  ) states.push(entry);
  for (const state of states) {
    for (const entry of state.value?.paths ?? []) {
      const space = entry.indexOf(" ");
      for (const coding of CODINGS) {
        yield ["edge_page", entry.slice(space + 1), entry.slice(0, space), coding];
      }
    }
    // Paths a render announced before writing them (src/edge/render.ts), in every variant.
    for (const path of state.value?.writing ?? []) {
      for (const variant of ["any", "html", "md", "json"]) {
        for (const coding of CODINGS) yield ["edge_page", path, variant, coding];
      }
    }
    if (state.versionstamp !== null) yield state.key;
  }
  const generation = ["edge_gen", organizationId, scope];
  if ((await kv.get(generation)).versionstamp !== null) yield generation;
  yield* listKeys(kv, generation);
}

/** The job keys of `job` (record, due entries, dead entry). */
function* jobKeys(job: Job): Generator<Deno.KvKey> {
  yield jobKey(job.id);
  if (job.state === "dead" && job.deadAt) yield ["jobs_dead", Date.parse(job.deadAt), job.id];
  else yield jobDueKey(job.dueAt, job.id);
}

/** The waiting and dead jobs of an organization that `match`, with their index entries. */
export async function* tenantJobKeys(
  kv: Deno.Kv,
  organizationId: string,
  match: (job: Job) => boolean,
): Found {
  for await (
    const entry of kv.list({ prefix: ["jobs_due_by_tenant", organizationId] }, { batchSize: 500 })
  ) {
    const id = entry.key[entry.key.length - 1] as string;
    const job = (await kv.get<Job>(jobKey(id))).value;
    // An entry whose job is gone (removed while it ran) leads nowhere: it and the time
    // index's entry of the same job are the tenant's to remove.
    if (!job) {
      yield entry.key;
      yield jobDueKey(entry.key[3] as number, id);
    } else if (match(job)) {
      yield entry.key;
      yield* jobKeys(job);
    }
  }
  for await (const entry of kv.list<string>({ prefix: ["jobs_dead"] }, { batchSize: 500 })) {
    const job = (await kv.get<Job>(jobKey(entry.value))).value;
    if (job && (job.tag?.tenant ?? "") === organizationId && match(job)) yield* jobKeys(job);
  }
}
