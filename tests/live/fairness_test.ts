/**
 * Fairness of the job worker: the claim plan (round robin across tenants, the share, the spare
 * slots, the outbound cap, lanes and groups) as tables, and a real worker on a KV whose due
 * index holds two thousand jobs of one tenant before another tenant's one job.
 */
import assert from "node:assert/strict";
import { JobDeferred, type JobTag } from "../../src/domain/jobs.ts";
import {
  DEFAULT_LIMITS,
  parkable,
  planClaims,
  type Running,
  runningOf,
} from "../../src/live/fairness.ts";
import { createJobWorker } from "../../src/live/worker.ts";
import { memoryLogger } from "../../src/lib/log.ts";
import { systemClock } from "../../src/lib/clock.ts";
import type { DueRef } from "../../src/store/job_index.ts";
import { getJob, stageJob } from "../../src/store/jobs.ts";
import { liveStatus } from "../../src/live/jobs_view.ts";

const core = (tenant: string, lane: string | null = null): JobTag => ({
  tenant,
  cls: "core",
  lane,
});
const outbound = (tenant: string, lane: string | null, group: string | null = null): JobTag => ({
  tenant,
  cls: "outbound",
  lane,
  group,
});

let next = 0;
/** `count` due refs of `tag`, due from `dueAt` on, one a millisecond. */
function refs(tag: JobTag | null, count: number, dueAt: number): DueRef[] {
  return Array.from({ length: count }, (_, i) => ({ id: `j${next++}`, dueAt: dueAt + i, tag }));
}

const idle = (): Running => runningOf([], 0);
const tenants = (picks: DueRef[]) => picks.map((ref) => ref.tag?.tenant ?? "?");

Deno.test("[live] planClaims(): round robin across tenants, the fewest running first", async (t) => {
  const rows: Array<{
    name: string;
    candidates: DueRef[];
    running: Running;
    expected: string[];
  }> = [
    {
      name: "a later tenant is taken second, before the first tenant's next jobs",
      candidates: [...refs(core("a"), 10, 0), ...refs(core("b"), 1, 100)],
      running: idle(),
      // a, b, a (its share), then a borrows while at least two slots stay free.
      expected: ["a", "b", "a", "a", "a", "a"],
    },
    {
      name: "a tenant holding six slots still leaves two for another",
      candidates: [...refs(core("a"), 10, 0), ...refs(core("b"), 3, 100)],
      running: runningOf(Array(6).fill(core("a")), 6),
      expected: ["b", "b"],
    },
    {
      name: "with every slot taken nothing starts",
      candidates: refs(core("b"), 1, 0),
      running: runningOf(Array(8).fill(core("a")), 8),
      expected: [],
    },
    {
      name: "three tenants alternate; the one with more running waits",
      candidates: [...refs(core("a"), 3, 0), ...refs(core("b"), 3, 1), ...refs(core("c"), 3, 2)],
      running: runningOf([core("a")], 1),
      // Then each holds its share, and borrowing would leave fewer than two slots free.
      expected: ["b", "c", "a", "b", "c"],
    },
    {
      name: "outbound jobs hold at most half the slots",
      candidates: [
        ...refs(outbound("a", "webhook:1"), 1, 0),
        ...refs(outbound("b", "webhook:2"), 1, 1),
        ...refs(outbound("c", "webhook:3"), 1, 2),
        ...refs(outbound("d", "webhook:4"), 1, 3),
        ...refs(outbound("e", "webhook:5"), 1, 4),
        ...refs(core("e"), 1, 5),
      ],
      running: idle(),
      expected: ["a", "b", "c", "d", "e"],
    },
    {
      name: "a tenant beyond its share leaves an outbound slot for others",
      candidates: [
        ...refs(outbound("a", "webhook:1"), 1, 0),
        ...refs(outbound("a", "webhook:2"), 1, 1),
        ...refs(outbound("a", "webhook:3"), 1, 2),
        ...refs(outbound("a", "webhook:4"), 1, 3),
      ],
      running: idle(),
      // Its share, one borrowed; the fourth would take the last outbound slot.
      expected: ["a", "a", "a"],
    },
    {
      name: "one endpoint's attempts go one at a time",
      candidates: [
        ...refs(outbound("a", "webhook:1"), 3, 0),
        ...refs(outbound("a", "webhook:2"), 1, 10),
      ],
      running: idle(),
      expected: ["a", "a"],
    },
    {
      name: "an endpoint with an attempt running here gets none",
      candidates: refs(outbound("a", "webhook:1"), 2, 0),
      running: runningOf([outbound("a", "webhook:1")], 1),
      expected: [],
    },
    {
      name: "one subscriber's endpoints: two attempts at once",
      candidates: [
        ...refs(outbound("a", "webhook:1", "subscriber:x"), 1, 0),
        ...refs(outbound("a", "webhook:2", "subscriber:x"), 1, 1),
        ...refs(outbound("a", "webhook:3", "subscriber:x"), 1, 2),
        ...refs(outbound("b", "webhook:4", "subscriber:y"), 1, 3),
      ],
      running: idle(),
      expected: ["a", "b", "a"],
    },
    {
      name: "entries of the earlier format are the shared tenant's",
      candidates: [...refs(null, 3, 0), ...refs(core("a"), 1, 5)],
      running: idle(),
      expected: ["?", "a", "?", "?"],
    },
  ];
  for (const row of rows) {
    await t.step(row.name, () => {
      assert.deepEqual(tenants(planClaims(row.candidates, row.running)), row.expected);
    });
  }
  await t.step("an entry listed twice (front and backlog) is planned once", () => {
    const [one] = refs(core("a"), 1, 0);
    assert.equal(planClaims([one, { ...one }], idle()).length, 1);
  });
  await t.step("parkable() keeps each tenant's first entry not picked on the front", () => {
    const front = [...refs(core("a"), 5, 0), ...refs(core("b"), 2, 10), ...refs(null, 2, 20)];
    const picks = planClaims(front, runningOf(Array(7).fill(core("c")), 7));
    assert.equal(picks.length, 1);
    const parked = parkable(front, picks);
    assert.deepEqual(tenants(parked), ["a", "a", "a", "b"]);
    assert.ok(!parked.some((ref) => ref.tag === null), "old entries are never parked");
  });
  await t.step("the default limits are the documented ones", () => {
    assert.deepEqual(DEFAULT_LIMITS, {
      slots: 8,
      tenantShare: 2,
      spare: 2,
      outbound: 4,
      outboundSpare: 1,
      perGroup: 2,
      perDestination: 2,
      heavyMs: 5_000,
    });
  });
});

Deno.test("[live] two thousand due jobs of one tenant do not keep another tenant's job waiting", async () => {
  await using kv = await Deno.openKv(":memory:");
  const log = memoryLogger();
  const worker = createJobWorker({ kv, clock: systemClock, log });
  const started: string[] = [];
  let release!: () => void;
  const held = new Promise<void>((resolve) => release = resolve);
  worker.on("flood", async () => {
    started.push("a");
    await held;
  });
  worker.on("publish", () => {
    started.push("b");
    return Promise.resolve();
  });
  const now = Date.now();
  // Tenant A's jobs were all due before B's one.
  for (let i = 0; i < 2000; i += 50) {
    const op = kv.atomic();
    for (let j = i; j < i + 50; j++) {
      stageJob(op, { kind: "flood", organizationId: "org-a", n: j }, {
        now: new Date(now),
        dueAt: now - 60_000 + j,
      });
    }
    assert.ok((await op.commit()).ok);
  }
  const op = kv.atomic();
  const publish = stageJob(op, { kind: "publish", organizationId: "org-b" }, {
    now: new Date(now),
    dueAt: now - 1,
  });
  assert.ok((await op.commit()).ok);
  try {
    const t0 = performance.now();
    await worker.runDue();
    console.log(`B's job started after ${Math.round(performance.now() - t0)} ms of looking`);
    assert.ok(started.includes("b"), "B's job started in the first pass");
    assert.ok(started.filter((s) => s === "a").length <= 6, "A kept two slots free");
    assert.equal(await getJob(kv, publish.id).then((j) => j?.state ?? "done"), "done");
    const status = await liveStatus({
      kv,
      clock: { now: () => new Date(now + 10 * 60_000) },
      jobs: worker,
      config: { edge: { purge: "none", purgeUrls: [] } } as never,
    });
    assert.equal(status.backlog.tenants, 1, "A's backlog is reported apart");
    assert.ok(status.backlog.oldestDueSeconds! >= 600);
    assert.equal(status.oldestDueSeconds, null, "nobody else waits");
    // (This worker's loop is not started here, which is a problem of its own.)
    assert.deepEqual(
      status.problems.filter((p) => /waited/.test(p)),
      [],
      "a backlog being worked on is no problem",
    );
  } finally {
    release();
    await worker.stop(() => {});
  }
});

Deno.test("[live] a handler that defers its job has it due again later, the run not counted", async () => {
  await using kv = await Deno.openKv(":memory:");
  const worker = createJobWorker({ kv, clock: systemClock, log: memoryLogger() });
  const until = Date.now() + 30_000;
  worker.on("wait", () => Promise.reject(new JobDeferred(until, "The endpoint is paused")));
  const op = kv.atomic();
  const job = stageJob(op, { kind: "wait", organizationId: "org-a" }, { now: new Date() });
  assert.ok((await op.commit()).ok);
  try {
    await worker.runDue();
    await worker.settled();
    const stored = await getJob(kv, job.id);
    assert.equal(stored?.state, "scheduled");
    assert.equal(stored?.dueAt, until);
    assert.equal(stored?.attempt, 0);
    assert.deepEqual(stored?.errors, [], "a deferral is not a failure");
  } finally {
    await worker.stop(() => {});
  }
});

Deno.test("[live] a look that read all that is due is not repeated at once (it would find nothing more)", async () => {
  await using kv = await Deno.openKv(":memory:");
  const worker = createJobWorker({ kv, clock: systemClock, log: memoryLogger() });
  let release!: () => void;
  const held = new Promise<void>((resolve) => release = resolve);
  const started: number[] = [];
  worker.on("hold", async (message) => {
    started.push((message as unknown as { n: number }).n);
    await held;
  });
  const op = kv.atomic();
  for (let n = 0; n < 3; n++) {
    stageJob(op, { kind: "hold", organizationId: "org-a", n }, { now: new Date(), dueAt: n });
  }
  assert.ok((await op.commit()).ok);
  let lists = 0;
  const list = kv.list.bind(kv);
  kv.list = ((...args: Parameters<Deno.Kv["list"]>) => (lists++, list(...args))) as Deno.Kv["list"];
  try {
    assert.equal(await worker.runDue(), 3);
    assert.deepEqual(started.toSorted(), [0, 1, 2]);
    // The time index's front and the backlog marks, once: a second look would read both again.
    assert.equal(lists, 2);
  } finally {
    release();
    await worker.stop(() => {});
  }
});
