/**
 * Choosing a free slug for a record whose slug the caller did not give.
 */
import { slugify } from "../domain/common.ts";

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

/** The first candidate whose index key is free, read (not reserved) at call time. */
export async function firstFreeSlug(
  kv: Deno.Kv,
  candidates: Iterable<string>,
  indexKey: (slug: string) => Deno.KvKey,
): Promise<string> {
  for (const slug of candidates) {
    if ((await kv.get(indexKey(slug))).versionstamp === null) return slug;
  }
  throw new Error("unreachable: slug candidates are infinite");
}
