/**
 * A backfill of an index added after data existed, run at most once per database: the first
 * call in a process reads the backfill's marker (which the backfill writes when it is done)
 * and runs it when the marker is missing; later calls with the same KV share that promise and
 * cost nothing; a failed run is tried again by the next call.
 */
export function oncePerDatabase<A extends unknown[]>(
  marker: Deno.KvKey,
  backfill: (kv: Deno.Kv, ...args: A) => Promise<unknown>,
): (kv: Deno.Kv, ...args: A) => Promise<void> {
  const ready = new WeakMap<Deno.Kv, Promise<void>>();
  return (kv, ...args) => {
    let done = ready.get(kv);
    if (!done) {
      done = (async () => {
        if ((await kv.get(marker)).value === null) await backfill(kv, ...args);
      })();
      done.catch(() => ready.delete(kv));
      ready.set(kv, done);
    }
    return done;
  };
}
