/**
 * The live layer runs on every Deno KV: src/ uses no operation that Deno Deploy's database
 * or KV Connect lacks (no queue, no watch). The one exception is the one-time upgrade that
 * drains the queue of earlier releases where a local database still has one.
 */
import assert from "node:assert/strict";

const SRC = new URL("../../src/", import.meta.url);
const ALLOWED = new Set([
  "live/legacy_queue.ts",
  // The commit path wraps Deno.AtomicOperation whole, so it forwards enqueue; nothing calls it.
  "store/public_writes.ts",
]);
/** A queue or watch call; a ReadableStream controller's enqueue is no KV operation. */
const FORBIDDEN = /(?<!controller)\.(enqueue|listenQueue|watch)\s*\(/;

async function* sources(dir: URL): AsyncGenerator<URL> {
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isDirectory) yield* sources(new URL(`${entry.name}/`, dir));
    else if (entry.name.endsWith(".ts")) yield new URL(entry.name, dir);
  }
}

Deno.test("[quality] src/ calls no KV queue or watch (only the one-time upgrade drains a queue)", async () => {
  const found: string[] = [];
  for await (const file of sources(SRC)) {
    const name = file.pathname.slice(SRC.pathname.length);
    const lines = (await Deno.readTextFile(file)).split("\n");
    lines.forEach((line, i) => {
      if (FORBIDDEN.test(line) && !ALLOWED.has(name)) found.push(`src/${name}:${i + 1}: ${line}`);
    });
  }
  assert.deepEqual(found, []);
  const upgrade = await Deno.readTextFile(new URL("live/legacy_queue.ts", SRC));
  assert.doesNotMatch(upgrade, /\.(enqueue|watch)\s*\(/, "the upgrade only listens");
});
