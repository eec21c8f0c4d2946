/**
 * Choosing a free slug for a record whose slug the caller did not give.
 */
import { slugify } from "../domain/common.ts";
import type { DeletionKind } from "../domain/deletion.ts";
import { tombstoneKey } from "./deletions.ts";

/**
 * Candidate slugs for `name`: the slugified name, then `-2`, `-3`, … and
 * finally random suffixes, so a taken name never blocks creation.
 */
export function* slugCandidates(name: string, fallback: string): Generator<string> {
  const base = slugify(name).slice(0, 56).replace(/(?<!-)-+$/g, "") || fallback;
  yield base;
  for (let n = 2; n <= 20; n++) yield `${base}-${n}`;
  for (;;) yield `${base}-${crypto.randomUUID().slice(0, 6)}`;
}

/**
 * The first candidate whose index key is free and that no deleted `kind` left reserved (its
 * tombstone, src/store/deletions.ts), read at call time (the creating commit checks both).
 */
export async function firstFreeSlug(
  kv: Deno.Kv,
  candidates: Iterable<string>,
  indexKey: (slug: string) => Deno.KvKey,
  kind: DeletionKind,
): Promise<string> {
  for (const slug of candidates) {
    const [index, tombstone] = await kv.getMany([indexKey(slug), await tombstoneKey(kind, slug)]);
    if (index.versionstamp === null && tombstone.versionstamp === null) return slug;
  }
  throw new Error("unreachable: slug candidates are infinite");
}
