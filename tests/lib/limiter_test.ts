import assert from "node:assert/strict";
import { createLimiter } from "../../src/lib/limiter.ts";

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => resolve = r);
  return { promise, resolve };
}

Deno.test("[lib] createLimiter() runs at most `concurrency` tasks, queues a bounded number, refuses the rest", async () => {
  const limiter = createLimiter({ concurrency: 2, maxWaiting: 1, maxWaitMs: 10_000 });
  const gate = deferred();
  let peak = 0;
  let running = 0;
  const task = async () => {
    running++;
    peak = Math.max(peak, running);
    await gate.promise;
    running--;
    return "done";
  };
  const first = limiter.run(task);
  const second = limiter.run(task);
  const third = limiter.run(task);
  assert.deepEqual(limiter.stats(), { running: 2, waiting: 1 });
  assert.deepEqual(await limiter.run(task), { ran: false, why: "full" });
  gate.resolve();
  assert.deepEqual(await Promise.all([first, second, third]), [
    { ran: true, value: "done" },
    { ran: true, value: "done" },
    { ran: true, value: "done" },
  ]);
  assert.equal(peak, 2);
  assert.deepEqual(limiter.stats(), { running: 0, waiting: 0 });
});

Deno.test("[lib] createLimiter(): a task that waits too long is refused; waiters run in order", async () => {
  const limiter = createLimiter({ concurrency: 1, maxWaiting: 5, maxWaitMs: 30 });
  const gate = deferred();
  const holder = limiter.run(() => gate.promise);
  assert.deepEqual(await limiter.run(() => Promise.resolve(1)), { ran: false, why: "timeout" });
  assert.deepEqual(limiter.stats(), { running: 1, waiting: 0 });
  const order: number[] = [];
  const slow = createLimiter({ concurrency: 1, maxWaiting: 5, maxWaitMs: 10_000 });
  const slowGate = deferred();
  const held = slow.run(() => slowGate.promise);
  const queued = [1, 2, 3].map((n) => slow.run(() => Promise.resolve(order.push(n))));
  slowGate.resolve();
  await Promise.all([held, ...queued]);
  assert.deepEqual(order, [1, 2, 3]);
  gate.resolve();
  await holder;
  assert.deepEqual(limiter.stats(), { running: 0, waiting: 0 });
});

Deno.test("[lib] createLimiter(): a task that throws gives its slot back", async () => {
  const limiter = createLimiter({ concurrency: 1, maxWaiting: 0, maxWaitMs: 10 });
  await assert.rejects(limiter.run(() => Promise.reject(new Error("boom"))), /boom/);
  assert.deepEqual(await limiter.run(() => Promise.resolve(2)), { ran: true, value: 2 });
});
