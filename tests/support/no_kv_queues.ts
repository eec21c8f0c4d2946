/**
 * Preloaded before main.ts (`deno run --preload`), this makes Deno KV behave as Deno Deploy's
 * database and KV Connect do: no queue (`enqueue`, `listenQueue`) and no `watch`. Every call
 * fails the way an unsupported operation does, and is counted on stderr, so a test sees any
 * use of them.
 */
function unsupported(name: string) {
  return function () {
    console.error(`KV operation not supported here: ${name}`);
    throw new TypeError(`${name} is not supported by this KV database`);
  };
}

const kv = Deno.Kv.prototype as unknown as Record<string, unknown>;
kv.enqueue = unsupported("enqueue");
kv.listenQueue = unsupported("listenQueue");
kv.watch = unsupported("watch");
(Deno.AtomicOperation.prototype as unknown as Record<string, unknown>).enqueue = unsupported(
  "atomic enqueue",
);
