/**
 * Evidence batches stay within denokv's 10 checks per atomic (Deno KV and Deploy allow 100): a
 * 100-record batch commits with one check (the project's ingest stamp instead of one per
 * record), a batch of CHECKED_RECORDS (10) checks each record; a replay and a concurrent
 * identical batch still store each record once and answer "already stored".
 */
import assert from "node:assert/strict";
import { createTestApp, type TestApp } from "../support/app.ts";
import { collector, evidenceItem, sbomPayload, workspace } from "../support/fixtures.ts";
import { ingestEvidence } from "../../src/ingest/evidence.ts";
import { CHECKED_RECORDS } from "../../src/store/evidence.ts";
import { getCollector } from "../../src/store/collectors.ts";
import type { EvidenceItem } from "../../src/domain/collector.ts";

/** A KV whose atomics report how many checks each commit carried. */
function countingKv(kv: Deno.Kv, checks: number[]): Deno.Kv {
  return new Proxy(kv, {
    get(target, prop) {
      if (prop === "atomic") {
        return () => {
          const op = target.atomic();
          let count = 0;
          const check = op.check.bind(op);
          const commit = op.commit.bind(op);
          op.check = (...entries) => {
            count += entries.length;
            return check(...entries);
          };
          op.commit = () => {
            checks.push(count);
            return commit();
          };
          return op;
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

async function setup(t: TestApp) {
  const ws = await workspace(t, "hank");
  const c = await collector(t, ws);
  return (await getCollector(t.kv, c.id))!;
}

function items(t: TestApp, count: number, seed = 0): EvidenceItem[] {
  return Array.from(
    { length: count },
    (_, i) => evidenceItem(t, sbomPayload(seed + i)) as EvidenceItem,
  );
}

Deno.test("a 100-record batch commits within denokv's 10 checks", async () => {
  await using t = await createTestApp();
  const c = await setup(t);
  const checks: number[] = [];
  const kv = countingKv(t.kv, checks);
  const batch = items(t, 100);
  const first = await ingestEvidence(c, batch, { kv, blobs: t.services.blobs, now: t.clock.now() });
  assert.equal(first.created, true);
  assert.equal(first.records.length, 100);
  assert.equal(new Set(first.records.map((r) => r.id)).size, 100);
  assert.ok(checks.length >= 1);
  assert.ok(Math.max(...checks) <= 10, `checks per commit: ${checks}`);

  const again = await ingestEvidence(c, batch, { kv, blobs: t.services.blobs, now: t.clock.now() });
  assert.equal(again.created, false, "a replay stores nothing new");
  assert.deepEqual(again.records.map((r) => r.id), first.records.map((r) => r.id));

  const mixed = [...batch.slice(0, 60), ...items(t, 40, 1000)];
  const third = await ingestEvidence(c, mixed, { kv, blobs: t.services.blobs, now: t.clock.now() });
  assert.equal(third.created, true);
  let stored = 0;
  for await (const _ of t.kv.list({ prefix: ["evidence_by_observation", c.projectId] })) stored++;
  assert.equal(stored, 140, "each record once");
});

Deno.test("a batch of CHECKED_RECORDS checks each record; concurrent identical batches store once", async () => {
  await using t = await createTestApp();
  const c = await setup(t);
  const checks: number[] = [];
  const kv = countingKv(t.kv, checks);
  const small = items(t, CHECKED_RECORDS);
  await ingestEvidence(c, small, { kv, blobs: t.services.blobs, now: t.clock.now() });
  assert.ok(checks.includes(CHECKED_RECORDS), `checks per commit: ${checks}`);

  const big = items(t, 100, 500);
  const results = await Promise.all([
    ingestEvidence(c, big, { kv, blobs: t.services.blobs, now: t.clock.now() }),
    ingestEvidence(c, big, { kv, blobs: t.services.blobs, now: t.clock.now() }),
    ingestEvidence(c, big.slice(0, 10), { kv, blobs: t.services.blobs, now: t.clock.now() }),
  ]);
  assert.equal(results.filter((r) => r.created).length >= 1, true);
  assert.deepEqual(results[0].records.map((r) => r.id), results[1].records.map((r) => r.id));
  let stored = 0;
  for await (const _ of t.kv.list({ prefix: ["evidence_by_observation", c.projectId] })) stored++;
  assert.equal(stored, CHECKED_RECORDS + 100);
  assert.ok(Math.max(...checks) <= 10, `checks per commit: ${checks}`);
});

/** A KV whose reads of evidence records (by id) and ranged reads are counted. */
function readCountingKv(kv: Deno.Kv, reads: { byId: number; lists: number }): Deno.Kv {
  return new Proxy(kv, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop === "getMany") {
        return (keys: Deno.KvKey[]) => {
          if (keys.some((key) => key[0] === "evidence")) reads.byId++;
          return target.getMany(keys);
        };
      }
      if (prop === "list") {
        return (...args: Parameters<Deno.Kv["list"]>) => (reads.lists++, target.list(...args));
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

Deno.test("a large batch learns which records are stored from one ranged read of the observation index", async (t) => {
  await using app = await createTestApp();
  const c = await setup(app);
  const reads = { byId: 0, lists: 0 };
  const kv = readCountingKv(app.kv, reads);
  const ingest = (batch: EvidenceItem[]) =>
    ingestEvidence(c, batch, { kv, blobs: app.services.blobs, now: app.clock.now() });
  const batch = items(app, 100);
  await t.step("a new batch: one ranged read, no record read by id", async () => {
    const result = await ingest(batch);
    assert.equal(result.created, true);
    assert.deepEqual([reads.byId, reads.lists], [0, 1]);
  });
  await t.step("a replay and a half-stored batch: the stored ones found and answered", async () => {
    const stored = (await ingest(batch)).records;
    assert.equal(stored.length, 100);
    assert.equal(reads.byId, 10, "the 100 records found are read, 10 a read");
    const mixed = [...batch.slice(0, 30), ...items(app, 70, 1000)];
    const result = await ingest(mixed);
    assert.equal(result.created, true);
    assert.deepEqual(result.records.slice(0, 30), stored.slice(0, 30), "as first stored");
  });
  await t.step(
    "past 200 entries at one instant, records are read by id: each still once",
    async () => {
      for (let seed = 2000; seed < 2200; seed += 100) {
        assert.equal((await ingest(items(app, 100, seed))).created, true);
      }
      reads.byId = 0;
      const again = await ingest([...batch.slice(0, 50), ...items(app, 50, 5000)]);
      assert.equal(again.created, true);
      assert.equal(reads.byId, 10, "one read a 10 ids (no index lookup)");
      let entries = 0;
      for await (const _ of app.kv.list({ prefix: ["evidence_by_observation", c.projectId] })) {
        entries++;
      }
      assert.equal(entries, 100 + 70 + 200 + 50, "each record once");
    },
  );
});
