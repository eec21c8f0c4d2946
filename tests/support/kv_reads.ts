/**
 * Counting the KV entries code reads, for tests and benchmarks that show a read's cost does not
 * grow with the data: a `get` counts one, `getMany` its keys, a list the entries it yields.
 */

/** What `countKvReads` counts: entries read while `on`. */
export interface KvReadCounter {
  on: boolean;
  entries: number;
}

/** Wraps `kv`'s reads (in place, so every caller holding it is counted). */
export function countKvReads(kv: Deno.Kv): KvReadCounter {
  const counter = { on: false, entries: 0 };
  const target = kv as unknown as Record<string, (...args: unknown[]) => unknown>;
  const get = target.get.bind(kv);
  const getMany = target.getMany.bind(kv);
  const list = target.list.bind(kv);
  target.get = (...args) => {
    if (counter.on) counter.entries++;
    return get(...args);
  };
  target.getMany = (...args) => {
    if (counter.on) counter.entries += (args[0] as unknown[]).length;
    return getMany(...args);
  };
  target.list = (...args) => {
    const iterator = list(...args) as Deno.KvListIterator<unknown>;
    const next = iterator.next.bind(iterator);
    iterator.next = async () => {
      const result = await next();
      if (counter.on && !result.done) counter.entries++;
      return result;
    };
    return iterator;
  };
  return counter;
}
