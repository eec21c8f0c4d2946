/**
 * Memory under fuzzed traffic: the app as tests/http/fuzz_test.ts builds it (in-process, in-memory
 * KV), sent FUZZ_REQUESTS fuzzed requests (default 15 000, seed FUZZ_SEED), printing RSS and the
 * JS heap after a forced GC every FUZZ_EVERY requests (default 1 000).
 *
 *   deno run -A --v8-flags=--expose-gc tests/bench/fuzz_memory.ts
 *
 * The heap after GC is what the service keeps; RSS also holds the in-memory KV (SQLite, outside
 * the JS heap) that the fuzzer's own writes fill, and V8's peaks.
 */
import { writeHeapSnapshot } from "node:v8";
import { createTestApp } from "../support/app.ts";
import { fuzz } from "../http/fuzz_test.ts";

const REQUESTS = Number(Deno.env.get("FUZZ_REQUESTS") ?? 15_000);
const SEED = Number(Deno.env.get("FUZZ_SEED") ?? 20261101);
const EVERY = Number(Deno.env.get("FUZZ_EVERY") ?? 1_000);
/** A directory to write a V8 heap snapshot into at every sample (compare two in DevTools). */
const SNAPSHOTS = Deno.env.get("FUZZ_HEAP_SNAPSHOTS");

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --v8-flags=--expose-gc");

/** RSS and the heap after a full collection, in MB. */
export function sample(): { rss: number; heap: number } {
  gc!();
  gc!();
  const { rss, heapUsed } = Deno.memoryUsage();
  return { rss: rss / 2 ** 20, heap: heapUsed / 2 ** 20 };
}

if (import.meta.main) {
  await using ctx = await createTestApp({ env: { SIGNUP: "open", TRUSTED_PROXIES: "127.0.0.1" } });
  const first = sample();
  console.log(`start: rss ${first.rss.toFixed(1)} MB, heap ${first.heap.toFixed(1)} MB`);
  const started = performance.now();
  const report = await fuzz(ctx, {
    seed: SEED,
    count: REQUESTS,
    progress: {
      every: EVERY,
      call: (done) => {
        const now = sample();
        const seconds = ((performance.now() - started) / 1000).toFixed(0);
        console.log(
          `${String(done).padStart(6)} requests (${seconds} s): rss ${now.rss.toFixed(1)} MB, ` +
            `heap ${now.heap.toFixed(1)} MB`,
        );
        if (SNAPSHOTS) writeHeapSnapshot(`${SNAPSHOTS}/fuzz-${done}.heapsnapshot`);
      },
    },
  });
  console.log(`statuses ${JSON.stringify(report.statuses)}; ${report.failures.length} failures`);
}
