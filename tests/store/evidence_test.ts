import assert from "node:assert/strict";
import type { EvidenceRecordSummary } from "../../src/domain/collector.ts";
import { commitEvidence, getEvidenceMany, getIdempotencyRecord } from "../../src/store/evidence.ts";
import { collectorLastSeenKey } from "../../src/store/keys.ts";

const ORG = "00000000-0000-4000-8000-000000000001";
const PROJECT = "00000000-0000-4000-8000-000000000002";
const COLLECTOR = "00000000-0000-4000-8000-000000000003";
const NOW = new Date("2026-01-01T00:00:00Z");

function record(sourceRef: string): EvidenceRecordSummary {
  return {
    id: crypto.randomUUID(),
    organizationId: ORG,
    projectId: PROJECT,
    collectorPrincipalId: COLLECTOR,
    collector: { id: COLLECTOR, name: "ci" },
    evidenceType: "sbom",
    sourceType: "collector",
    sourceRef,
    payloadS3Key: "evidence/0",
    checksum: "sha256:0",
    observedAt: NOW.toISOString(),
    receivedAt: NOW.toISOString(),
    reading: { format: null, understood: false, summary: "Unreadable" },
  };
}

Deno.test("[store] commitEvidence() rejects a record that already exists", async (t) => {
  await using kv = await Deno.openKv(":memory:");
  const first = record("a");
  const options = { collectorId: COLLECTOR, now: NOW };

  await t.step("new records are committed with the caller's staged writes", async () => {
    const staged = ["staged", "payload"];
    const committed = await commitEvidence(kv, [first], {
      ...options,
      idempotency: {
        projectId: PROJECT,
        key: "k",
        record: { requestHash: "h", recordIds: [first.id] },
      },
      stage: (op) => {
        op.set(staged, true);
        return Promise.resolve();
      },
    });
    assert.equal(committed, true);
    assert.deepEqual(await getEvidenceMany(kv, [first.id]), [first]);
    assert.equal((await kv.get(staged)).value, true);
    assert.deepEqual(await getIdempotencyRecord(kv, PROJECT, "k"), {
      requestHash: "h",
      recordIds: [first.id],
    });
  });

  await t.step("a batch with an existing record commits nothing", async () => {
    const second = record("b");
    assert.equal(await commitEvidence(kv, [second, first], options), false);
    assert.deepEqual(await getEvidenceMany(kv, [second.id]), [null]);
  });

  await t.step("the collector's activity is recorded with the commit", async () => {
    const seen = await kv.get<Deno.KvU64>(collectorLastSeenKey(COLLECTOR));
    assert.equal(seen.value?.value, BigInt(NOW.getTime()));
  });
});
