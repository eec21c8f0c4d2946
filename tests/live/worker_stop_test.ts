/**
 * The job worker and closing the KV: handlers under way finish their writes on an open KV
 * (no "BadResource" from a handler cut off by the close), and nothing new starts once
 * stopping has begun; a stop with a deadline (SIGINT on Deno Deploy) releases what still runs.
 */
import assert from "node:assert/strict";
import { createJobWorker } from "../../src/live/worker.ts";
import { systemClock } from "../../src/lib/clock.ts";
import { memoryLogger } from "../../src/lib/log.ts";
import { insertJob, listDueJobs } from "../../src/store/jobs.ts";
import { jobKey } from "../../src/store/keys.ts";
import type { Job } from "../../src/domain/jobs.ts";
import { createTestApp } from "../support/app.ts";

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function signal() {
  let fire = () => {};
  const fired = new Promise<void>((resolve) => (fire = resolve));
  return { fire, fired };
}

Deno.test("[live] disposing the test app lets a handler under way finish its writes", async () => {
  const ctx = await createTestApp({ worker: true });
  const started = signal();
  const outcome: { wrote?: boolean; error?: unknown } = {};
  ctx.services.jobs.on("test.slow", async () => {
    started.fire();
    await delay(200);
    try {
      outcome.wrote = (await ctx.kv.set(["test", "slow"], "done")).ok;
    } catch (error) {
      outcome.error = error;
    }
  });
  await insertJob(ctx.kv, { kind: "test.slow" }, { now: ctx.clock.now() });
  await started.fired;
  await ctx[Symbol.asyncDispose]();
  assert.equal(outcome.error, undefined, String(outcome.error));
  assert.equal(outcome.wrote, true);
});

Deno.test("[live] once stopping, the worker starts no job; then the KV closes", async () => {
  const kv = await Deno.openKv(":memory:");
  const consumer = createJobWorker({ kv, log: memoryLogger(), clock: systemClock });
  const first = signal();
  const stopping = signal();
  const handled: string[] = [];
  consumer.on("test.first", async () => {
    handled.push("first");
    first.fire();
    await stopping.fired;
    await insertJob(kv, { kind: "test.second" }, { now: new Date() });
    await delay(300);
    await kv.set(["test", "first"], "done");
  });
  consumer.on("test.second", async () => {
    handled.push("second");
    await kv.set(["test", "second"], "done");
  });
  consumer.start();
  await insertJob(kv, { kind: "test.first" }, { now: new Date() });
  await first.fired;
  let closed = false;
  const stopped = consumer.stop(() => {
    closed = true;
    kv.close();
  });
  stopping.fire();
  await stopped;
  assert.equal(closed, true);
  assert.deepEqual(handled, ["first"]);
});

Deno.test("[live] drain() runs every due job and waits for them (the Deno.cron driver)", async () => {
  await using kv = await Deno.openKv(":memory:");
  const worker = createJobWorker({ kv, log: memoryLogger(), clock: systemClock });
  worker.cronRegistered();
  assert.equal(worker.status().mode, "cron");
  let done = 0;
  worker.on("test.work", async () => {
    await delay(5);
    done++;
  });
  for (let i = 0; i < 20; i++) await insertJob(kv, { kind: "test.work", i }, { now: new Date() });
  await insertJob(kv, { kind: "test.work" }, { now: new Date(), dueAt: Date.now() + 3_600_000 });
  assert.equal(await worker.drain(), 20);
  assert.equal(done, 20, "every due job ran before drain() resolved");
  assert.equal((await listDueJobs(kv, Date.now(), 100)).length, 0);
  assert.equal((await listDueJobs(kv, Date.now() + 3_600_000, 100)).length, 1, "later ones wait");
});

Deno.test("[live] a stop with a deadline releases what is still running: due again at once, the run not counted", async () => {
  const kv = await Deno.openKv(":memory:");
  const worker = createJobWorker({ kv, log: memoryLogger(), clock: systemClock });
  const started = signal();
  let release = () => {};
  worker.on("test.slow", () => {
    started.fire();
    // Never ends by itself within the deadline (as a job stuck on a slow peer).
    return new Promise<void>((resolve) => release = resolve);
  });
  const job = await insertJob(kv, { kind: "test.slow" }, { now: new Date() });
  worker.start();
  await started.fired;
  const before = Date.now();
  let closed = false;
  await worker.stop(() => closed = true, { graceMs: 150 });
  const took = Date.now() - before;
  assert.equal(closed, true);
  assert.ok(took < 2_000, `stopped after ${took} ms`);
  const stored = (await kv.get<Job>(jobKey(job.id))).value!;
  assert.equal(stored.state, "scheduled");
  assert.equal(stored.lease, null);
  assert.equal(stored.attempt, 0, "the interrupted run is not counted");
  assert.ok(stored.dueAt <= Date.now(), "due again at once, for any worker");
  assert.equal((await listDueJobs(kv, Date.now(), 10)).length, 1);
  release();
  kv.close();
});
