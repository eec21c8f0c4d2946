import assert from "node:assert/strict";
import { type Job, type JobTag, tagOf } from "../../src/domain/jobs.ts";
import { liveStatus } from "../../src/live/jobs_view.ts";
import type { JobWorker } from "../../src/live/worker.ts";
import {
  clearBacklog,
  listBacklogs,
  listDueJobs,
  listTenantDue,
  nextDueAt,
  oldestDueAt,
  parkDue,
  upgradeLegacyRefs,
} from "../../src/store/job_index.ts";
import {
  claimJob,
  completeJob,
  failJob,
  getJob,
  insertJob,
  newJob,
  releaseJob,
  scheduleUniqueJob,
} from "../../src/store/jobs.ts";
import { jobDueKey, jobKey } from "../../src/store/keys.ts";

const T0 = Date.parse("2026-11-01T12:00:00Z");
const at = (ms: number) => new Date(T0 + ms);
const LEASE = { leaseMs: 60_000, owner: "test" };

async function keysUnder(kv: Deno.Kv, first: string): Promise<Deno.KvKey[]> {
  const keys: Deno.KvKey[] = [];
  for await (const entry of kv.list({ prefix: [first] })) keys.push(entry.key);
  return keys;
}

Deno.test("[store] a job's due entries carry its tenant, class and lane, in both indexes (a lane is its own queue)", async () => {
  await using kv = await Deno.openKv(":memory:");
  const job = await insertJob(kv, {
    kind: "webhook-delivery",
    organizationId: "org-a",
    webhookId: "w1",
    subscriberId: "u1",
  }, { now: at(0) });
  const tag: JobTag = {
    tenant: "org-a",
    cls: "outbound",
    lane: "webhook:w1",
    group: "subscriber:u1",
  };
  assert.deepEqual(job.tag, tag);
  assert.deepEqual(await listDueJobs(kv, T0, 10), [{ id: job.id, dueAt: T0, tag }]);
  assert.deepEqual(
    await listTenantDue(kv, { tenant: "org-a", queue: "webhook:w1" }, {
      now: T0,
      limit: 10,
    }),
    [{ id: job.id, dueAt: T0, tag }],
  );
  assert.deepEqual(tagOf({ kind: "event", event: { organizationId: "org-b" } }), {
    tenant: "org-b",
    cls: "core",
    lane: null,
    group: null,
  });
  const claim = await claimJob(kv, { id: job.id, dueAt: T0, tag }, { ...LEASE, now: T0 });
  assert.ok(claim);
  assert.equal((await keysUnder(kv, "jobs_due_by_tenant"))[0][3], T0 + LEASE.leaseMs);
  assert.equal(await completeJob(kv, claim), true);
  assert.deepEqual(await keysUnder(kv, "jobs_due"), []);
  assert.deepEqual(await keysUnder(kv, "jobs_due_by_tenant"), [], "both entries are gone");
});

Deno.test("[store] parked entries leave the time index, stay due by tenant and are claimed from there", async (t) => {
  await using kv = await Deno.openKv(":memory:");
  const jobs: Job[] = [];
  for (let i = 0; i < 5; i++) {
    jobs.push(
      await insertJob(kv, { kind: "x", organizationId: "org-a" }, {
        now: at(0),
        dueAt: T0 + i,
      }),
    );
  }
  const later = await insertJob(kv, { kind: "x", organizationId: "org-b" }, {
    now: at(0),
    dueAt: T0 + 100,
  });
  const front = await listDueJobs(kv, T0 + 100, 3);
  await t.step("parking", async () => {
    await parkDue(kv, front.slice(1), T0 + 100);
    const ids = (await listDueJobs(kv, T0 + 100, 10)).map((ref) => ref.id);
    assert.deepEqual(ids, [jobs[0].id, jobs[3].id, jobs[4].id, later.id]);
    const [backlog] = await listBacklogs(kv, 10);
    assert.deepEqual([backlog.tenant, backlog.queue], ["org-a", "core"]);
    const queue = await listTenantDue(kv, backlog, { now: T0 + 100, limit: 10 });
    assert.equal(queue.length, 5, "every due job of the tenant is still due by tenant");
    assert.equal(await oldestDueAt(kv, T0 + 100), T0);
    assert.equal(await nextDueAt(kv), T0);
  });
  await t.step("a parked job is claimed and ended through its tenant entry", async () => {
    const [backlog] = await listBacklogs(kv, 10);
    const parked = (await listTenantDue(kv, backlog, { now: T0 + 100, limit: 10 }))
      .find((ref) => ref.id === jobs[1].id)!;
    const claim = await claimJob(kv, parked, { ...LEASE, now: T0 + 100 });
    assert.ok(claim);
    assert.equal(await completeJob(kv, claim), true);
    assert.equal(await getJob(kv, jobs[1].id), null);
  });
  await t.step("a backlog mark set again since it was read stays", async () => {
    const [read] = await listBacklogs(kv, 10);
    await parkDue(kv, [(await listDueJobs(kv, T0 + 100, 1))[0]], T0 + 200);
    assert.equal(await clearBacklog(kv, read), false);
    const [fresh] = await listBacklogs(kv, 10);
    assert.equal(await clearBacklog(kv, fresh), true);
  });
});

Deno.test("[store] due entries of the earlier format are read, upgraded, claimed and ended cleanly", async () => {
  await using kv = await Deno.openKv(":memory:");
  // As the previous release wrote them: a record without tag, an entry holding the job's id.
  const legacy = (id: string, dueAt: number) => {
    const { tag: _tag, ...job } = newJob({ kind: "mail", deliveryId: id }, {
      now: at(0),
      dueAt,
      id,
    });
    return kv.atomic().set(jobKey(id), job).set(jobDueKey(dueAt, id), id).commit();
  };
  await legacy("old-1", T0);
  await legacy("old-2", T0 + 1);
  const refs = await listDueJobs(kv, T0 + 1, 10);
  assert.deepEqual(refs.map((ref) => ref.tag), [null, null], "read as the shared tenant's");
  const upgraded = await upgradeLegacyRefs(kv, refs.slice(0, 1));
  const tag = { tenant: "", cls: "outbound", lane: null, group: null };
  assert.deepEqual(upgraded[0].tag, tag);
  assert.deepEqual((await getJob(kv, "old-1"))?.tag, tag);
  assert.equal((await keysUnder(kv, "jobs_due_by_tenant")).length, 1);
  for (const ref of await listDueJobs(kv, T0 + 1, 10)) {
    const claim = await claimJob(kv, ref, { ...LEASE, now: T0 + 1 });
    assert.ok(claim, `${ref.id} is claimed`);
    assert.equal(await completeJob(kv, claim), true);
  }
  assert.deepEqual(await keysUnder(kv, "jobs_due"), []);
  assert.deepEqual(await keysUnder(kv, "jobs_due_by_tenant"), []);
  assert.deepEqual(await keysUnder(kv, "jobs"), []);
});

Deno.test("[store] failJob() keeps work asked for during the failed run; releaseJob() defers uncounted", async () => {
  await using kv = await Deno.openKv(":memory:");
  const id = "recompute.p";
  const message = { kind: "recompute", projectId: "p", organizationId: "org-a" };
  await scheduleUniqueJob(kv, id, { message, dueAt: T0, now: at(0) });
  let claim = await claimJob(kv, (await listDueJobs(kv, T0, 1))[0], { ...LEASE, now: T0 });
  assert.ok(claim);
  await scheduleUniqueJob(kv, id, { message, dueAt: T0 + 200, now: at(100) });
  const failed = await failJob(kv, claim, { error: "database is locked", now: at(500) });
  assert.equal(failed?.dueAt, T0 + 200, "not the backoff's 1 s: the wish made during the run");
  claim = await claimJob(kv, (await listDueJobs(kv, T0 + 200, 1))[0], {
    ...LEASE,
    now: T0 + 200,
  });
  assert.ok(claim);
  assert.equal(claim.job.attempt, 2);
  assert.equal(await releaseJob(kv, claim, { now: T0 + 300, until: T0 + 30_000 }), true);
  const deferred = (await getJob(kv, id))!;
  assert.equal(deferred.dueAt, T0 + 30_000);
  assert.equal(deferred.attempt, 1, "the deferred run is not counted");
  assert.equal(deferred.state, "scheduled");
});

Deno.test("[live] liveStatus(): a backlog nobody works on is a problem; one being worked on is not", async () => {
  await using kv = await Deno.openKv(":memory:");
  const now = T0 + 10 * 60_000;
  for (let i = 0; i < 3; i++) {
    await insertJob(kv, { kind: "x", organizationId: "org-a" }, { now: at(0), dueAt: T0 + i });
  }
  await parkDue(kv, (await listDueJobs(kv, now, 10)).slice(1), T0);
  const status = (lastClaimAt: string | null) => ({
    mode: "loop" as const,
    running: true,
    lastCheckAt: null,
    busy: 0,
    lastClaimAt,
  });
  const check = (jobs: { status: () => ReturnType<typeof status> }) =>
    liveStatus({
      kv,
      clock: { now: () => new Date(now) },
      jobs: jobs as unknown as JobWorker,
      config: { edge: { purge: "none", purgeUrls: [] } },
    });
  const working = await check({ status: () => status(new Date(now - 5_000).toISOString()) });
  assert.equal(working.ready, true, JSON.stringify(working.problems));
  assert.deepEqual(working.backlog, { tenants: 1, oldestDueSeconds: 600 });
  assert.equal(working.oldestDueSeconds, null, "the backlogged tenant's front entry is its own");
  const stuck = await check({ status: () => status(null) });
  assert.equal(stuck.ready, false);
  assert.match(stuck.problems[0], /backlog of 1 organization\(s\) has waited 600 s/);
});
