import assert from "node:assert/strict";
import { DEFAULT_MAX_ATTEMPTS, type Job, JOB_BACKOFF_MS } from "../../src/domain/jobs.ts";
import {
  claimJob,
  claimJobs,
  completeJob,
  countDeadJobs,
  createJobEnds,
  failJob,
  getJob,
  insertJob,
  listDeadJobs,
  listDueJobs,
  nextDueAt,
  onJobsCommitted,
  renewJobLease,
  retryDeadJob,
  scheduleUniqueJob,
  stageJob,
} from "../../src/store/jobs.ts";
import { jobDueKey } from "../../src/store/keys.ts";

const T0 = Date.parse("2026-11-01T12:00:00Z");
const at = (ms: number) => new Date(T0 + ms);
const LEASE = { leaseMs: 60_000, owner: "test" };

async function dueIds(kv: Deno.Kv, now: number) {
  return (await listDueJobs(kv, now, 100)).map((r) => r.id);
}

Deno.test("[store] stageJob() writes the job with the change it belongs to, or not at all", async (t) => {
  await using kv = await Deno.openKv(":memory:");
  const heard: number[] = [];
  const stop = onJobsCommitted((dueAt) => heard.push(dueAt));
  try {
    await t.step("a committed change has its job, due when asked", async () => {
      const op = kv.atomic().set(["thing"], 1);
      const job = stageJob(op, { kind: "test" }, { now: at(0), dueAt: T0 + 5000 });
      assert.equal((await op.commit()).ok, true);
      assert.equal((await getJob(kv, job.id))?.state, "scheduled");
      assert.deepEqual(await dueIds(kv, T0 + 4999), []);
      assert.deepEqual(await dueIds(kv, T0 + 5000), [job.id]);
      assert.equal(await nextDueAt(kv), T0 + 5000);
      assert.deepEqual(heard, [T0 + 5000], "listeners hear of committed work");
    });
    await t.step("a change that fails its check leaves no job and tells nobody", async () => {
      const op = kv.atomic().check({ key: ["thing"], versionstamp: null }).set(["thing"], 2);
      const job = stageJob(op, { kind: "test" }, { now: at(0) });
      assert.equal((await op.commit()).ok, false);
      assert.equal(await getJob(kv, job.id), null);
      assert.equal(heard.length, 1);
    });
  } finally {
    stop();
  }
});

Deno.test("[store] claimJob() lets one of many workers take a due job", async () => {
  await using kv = await Deno.openKv(":memory:");
  const job = await insertJob(kv, { kind: "test" }, { now: at(0) });
  const [ref] = await listDueJobs(kv, T0, 10);
  const claims = await Promise.all(
    Array.from({ length: 8 }, (_, i) => claimJob(kv, ref, { ...LEASE, now: T0, owner: `w${i}` })),
  );
  const won = claims.filter((c) => c !== null);
  assert.equal(won.length, 1);
  assert.equal(won[0]!.job.attempt, 1);
  const stored = (await getJob(kv, job.id))!;
  assert.equal(stored.state, "running");
  assert.equal(stored.dueAt, T0 + LEASE.leaseMs, "the index entry moved to the lease end");
  assert.deepEqual(await dueIds(kv, T0 + 1000), [], "a running job is not due");
});

Deno.test("[store] claimJobs() claims a look's picks in one read and one commit, each once", async (t) => {
  await using kv = await Deno.openKv(":memory:");
  let reads = 0;
  let commits = 0;
  const counted = new Proxy(kv, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (property === "get" || property === "getMany") reads++;
      if (property === "atomic") {
        return () => {
          const op = target.atomic();
          const commit = op.commit.bind(op);
          op.commit = () => (commits++, commit());
          return op;
        };
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  await t.step("five due jobs: one read, one commit, five running claims", async () => {
    for (let i = 0; i < 5; i++) await insertJob(kv, { kind: "test", i }, { now: at(i) });
    const refs = await listDueJobs(kv, T0 + 10, 10);
    const claims = await claimJobs(counted, refs, { ...LEASE, now: T0 + 10 });
    assert.deepEqual([reads, commits], [1, 1]);
    assert.deepEqual(claims.map((c) => c?.job.id), refs.map((r) => r.id));
    for (const claim of claims) {
      const stored = (await getJob(kv, claim!.job.id))!;
      assert.equal(stored.state, "running");
      assert.equal(stored.lease?.token, claim!.token);
      assert.equal(await completeJob(kv, claim!), true);
    }
    assert.equal(await nextDueAt(kv), null);
  });
  await t.step(
    "workers claiming the same picks at once: each job is claimed exactly once",
    async () => {
      for (let i = 0; i < 6; i++) await insertJob(kv, { kind: "test", i }, { now: at(100 + i) });
      const refs = await listDueJobs(kv, T0 + 200, 10);
      const results = await Promise.all(
        Array.from(
          { length: 6 },
          (_, w) => claimJobs(kv, refs, { ...LEASE, now: T0 + 200, owner: `w${w}` }),
        ),
      );
      const won = results.flat().filter((c) => c !== null).map((c) => c!.job.id);
      assert.deepEqual(won.toSorted(), refs.map((r) => r.id).toSorted());
    },
  );
  await t.step("a stale entry among the picks is removed and the others are claimed", async () => {
    const job = await insertJob(kv, { kind: "test" }, { now: at(300) });
    const ghost = { id: crypto.randomUUID(), dueAt: T0 + 300 };
    await kv.set(jobDueKey(ghost.dueAt, ghost.id), ghost.id);
    const claims = await claimJobs(kv, [{ id: job.id, dueAt: job.dueAt }, ghost], {
      ...LEASE,
      now: T0 + 300,
    });
    assert.equal(claims[0]?.job.id, job.id);
    assert.equal(claims[1], null);
    assert.equal((await kv.get(jobDueKey(ghost.dueAt, ghost.id))).value, null);
  });
});

Deno.test("[store] a job whose worker died is due again when its lease ends", async () => {
  await using kv = await Deno.openKv(":memory:");
  const job = await insertJob(kv, { kind: "test" }, { now: at(0) });
  const first = await claimJob(kv, (await listDueJobs(kv, T0, 1))[0], { ...LEASE, now: T0 });
  assert.ok(first);
  // The first worker stops here without a word (SIGKILL).
  const later = T0 + LEASE.leaseMs;
  const [ref] = await listDueJobs(kv, later, 1);
  assert.equal(ref.id, job.id);
  const second = await claimJob(kv, ref, { ...LEASE, now: later, owner: "other" });
  assert.ok(second);
  assert.equal(second.job.attempt, 2);
  assert.equal(await completeJob(kv, first), false, "the first claim is lost: it ends nothing");
  assert.equal(await renewJobLease(kv, first, { now: later, leaseMs: 1000 }), false);
  assert.equal(await completeJob(kv, second), true);
  assert.equal(await getJob(kv, job.id), null);
  assert.equal(await nextDueAt(kv), null, "no index entry is left behind");
});

Deno.test("[store] a claim ends its run from what it wrote: renewing and completing read nothing", async () => {
  await using kv = await Deno.openKv(":memory:");
  const job = await insertJob(kv, { kind: "test" }, { now: at(0) });
  const claim = await claimJob(kv, (await listDueJobs(kv, T0, 1))[0], { ...LEASE, now: T0 });
  assert.ok(claim);
  let reads = 0;
  const counted = new Proxy(kv, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (property === "get" || property === "getMany") reads++;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  assert.equal(await renewJobLease(counted, claim, { now: T0 + 5_000, leaseMs: 60_000 }), true);
  assert.equal((await getJob(kv, job.id))!.dueAt, T0 + 65_000);
  assert.deepEqual(await dueIds(kv, T0 + 65_000), [job.id], "one entry, at the new lease end");
  const before = reads;
  assert.equal(await completeJob(counted, claim), true);
  assert.equal(reads - before, 0, "the run ended without reading the job");
  assert.equal(await getJob(kv, job.id), null);
  assert.equal(await nextDueAt(kv), null, "no index entry is left behind");
});

/** `kv` with its reads and commits counted (the counts read through `counts`). */
function countedKv(kv: Deno.Kv) {
  const counts = { reads: 0, commits: 0 };
  const counted = new Proxy(kv, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (property === "get" || property === "getMany") counts.reads++;
      if (property === "atomic") {
        return () => {
          const op = target.atomic();
          const commit = op.commit.bind(op);
          op.commit = () => (counts.commits++, commit());
          return op;
        };
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { counted, counts };
}

Deno.test("[store] createJobEnds() ends the runs that end together in one commit, each as alone", async (t) => {
  await using kv = await Deno.openKv(":memory:");
  const { counted, counts } = countedKv(kv);
  const ends = createJobEnds(counted);
  const claimAll = async (n: number, now: number) => {
    for (let i = 0; i < n; i++) await insertJob(kv, { kind: "test", i }, { now: at(now - T0) });
    const refs = await listDueJobs(kv, now, 100);
    const claims = await claimJobs(kv, refs, { ...LEASE, now });
    assert.ok(claims.every((c) => c !== null));
    return claims as NonNullable<(typeof claims)[number]>[];
  };
  await t.step("completed, released and failed in one turn: one commit, no read", async () => {
    const claims = await claimAll(6, T0);
    counts.reads = counts.commits = 0;
    const [released, failed, ...completed] = claims;
    const results = await Promise.all([
      ends.release(released, { now: T0 + 10, until: T0 + 5_000 }),
      ends.fail(failed, { error: "boom", now: at(10), random: () => 0.5 }),
      ...completed.map((claim) => ends.complete(claim)),
    ]);
    assert.deepEqual([counts.reads, counts.commits], [0, 1]);
    assert.equal(results[0], true);
    assert.equal((results[1] as Job).state, "scheduled");
    assert.deepEqual(results.slice(2), [true, true, true, true]);
    for (const claim of completed) assert.equal(await getJob(kv, claim.job.id), null);
    const back = (await getJob(kv, released.job.id))!;
    assert.deepEqual([back.state, back.dueAt, back.attempt], ["scheduled", T0 + 5_000, 0]);
    const retry = (await getJob(kv, failed.job.id))!;
    assert.deepEqual([retry.state, retry.errors[0].error], ["scheduled", "boom"]);
    assert.deepEqual(
      (await listDueJobs(kv, T0 + 100_000, 100)).map((ref) => ref.id).toSorted(),
      [released.job.id, failed.job.id].toSorted(),
      "the ended runs' lease entries are gone; the two scheduled again have theirs",
    );
    // The released and the failed one are claimed and completed again (their stored record
    // is the one the shared commit wrote: it is rightly not held, so they read first).
    const again = await claimJobs(kv, await listDueJobs(kv, T0 + 100_000, 10), {
      ...LEASE,
      now: T0 + 100_000,
    });
    assert.deepEqual(await Promise.all(again.map((claim) => ends.complete(claim!))), [true, true]);
    assert.equal(await nextDueAt(kv), null);
  });
  await t.step("a lost claim among them ends nothing; the others end", async () => {
    const claims = await claimAll(3, T0 + 200_000);
    // The second job's lease ran out and another worker took it.
    const later = T0 + 200_000 + LEASE.leaseMs;
    const lost = claims[1];
    const other = await claimJob(kv, { id: lost.job.id, dueAt: lost.job.dueAt }, {
      ...LEASE,
      now: later,
      owner: "other",
    });
    assert.ok(other);
    const results = await Promise.all(claims.map((claim) => ends.complete(claim)));
    assert.deepEqual(results, [true, false, true]);
    assert.equal((await getJob(kv, lost.job.id))?.lease?.owner, "other", "its run goes on");
    assert.equal(await getJob(kv, claims[0].job.id), null);
    assert.equal(await getJob(kv, claims[2].job.id), null);
    assert.equal(await completeJob(kv, other), true);
    assert.equal(await nextDueAt(kv), null);
  });
  await t.step("twelve at once: two commits (denokv's 10 checks per atomic write)", async () => {
    const claims = await claimAll(12, T0 + 400_000);
    counts.commits = 0;
    const results = await Promise.all(claims.map((claim) => ends.complete(claim)));
    assert.ok(results.every((ok) => ok));
    assert.equal(counts.commits, 2);
    assert.equal(await nextDueAt(kv), null);
  });
});

Deno.test("[store] failJob() backs off, then dead-letters; retryDeadJob() runs it again", async (t) => {
  await using kv = await Deno.openKv(":memory:");
  const job = await insertJob(kv, { kind: "test" }, { now: at(0) });
  let now = T0;
  let stored: Job | null = null;
  await t.step("each failure waits longer, with the error kept", async () => {
    for (let attempt = 1; attempt < DEFAULT_MAX_ATTEMPTS; attempt++) {
      const [ref] = await listDueJobs(kv, now, 1);
      const claim = await claimJob(kv, ref, { ...LEASE, now });
      assert.ok(claim, `attempt ${attempt} is claimed`);
      stored = await failJob(kv, claim, {
        error: `boom ${attempt}`,
        now: new Date(now),
        random: () => 0.5,
      });
      assert.equal(stored?.state, "scheduled");
      const base = JOB_BACKOFF_MS[Math.min(attempt - 1, JOB_BACKOFF_MS.length - 1)];
      assert.equal(stored!.dueAt - now, base, `backoff after attempt ${attempt}`);
      now = stored!.dueAt;
    }
    assert.equal(stored!.errors.length, 5, "the newest five errors are kept");
    assert.equal(stored!.errors.at(-1)!.error, `boom ${DEFAULT_MAX_ATTEMPTS - 1}`);
  });
  await t.step("the last attempt's failure dead-letters it", async () => {
    const [ref] = await listDueJobs(kv, now, 1);
    const claim = await claimJob(kv, ref, { ...LEASE, now });
    assert.ok(claim);
    stored = await failJob(kv, claim, { error: "still broken", now: new Date(now) });
    assert.equal(stored?.state, "dead");
    assert.equal(await nextDueAt(kv), null, "a dead job is not due");
    assert.equal(await countDeadJobs(kv, 10), 1);
    const [dead] = await listDeadJobs(kv, 10);
    assert.equal(dead.id, job.id);
    assert.equal(dead.errors.at(-1)!.error, "still broken");
  });
  await t.step("a retry schedules it now with a fresh count; errors stay", async () => {
    const retried = await retryDeadJob(kv, job.id, new Date(now));
    assert.equal(retried?.state, "scheduled");
    assert.equal(retried?.attempt, 0);
    assert.deepEqual(await dueIds(kv, now), [job.id]);
    assert.equal(await countDeadJobs(kv, 10), 0);
    assert.equal((await getJob(kv, job.id))!.errors.at(-1)!.error, "still broken");
    assert.equal(await retryDeadJob(kv, job.id, new Date(now)), null, "only dead jobs retry");
  });
});

Deno.test("[store] scheduleUniqueJob() keeps one job per id and never loses work", async (t) => {
  await using kv = await Deno.openKv(":memory:");
  const message = { kind: "recompute", projectId: "p" };
  const id = "recompute.p";
  await t.step("created once; a later wish changes nothing, an earlier one moves it", async () => {
    await scheduleUniqueJob(kv, id, { message, dueAt: T0 + 10_000, now: at(0) });
    await scheduleUniqueJob(kv, id, { message, dueAt: T0 + 20_000, now: at(0) });
    assert.equal((await getJob(kv, id))!.dueAt, T0 + 10_000);
    await scheduleUniqueJob(kv, id, { message, dueAt: T0 + 2_000, now: at(0) });
    assert.equal((await getJob(kv, id))!.dueAt, T0 + 2_000);
    assert.equal((await listDueJobs(kv, T0 + 100_000, 10)).length, 1, "one index entry");
  });
  await t.step("concurrent wishes still make one job", async () => {
    await Promise.all(
      Array.from(
        { length: 10 },
        (_, i) => scheduleUniqueJob(kv, id, { message, dueAt: T0 + 1_000 + i, now: at(0) }),
      ),
    );
    assert.equal((await getJob(kv, id))!.dueAt, T0 + 1_000);
    assert.equal((await listDueJobs(kv, T0 + 100_000, 10)).length, 1);
  });
  await t.step("a wish while it runs makes one more run after this one", async () => {
    const [ref] = await listDueJobs(kv, T0 + 1_000, 1);
    const claim = await claimJob(kv, ref, { ...LEASE, now: T0 + 1_000 });
    assert.ok(claim);
    await scheduleUniqueJob(kv, id, { message, dueAt: T0 + 3_000, now: at(1_500) });
    await scheduleUniqueJob(kv, id, { message, dueAt: T0 + 9_000, now: at(1_600) });
    assert.equal(await completeJob(kv, claim), true);
    const next = (await getJob(kv, id))!;
    assert.equal(next.state, "scheduled");
    assert.equal(next.dueAt, T0 + 3_000, "the earliest wish made during the run");
    assert.equal(next.attempt, 0);
  });
  await t.step("a dead unique job is revived by new work", async () => {
    const [ref] = await listDueJobs(kv, T0 + 3_000, 1);
    let claim = await claimJob(kv, ref, { ...LEASE, now: T0 + 3_000 });
    assert.ok(claim);
    await kv.set(["jobs", id], { ...(await getJob(kv, id))!, maxAttempts: 1 });
    claim = { ...claim, job: (await getJob(kv, id))! };
    assert.equal((await failJob(kv, claim, { error: "x", now: at(3_000) }))?.state, "dead");
    await scheduleUniqueJob(kv, id, { message, dueAt: T0 + 4_000, now: at(3_500) });
    const revived = (await getJob(kv, id))!;
    assert.equal(revived.state, "scheduled");
    assert.equal(await countDeadJobs(kv, 10), 0);
  });
});

Deno.test("[store] a due index entry without its job is removed, not claimed", async () => {
  await using kv = await Deno.openKv(":memory:");
  await kv.set(jobDueKey(T0, "gone"), "gone");
  assert.equal(await claimJob(kv, { id: "gone", dueAt: T0 }, { ...LEASE, now: T0 }), null);
  assert.equal(await nextDueAt(kv), null);
});
