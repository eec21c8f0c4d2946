/**
 * Splitting lists that outgrow one KV value (64 KiB) into chunks, each of
 * which fits with room to spare, by the size KV itself measures: the value's
 * V8 serialization.
 */
import { serialize } from "node:v8";

/** Serialized bytes per chunk: well under KV's 64 KiB per value. */
export const CHUNK_BYTES = 48 * 1024;

/** The serialized size of `value`, as KV counts it (give or take a header byte or two). */
export function serializedSize(value: unknown): number {
  return serialize(value).length;
}

/**
 * Splits `items` in order into chunks whose serialized size stays under
 * `maxBytes`. An item larger than `maxBytes` on its own gets a chunk of its
 * own (and KV refuses it): callers bound item sizes well below it.
 */
export function splitBySize<T>(items: readonly T[], maxBytes = CHUNK_BYTES): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    // An array of n items costs its items plus a few bytes of framing each.
    const size = serializedSize(item) + 8;
    if (current.length > 0 && bytes + size > maxBytes) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/** `getMany` for any number of keys (KV reads at most 10 per call), in order. */
export async function getManyChunked<T>(
  kv: Deno.Kv,
  keys: readonly Deno.KvKey[],
): Promise<Deno.KvEntryMaybe<T>[]> {
  const groups: Promise<Deno.KvEntryMaybe<T>[]>[] = [];
  for (let i = 0; i < keys.length; i += 10) {
    groups.push(kv.getMany<T[]>(keys.slice(i, i + 10)) as Promise<Deno.KvEntryMaybe<T>[]>);
  }
  return (await Promise.all(groups)).flat();
}
