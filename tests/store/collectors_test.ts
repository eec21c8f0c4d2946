import assert from "node:assert/strict";
import type { TrustSignalDetection } from "../../src/domain/collector.ts";
import { createCollector, getCollector, markCollectorSeen } from "../../src/store/collectors.ts";
import { getLatestSignals, recordSignals } from "../../src/store/signals.ts";

const ORG = "00000000-0000-4000-8000-000000000001";
const PROJECT = "00000000-0000-4000-8000-000000000002";
const USER = "00000000-0000-4000-8000-000000000003";
const T0 = new Date("2026-01-01T00:00:00Z");
const later = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

async function collector(kv: Deno.Kv) {
  return await createCollector(kv, {
    organizationId: ORG,
    projectId: PROJECT,
    name: "ci",
    allowedActions: ["heartbeat", "ingest:signals"],
    createdByUserId: USER,
    secretHash: crypto.randomUUID(),
  }, T0);
}

Deno.test("[store] markCollectorSeen() never moves lastSeenAt back", async (t) => {
  await using kv = await Deno.openKv(":memory:");
  const { id } = await collector(kv);

  await t.step("a new collector was never seen", async () => {
    assert.equal((await getCollector(kv, id))?.lastSeenAt, null);
  });

  await t.step("a heartbeat sets lastSeenAt", async () => {
    await markCollectorSeen(kv, id, later(10));
    assert.equal((await getCollector(kv, id))?.lastSeenAt, later(10).toISOString());
  });

  await t.step("an older heartbeat leaves it", async () => {
    await markCollectorSeen(kv, id, later(5));
    assert.equal((await getCollector(kv, id))?.lastSeenAt, later(10).toISOString());
  });
});

Deno.test("[store] recordSignals() keeps the newest detection and the collector's activity", async (t) => {
  await using kv = await Deno.openKv(":memory:");
  const { id } = await collector(kv);
  const none = { detected: false };
  const detection = (minutes: number): TrustSignalDetection => ({
    detectedAt: later(minutes).toISOString(),
    commitSha: "abc123",
    ciCd: none,
    monitoring: none,
    authProvider: none,
    cloudProvider: none,
    securityContact: { detected: false, email: null },
  });

  await t.step("a detection is kept and the reporting collector seen", async () => {
    const newer = detection(20);
    const kept = await recordSignals(kv, newer, {
      projectId: PROJECT,
      seenCollector: { id, now: later(21) },
    });
    assert.deepEqual(kept, newer);
    assert.deepEqual(await getLatestSignals(kv, PROJECT), newer);
    assert.equal((await getCollector(kv, id))?.lastSeenAt, later(21).toISOString());
  });

  await t.step("an older detection answers the newer one, still seeing the collector", async () => {
    const kept = await recordSignals(kv, detection(1), {
      projectId: PROJECT,
      seenCollector: { id, now: later(30) },
    });
    assert.deepEqual(kept, detection(20));
    assert.equal((await getCollector(kv, id))?.lastSeenAt, later(30).toISOString());
  });
});
