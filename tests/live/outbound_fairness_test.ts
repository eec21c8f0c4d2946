/**
 * Outbound fairness against one person's many tenants and accounts: the claim plan with the
 * parties' recent slot time (tenant, account, destination), the cap per destination, the usage
 * meter, the destination's circuit in the gate, and readiness that reports outbound work apart.
 */
import assert from "node:assert/strict";
import type { JobTag } from "../../src/domain/jobs.ts";
import {
  createUsageMeter,
  DEFAULT_LIMITS,
  lightOutboundWaiting,
  partiesOf,
  planClaims,
  runningOf,
  type Usage,
  withPicks,
} from "../../src/live/fairness.ts";
import { liveStatus } from "../../src/live/jobs_view.ts";
import type { JobWorker } from "../../src/live/worker.ts";
import type { DueRef } from "../../src/store/job_index.ts";
import { stageJob } from "../../src/store/jobs.ts";
import { destinationOf, endAttempt, startAttempt } from "../../src/store/webhook_gate.ts";

let next = 0;
/** One due delivery attempt of `tenant`, registered by `account`, to `destination`. */
function attempt(tenant: string, account: string, destination: string, dueAt: number): DueRef {
  const id = `j${next++}`;
  return {
    id,
    dueAt,
    tag: {
      tenant,
      cls: "outbound",
      lane: `webhook:${id}`,
      group: `subscriber:${account}`,
      destination,
    },
  };
}

/** Usage from a table of parties' slot time (ms), the most of a job's parties. */
function usageOf(table: Record<string, number>): Usage {
  return (tag) => Math.max(0, ...partiesOf(tag).map((party) => table[party] ?? 0));
}

Deno.test("[live] planClaims(): one person's tenants, accounts and hosts do not go before a light tenant", async (t) => {
  // Ten organizations of one owner, ten accounts, ten never-answering hosts; each has held
  // slots for a timeout or more lately. Their attempts were due long before the victim's.
  const flood: DueRef[] = [];
  const heavy: Record<string, number> = {};
  for (let i = 0; i < 10; i++) {
    for (let j = 0; j < 5; j++) flood.push(attempt(`org-${i}`, `sybil-${i}`, `http://h${i}`, j));
    heavy[`outbound:tenant:org-${i}`] = 10_000 * (i + 1);
    heavy[`outbound:subscriber:sybil-${i}`] = 10_000;
    heavy[`outbound:destination:http://h${i}`] = 10_000;
  }
  const victim = attempt("victim", "owner", "http://fast", 1_000);
  const usage = usageOf(heavy);

  await t.step("with three outbound slots held by the flood, the victim takes the fourth", () => {
    const running = runningOf([0, 1, 2].map((i) => flood[i * 5].tag!), 3);
    const picks = planClaims([...flood, victim], running, DEFAULT_LIMITS, usage);
    assert.deepEqual(picks.map((ref) => ref.tag!.tenant), ["victim"]);
  });
  await t.step("without the victim, the last outbound slot stays free of heavy parties", () => {
    const running = runningOf([0, 1, 2].map((i) => flood[i * 5].tag!), 3);
    assert.deepEqual(planClaims(flood, running, DEFAULT_LIMITS, usage), []);
  });
  await t.step("with every slot free, the victim goes first, then the least used", () => {
    const picks = planClaims([...flood, victim], runningOf([], 0), DEFAULT_LIMITS, usage);
    assert.deepEqual(picks.map((ref) => ref.tag!.tenant), ["victim", "org-0", "org-1"]);
  });
  await t.step("light parties are not held back by the reserve", () => {
    const picks = planClaims(flood.slice(0, 15), runningOf([], 0));
    assert.deepEqual(picks.map((ref) => ref.tag!.tenant), ["org-0", "org-1", "org-2", "org-0"]);
  });
});

Deno.test("[live] planClaims(): at most two attempts to one destination at once", () => {
  const candidates = [
    attempt("a", "x", "http://slow", 0),
    attempt("b", "y", "http://slow", 1),
    attempt("c", "z", "http://slow", 2),
    attempt("d", "w", "http://other", 3),
  ];
  const picks = planClaims(candidates, runningOf([], 0));
  assert.deepEqual(picks.map((ref) => ref.tag!.tenant), ["a", "b", "d"]);
  const running = runningOf([candidates[0].tag!], 1);
  assert.deepEqual(
    planClaims(candidates.slice(1, 3), running).map((ref) => ref.tag!.tenant),
    ["b"],
  );
});

Deno.test("[live] the usage meter: slot time per party, halving every half-life, runs counted", () => {
  const meter = createUsageMeter(1_000);
  const tag: JobTag = {
    tenant: "org-a",
    cls: "outbound",
    lane: "webhook:1",
    group: "subscriber:u",
    destination: "http://h",
  };
  meter.record(tag, 8_000, 0);
  const sameHost: JobTag = {
    tenant: "org-b",
    cls: "outbound",
    lane: null,
    destination: "http://h",
  };
  const sameAccount: JobTag = {
    tenant: "org-c",
    cls: "outbound",
    lane: null,
    group: "subscriber:u",
  };
  const other: JobTag = { tenant: "org-d", cls: "outbound", lane: null };
  const coreOfA: JobTag = { tenant: "org-a", cls: "core", lane: null };
  const at0 = meter.usage(0, []);
  assert.equal(at0(tag), 8_000);
  assert.equal(at0(sameHost), 8_000, "another tenant's attempt to the host counts its time");
  assert.equal(at0(sameAccount), 8_000, "another tenant's endpoint of the account too");
  assert.equal(at0(other), 0);
  assert.equal(at0(coreOfA), 0, "a tenant's own recomputes are apart from its deliveries");
  assert.equal(meter.usage(2_000, [])(tag), 2_000, "two half-lives later, a quarter");
  const running = meter.usage(2_000, [{ tag: other, startedAt: 500 }]);
  assert.equal(running(other), 1_500, "a run under way counts up to now");
});

Deno.test("[live] a host that leaves attempts unanswered is paused for every endpoint there", async () => {
  await using kv = await Deno.openKv(":memory:");
  const now = Date.now();
  const options = { now, holdMs: 20_000, busyRetryMs: 1_000 };
  const endpoint = (id: string, url: string) => ({ id, createdBy: `user-${id}`, url });
  const silent = (id: string) => endpoint(id, "http://127.0.0.1:9/hook");
  assert.equal(destinationOf("http://127.0.0.1:9/hook"), "http://127.0.0.1:9");
  assert.equal(destinationOf("not a url"), null);
  // Three endpoints of three accounts, each attempt unanswered once: no endpoint's own circuit
  // opens (three failures in a row each would be needed), the host's does.
  for (const id of ["a", "b", "c"]) {
    const gate = await startAttempt(kv, silent(id), options);
    assert.ok(gate.ok, `${id} may start`);
    const ended = await endAttempt(kv, silent(id), {
      token: gate.token,
      failed: true,
      unanswered: true,
      now,
    });
    assert.equal(ended.openUntil, null, "one failure does not pause the endpoint");
  }
  const fourth = await startAttempt(kv, silent("d"), options);
  assert.equal(fourth.ok, false, "a fresh endpoint on that host waits");
  assert.ok(!fourth.ok && fourth.untilMs >= now + 30_000 && /host/.test(fourth.reason));
  const elsewhere = await startAttempt(kv, endpoint("e", "http://127.0.0.1:10/hook"), options);
  assert.ok(elsewhere.ok, "another host is not paused");
  // After the pause, an answer (even an error status) closes the host's circuit.
  const later = { ...options, now: now + 31_000 };
  const retry = await startAttempt(kv, silent("d"), later);
  assert.ok(retry.ok);
  const answered = await endAttempt(kv, silent("d"), {
    token: retry.token,
    failed: true,
    unanswered: false,
    now: later.now,
  });
  assert.equal(answered.destination, null);
  assert.ok((await startAttempt(kv, silent("f"), later)).ok);
});

/** A worker as readiness sees it: its loop runs, it started a job `claimedAgoMs` ago. */
function workerSeen(now: number, claimedAgoMs: number): JobWorker {
  return {
    status: () => ({
      mode: "loop",
      running: true,
      lastCheckAt: new Date(now).toISOString(),
      busy: 0,
      lastClaimAt: new Date(now - claimedAgoMs).toISOString(),
    }),
  } as unknown as JobWorker;
}

Deno.test("[live] readiness reports waiting webhook attempts apart and stays ready while jobs start", async () => {
  await using kv = await Deno.openKv(":memory:");
  const now = Date.now();
  const config = { edge: { purge: "none" as const, purgeUrls: [] } } as never;
  const clock = { now: () => new Date(now) };
  const op = kv.atomic();
  // An attempt of a tenant without a backlog, due ten minutes ago (a host that never answers).
  stageJob(op, {
    kind: "webhook-delivery",
    organizationId: "org-a",
    webhookId: "w1",
    subscriberId: "u1",
    destination: "http://127.0.0.1:9",
  }, { now: new Date(now - 600_000) });
  assert.ok((await op.commit()).ok);
  const busy = await liveStatus({ kv, clock, jobs: workerSeen(now, 1_000), config });
  assert.equal(busy.ready, true, JSON.stringify(busy.problems));
  assert.equal(busy.oldestDueSeconds, null);
  assert.equal(busy.outbound.oldestDueSeconds, 600);
  // Nothing started here for longer than the limit: the worker is stuck, and that is a problem.
  const stuck = await liveStatus({ kv, clock, jobs: workerSeen(now, 600_000), config });
  assert.equal(stuck.ready, false);
  assert.match(stuck.problems.join(" "), /webhook attempt or email has waited 600 s/);
  // A core job as old keeps making the instance unready, whatever was started.
  const core = kv.atomic();
  stageJob(core, { kind: "recompute", organizationId: "org-b", projectId: "p" }, {
    now: new Date(now - 600_000),
  });
  assert.ok((await core.commit()).ok);
  const behind = await liveStatus({ kv, clock, jobs: workerSeen(now, 1_000), config });
  assert.equal(behind.ready, false);
  assert.equal(behind.oldestDueSeconds, 600);
});

Deno.test("[live] lightOutboundWaiting(): a light party's attempt left behind four held outbound slots is reported, a heavy one's is not", () => {
  // The start of a flood: four attempts to hosts not yet known to be silent hold every
  // outbound slot, and a light tenant's delivery is due.
  const flood = [0, 1, 2, 3].map((i) => attempt(`org-${i}`, `sybil-${i}`, `http://h${i}`, i));
  const victim = attempt("victim", "owner", "http://fast", 10);
  const running = withPicks(runningOf([], 0), flood);
  assert.equal(running.outbound, DEFAULT_LIMITS.outbound);
  // Nothing more can start now.
  assert.deepEqual(planClaims([victim], running, DEFAULT_LIMITS), []);
  // While the flood's parties are light too, the victim is light and waits only for the slot.
  assert.equal(lightOutboundWaiting([victim], running, DEFAULT_LIMITS, usageOf({})), true);
  // A waiting attempt of a heavy party (a host that already timed out) is not a reason.
  const heavyHost = attempt("org-9", "sybil-9", "http://h9", 11);
  const heavy = usageOf({ "outbound:destination:http://h9": 10_000 });
  assert.equal(lightOutboundWaiting([heavyHost], running, DEFAULT_LIMITS, heavy), false);
  // With a free outbound slot, nothing waits for one.
  const three = withPicks(runningOf([], 0), flood.slice(0, 3));
  assert.equal(lightOutboundWaiting([victim], three, DEFAULT_LIMITS, usageOf({})), false);
  // A core job never counts.
  const core: DueRef = {
    id: "core",
    dueAt: 12,
    tag: { tenant: "victim", cls: "core", lane: null },
  };
  assert.equal(lightOutboundWaiting([core], running, DEFAULT_LIMITS, usageOf({})), false);
});
