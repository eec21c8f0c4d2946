/**
 * Dead-lettered jobs over HTTP: a job whose handler always throws ends dead with its error,
 * shown to the organization's members and counted in the service status; a retry runs it
 * again. Other organizations and anonymous callers see and change nothing.
 */
import assert from "node:assert/strict";
import { DEFAULT_MAX_ATTEMPTS, type Job, JOB_BACKOFF_MS } from "../../src/domain/jobs.ts";
import { trustEvent } from "../../src/domain/events.ts";
import { fakeClock } from "../../src/lib/clock.ts";
import { liveStatus } from "../../src/live/jobs_view.ts";
import type { JobWorker } from "../../src/live/worker.ts";
import { recomputeJobId } from "../../src/live/scheduler.ts";
import { insertJob, listDueJobs } from "../../src/store/jobs.ts";
import { jobKey } from "../../src/store/keys.ts";
import { createTestApp, snapshotKv } from "../support/app.ts";

const NO_EDGE = { edge: { purge: "none" as const, purgeUrls: [] } };
import { team } from "../support/fixtures.ts";

Deno.test("[http] a job that always fails is dead-lettered, shown and run again on request", async (t) => {
  await using ctx = await createTestApp();
  const tm = await team(ctx);
  // The workspace's creation staged the render of its trust center: done before the scenario.
  await ctx.services.jobs.runDue();
  await ctx.services.jobs.settled();
  let runs = 0;
  let healthy = false;
  ctx.services.events.subscribe("always-fails", () => {
    runs++;
    return healthy ? Promise.resolve() : Promise.reject(new Error("the receiver is broken"));
  });
  const event = trustEvent({
    type: "update.posted",
    timestamp: ctx.clock.now(),
    organizationId: tm.orgId,
    projectId: tm.project.id,
    data: {},
  });
  const job = await insertJob(ctx.kv, { kind: "event", event }, { now: ctx.clock.now() });
  const jobs = `/organizations/${tm.orgId}/jobs`;

  await t.step("every attempt fails, with backoff, until the job is dead", async () => {
    for (let attempt = 1; attempt <= DEFAULT_MAX_ATTEMPTS; attempt++) {
      assert.equal(await ctx.services.jobs.runDue(), 1, `attempt ${attempt} runs when due`);
      await ctx.services.jobs.settled();
      ctx.clock.advance(JOB_BACKOFF_MS.at(-1)! * 1.3);
    }
    assert.equal(runs, DEFAULT_MAX_ATTEMPTS);
    assert.equal(await ctx.services.jobs.runDue(), 0, "a dead job does not run");
    assert.ok(ctx.log.lines.some((l) => l.includes("dead-lettered")));
    // Hours passed on the clock: fresh access tokens for the same people.
    tm.owner = await ctx.tokenFor("owner", { email: "owner@acme.test" });
    tm.member = await ctx.tokenFor("member", { email: "member@acme.test" });
    tm.stranger = await ctx.tokenFor("stranger", { email: "stranger@else.test" });
  });

  await t.step("members see it with its error; the status counts it", async () => {
    for (const token of [tm.owner, tm.member]) {
      const res = await ctx.call("GET", jobs, { token });
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type") ?? "", /json/);
      const [dead] = (await res.json()).jobs;
      assert.equal(dead.id, job.id);
      assert.equal(dead.state, "dead");
      assert.equal(dead.kind, "event");
      assert.equal(dead.projectId, tm.project.id);
      assert.equal(dead.attempt, DEFAULT_MAX_ATTEMPTS);
      assert.match(dead.errors.at(-1).error, /Push channels failed: always-fails/);
      assert.match(dead.summary, /update\.posted/);
    }
    const status = await (await ctx.call("GET", "/service/status", { token: tm.member })).json();
    assert.equal(status.live.deadJobs, 1);
  });

  await t.step(
    "other organizations and anonymous callers see nothing and change nothing",
    async () => {
      const before = await snapshotKv(ctx.kv);
      const retry = `${jobs}/${job.id}/retry`;
      assert.equal((await ctx.call("GET", jobs, { token: tm.stranger })).status, 403);
      assert.equal((await ctx.call("POST", retry, { token: tm.stranger })).status, 403);
      assert.equal((await ctx.call("GET", jobs)).status, 401);
      assert.equal((await ctx.call("POST", retry)).status, 401);
      const bad = await ctx.call("POST", `${jobs}/not-a-job/retry`, { token: tm.owner });
      assert.equal(bad.status, 400);
      assert.equal((await bad.json()).error.code, "validation_failed");
      const other = await ctx.call("POST", `${jobs}/${crypto.randomUUID()}/retry`, {
        token: tm.owner,
      });
      assert.equal(other.status, 404);
      assert.equal(await snapshotKv(ctx.kv), before);
    },
  );

  await t.step("a retry runs it again; fixed, it succeeds and leaves the list", async () => {
    healthy = true;
    const res = await ctx.call("POST", `${jobs}/${job.id}/retry`, { token: tm.member });
    assert.equal(res.status, 200);
    assert.equal((await res.json()).job.state, "scheduled");
    assert.equal(await ctx.services.jobs.runDue(), 1);
    await ctx.services.jobs.settled();
    assert.equal(runs, DEFAULT_MAX_ATTEMPTS + 1);
    assert.deepEqual((await (await ctx.call("GET", jobs, { token: tm.owner })).json()).jobs, []);
    const again = await ctx.call("POST", `${jobs}/${job.id}/retry`, { token: tm.owner });
    assert.equal(again.status, 404, "a job that is done cannot be retried");
  });
});

Deno.test("[http] GET /health/ready: 503 with the reason when no worker runs, 200 when it does", async () => {
  await using off = await createTestApp();
  const res = await off.call("GET", "/health/ready");
  assert.equal(res.status, 503);
  assert.equal(res.headers.get("cache-control"), "no-store");
  const body = await res.json();
  assert.equal(body.ready, false);
  assert.equal(body.worker.mode, "off");
  assert.match(body.problems[0], /No job worker runs here/);
  assert.deepEqual(await (await off.call("GET", "/health")).json(), { status: "ok" });

  await using on = await createTestApp({ worker: true });
  const ready = await on.call("GET", "/health/ready");
  assert.equal(ready.status, 200);
  assert.equal((await ready.json()).worker.mode, "loop");
});

Deno.test("[live] liveStatus() reports a due job that waited too long", async () => {
  await using kv = await Deno.openKv(":memory:");
  const clock = fakeClock(new Date("2026-11-01T12:00:00Z"));
  const jobs = {
    status: () => ({ mode: "loop" as const, running: true, lastCheckAt: null, busy: 0 }),
  } as unknown as JobWorker;
  const now = clock.now().getTime();
  await insertJob(kv, { kind: "x" }, { now: clock.now(), dueAt: now - 60_000 });
  assert.equal(
    (await liveStatus({ kv, clock, jobs, config: NO_EDGE })).ready,
    true,
    "a minute is not a stall",
  );
  await insertJob(kv, { kind: "x" }, { now: clock.now(), dueAt: now - 10 * 60_000 });
  const status = await liveStatus({ kv, clock, jobs, config: NO_EDGE });
  assert.equal(status.ready, false);
  assert.equal(status.oldestDueSeconds, 600);
  assert.match(status.problems[0], /oldest due job has waited 600 s \(more than 120 s\)/);
});

Deno.test("[live] a burst of heartbeats schedules one recompute job", async () => {
  await using ctx = await createTestApp();
  const tm = await team(ctx);
  const made = await ctx.call("POST", `/projects/${tm.project.id}/collectors`, {
    token: tm.owner,
    json: { name: "ci" },
  });
  const { collector, secret } = await made.json();
  const beat = async () => {
    const res = await ctx.call("POST", `/collectors/${collector.id}/heartbeat`, {
      token: secret.value,
      json: { sourceRef: "ci" },
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
  };
  await beat();
  const first = await ctx.kv.get<Job>(jobKey(recomputeJobId(tm.project.id)));
  assert.equal(first.value?.state, "scheduled", "the first heartbeat schedules a recompute");
  for (let i = 0; i < 4; i++) await beat();
  const after = await ctx.kv.get<Job>(jobKey(recomputeJobId(tm.project.id)));
  assert.equal(after.versionstamp, first.versionstamp, "later heartbeats found it scheduled");
  // One recompute among the due jobs (the workspace's and collector's renders are others).
  const due = await listDueJobs(ctx.kv, Date.now() + 86_400_000 * 365, 100);
  const kinds = await Promise.all(
    due.map(async (ref) => (await ctx.kv.get<Job>(jobKey(ref.id))).value?.message.kind),
  );
  assert.equal(kinds.filter((kind) => kind === "recompute").length, 1);
});
