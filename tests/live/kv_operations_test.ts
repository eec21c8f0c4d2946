/**
 * The live layer runs on every Deno KV: src/ uses no operation that Deno Deploy's database
 * or KV Connect lacks (no queue, no watch). The one exception is the one-time upgrade that
 * drains the queue of earlier releases where a local database still has one. A worker's KV
 * operations per job stay few (each one is a request over KV Connect).
 */
import assert from "node:assert/strict";
import { systemClock } from "../../src/lib/clock.ts";
import { memoryLogger } from "../../src/lib/log.ts";
import { createJobWorker } from "../../src/live/worker.ts";
import { insertJob } from "../../src/store/jobs.ts";

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

Deno.test("[live] a worker claims a look's picks in one commit and ends them in about one more", async () => {
  await using kv = await Deno.openKv(":memory:");
  const JOBS = 60;
  for (let i = 0; i < JOBS; i++) await insertJob(kv, { kind: "noop", i }, { now: new Date() });
  const counts = { commits: 0, reads: 0 };
  const atomic = kv.atomic.bind(kv);
  kv.atomic = () => {
    const op = atomic();
    const commit = op.commit.bind(op);
    op.commit = () => (counts.commits++, commit());
    return op;
  };
  for (const name of ["get", "getMany", "list"] as const) {
    const read = (kv[name] as (...args: unknown[]) => unknown).bind(kv);
    (kv as unknown as Record<string, unknown>)[name] = (
      ...args: unknown[]
    ) => (counts.reads++, read(...args));
  }
  const worker = createJobWorker({ kv, clock: systemClock, log: memoryLogger() });
  let ran = 0;
  worker.on("noop", () => (ran++, Promise.resolve()));
  try {
    while (ran < JOBS) await worker.drain(30_000);
  } finally {
    await worker.stop(() => {});
  }
  // One tenant, 6 running at most: about 10 looks' picks, each claimed in one commit and ended
  // together in one more, and a few commits parking the backlog; about 0.75 reads a job. Ending
  // each run in its own commit, and looking again after every claim, made about 1.2 of each.
  assert.ok(counts.commits <= 0.5 * JOBS, `commits: ${counts.commits}`);
  assert.ok(counts.reads <= 0.9 * JOBS, `reads: ${counts.reads}`);
});
