/**
 * Memory under fuzzed traffic: tests/bench/fuzz_memory.ts runs the fuzzer of
 * tests/http/fuzz_test.ts in a subprocess (with --expose-gc) and prints the JS heap after a
 * forced GC every 500 requests. After a warm-up of 1 000 requests (compiled code, the response
 * validators and the bounded caches fill), 2 000 more must add less than HEAP_BUDGET_MB to
 * the heap. The heap, not RSS, is asserted: RSS follows V8's peaks and the in-memory KV that
 * the fuzzer's own writes fill (docs/hardening.md gives both figures and the command).
 *
 * Anything kept per request shows here: a validator compiled per answer kept about 10 KB a
 * request (20 MB over the measured 2 000); the measured growth is about 4 MB.
 */
import assert from "node:assert/strict";

const WARM_UP = 1_000;
const MEASURED = 2_000;
const HEAP_BUDGET_MB = 12;

Deno.test("[fuzz] 2 000 fuzzed requests after a warm-up keep the heap (after GC) within budget", async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--lock=tests/deno.lock",
      "--v8-flags=--expose-gc",
      "tests/bench/fuzz_memory.ts",
    ],
    env: { FUZZ_REQUESTS: String(WARM_UP + MEASURED), FUZZ_EVERY: "500" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(output.stdout);
  assert.equal(output.code, 0, `${text}\n${new TextDecoder().decode(output.stderr)}`);
  console.log(text.trim());
  const heapAt = new Map<number, number>();
  for (const [, done, heap] of text.matchAll(/^\s*(\d+) requests .*heap ([\d.]+) MB/gm)) {
    heapAt.set(Number(done), Number(heap));
  }
  const before = heapAt.get(WARM_UP);
  const after = heapAt.get(WARM_UP + MEASURED);
  assert.ok(before !== undefined && after !== undefined, `no heap samples in:\n${text}`);
  assert.match(text, / 0 failures$/m, "the fuzzer's own checks pass");
  const growth = after - before;
  assert.ok(
    growth < HEAP_BUDGET_MB,
    `the heap grew ${growth.toFixed(1)} MB over ${MEASURED} requests (budget ${HEAP_BUDGET_MB} MB)`,
  );
});
