/**
 * The queue consumer and closing the KV: handlers under way finish their writes on an open
 * KV (no "BadResource" from a handler cut off by the close), and nothing new starts once
 * stopping has begun.
 */
import assert from "node:assert/strict";
import { createQueueConsumer } from "../../src/live/queue.ts";
import { memoryLogger } from "../../src/lib/log.ts";
import { createTestApp } from "../support/app.ts";

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function signal() {
  let fire = () => {};
  const fired = new Promise<void>((resolve) => (fire = resolve));
  return { fire, fired };
}

Deno.test("[live] disposing the test app lets a handler under way finish its writes", async () => {
  const ctx = await createTestApp({ queue: true });
  const started = signal();
  const outcome: { wrote?: boolean; error?: unknown } = {};
  ctx.services.queue.on("test.slow", async () => {
    started.fire();
    await delay(200);
    try {
      outcome.wrote = (await ctx.kv.set(["test", "slow"], "done")).ok;
    } catch (error) {
      outcome.error = error;
    }
  });
  await ctx.kv.enqueue({ kind: "test.slow" });
  await started.fired;
  await ctx[Symbol.asyncDispose]();
  assert.equal(outcome.error, undefined, String(outcome.error));
  assert.equal(outcome.wrote, true);
});

Deno.test("[live] once stopping, the consumer starts no handler; the close ends it", async () => {
  const kv = await Deno.openKv(":memory:");
  const consumer = createQueueConsumer({ kv, log: memoryLogger() });
  const first = signal();
  const stopping = signal();
  const handled: string[] = [];
  consumer.on("test.first", async () => {
    handled.push("first");
    first.fire();
    await stopping.fired;
    await kv.enqueue({ kind: "test.second" });
    await delay(300);
    await kv.set(["test", "first"], "done");
  });
  consumer.on("test.second", async () => {
    handled.push("second");
    await kv.set(["test", "second"], "done");
  });
  const listening = consumer.start();
  await kv.enqueue({ kind: "test.first" });
  await first.fired;
  let closed = false;
  const stopped = consumer.stop(() => {
    closed = true;
    kv.close();
  });
  stopping.fire();
  await stopped;
  await listening;
  assert.equal(closed, true);
  assert.deepEqual(handled, ["first"]);
});
