/**
 * The job worker on a busy database (two instances on one SQLite file), where a commit or a
 * read fails now and then with "database is locked" after the KV's own retries gave up: a run
 * that cannot record its end tries again instead of leaving its job running until the lease
 * runs out, and a failed read makes the loop look again soon instead of sleeping its longest.
 */
import { newJob } from "../../src/store/jobs.ts";
import { createJobWorker } from "../../src/live/worker.ts";
import { systemClock } from "../../src/lib/clock.ts";
import { memoryLogger } from "../../src/lib/log.ts";
import { getJob, insertJob } from "../../src/store/jobs.ts";
import { jobDueKey, jobKey } from "../../src/store/keys.ts";

/** A KV whose next `failing.commits` commits and `failing.lists` list reads fail as locked. */
function busy(kv: Deno.Kv) {
  const failing = { commits: 0, lists: 0 };
  const locked = () => new TypeError("database is locked");
  const proxy = new Proxy(kv, {
    get(target, property) {
      if (property === "atomic") {
        return () => {
          const op = target.atomic();
          const commit = op.commit.bind(op);
          op.commit = () => {
            if (failing.commits > 0) {
              failing.commits--;
              return Promise.reject(locked());
            }
            return commit();
          };
          return op;
        };
      }
      if (property === "list") {
        return (selector: Deno.KvListSelector, options?: Deno.KvListOptions) => {
          if (failing.lists > 0) {
            failing.lists--;
            const failed: AsyncIterableIterator<Deno.KvEntry<unknown>> = {
              next: () => Promise.reject(locked()),
              [Symbol.asyncIterator]() {
                return this;
              },
            };
            return failed;
          }
          return target.list(selector, options);
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { kv: proxy, failing };
}

async function until(probe: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < timeoutMs) {
    if (await probe()) return performance.now() - started;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`Not within ${timeoutMs} ms`);
}

Deno.test("[live] a run whose end meets a locked database is ended, not left running until its lease ends", async () => {
  await using raw = await Deno.openKv(":memory:");
  const { kv, failing } = busy(raw);
  const worker = createJobWorker({ kv, clock: systemClock, log: memoryLogger() });
  worker.on("work", () => {
    // The run's effect is done; the next commits (its end) find the database locked.
    failing.commits = 3;
    return Promise.resolve();
  });
  const job = await insertJob(raw, { kind: "work", organizationId: "org-a" }, {
    now: new Date(),
  });
  try {
    await worker.runDue();
    const ms = await until(async () => (await getJob(raw, job.id)) === null, 5_000);
    console.log(`ended ${Math.round(ms)} ms after the run, through 3 locked commits`);
  } finally {
    await worker.stop(() => {});
  }
});

Deno.test("[live] after a failed read the loop looks again within a second", async () => {
  await using raw = await Deno.openKv(":memory:");
  const { kv, failing } = busy(raw);
  const log = memoryLogger();
  const worker = createJobWorker({ kv, clock: systemClock, log });
  let ran = 0;
  worker.on("work", () => {
    ran++;
    return Promise.resolve();
  });
  failing.lists = 1;
  worker.start();
  try {
    await until(() => Promise.resolve(log.lines.some((l) => l.includes("could not read"))), 2_000);
    // Work another instance committed (one of the previous release: its entry holds the id):
    // nothing here announces it.
    const job = newJob({ kind: "work" }, { now: new Date() });
    await raw.atomic().set(jobKey(job.id), job).set(jobDueKey(job.dueAt, job.id), job.id)
      .commit();
    const ms = await until(() => Promise.resolve(ran === 1), 3_000);
    console.log(`run ${Math.round(ms)} ms after it was committed elsewhere`);
  } finally {
    await worker.stop(() => {});
  }
});
