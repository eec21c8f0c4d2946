import assert from "node:assert/strict";
import { loadSigningKey } from "../../src/auth/keys.ts";
import { createKvBlobStore } from "../../src/blobs/kv.ts";
import { loadConfig } from "../../src/config.ts";
import { encodeLogEntry } from "../../src/domain/log.ts";
import { createArtifactCache } from "../../src/serve/artifacts.ts";
import {
  consistencyProof,
  inclusionProof,
  latestCheckpoint,
  logInfo,
  type LogReads,
} from "../../src/serve/log.ts";
import { addLogAppend, getLogSize } from "../../src/store/log.ts";
import {
  fromBase64,
  rfcLeafHash,
  rfcRoot,
  toBase64,
  verifyCheckpoint,
  verifyConsistency,
  verifyInclusion,
} from "../support/tlog_verifier.ts";

const SIZES = 70;

async function logWorld() {
  const kv = await Deno.openKv(":memory:");
  const reads: LogReads = {
    kv,
    blobs: createKvBlobStore(kv),
    artifacts: createArtifactCache(),
    config: loadConfig({ BASE_URL: "http://trust.test", KV_PATH: ":memory:" }),
    keys: { log: await loadSigningKey(kv, "log") },
  };
  return { kv, reads, [Symbol.asyncDispose]: () => Promise.resolve(kv.close()) };
}

function entryFor(i: number) {
  return {
    projectId: `project-${i % 3}`,
    slug: `p${i % 3}`,
    version: Math.floor(i / 3) + 1,
    digest: `sha256:${i.toString(16).padStart(64, "0")}`,
    publishedAt: new Date(Date.UTC(2026, 10, 1, 0, 0, i)).toISOString(),
  };
}

async function append(kv: Deno.Kv, i: number): Promise<number> {
  const op = kv.atomic();
  const index = await addLogAppend(kv, op, entryFor(i));
  assert.ok((await op.commit()).ok);
  return index;
}

Deno.test("[serve] publication log: proofs for trees of 1..70 entries verify with an independent RFC 9162 verifier", async (t) => {
  await using world = await logWorld();
  const { kv, reads } = world;
  const { verifierKey } = await logInfo(reads);
  const leaves: Uint8Array[] = [];
  const roots: Uint8Array[] = [];
  for (let i = 0; i < SIZES; i++) {
    assert.equal(await append(kv, i), i, "entries take consecutive indexes");
    leaves.push(await rfcLeafHash(encodeLogEntry(entryFor(i))));
    roots.push(await rfcRoot(leaves));
  }
  assert.equal(await getLogSize(kv), SIZES);

  await t.step(
    "the latest checkpoint is signed and names the RFC 6962 root of every leaf",
    async () => {
      const checkpoint = await verifyCheckpoint(await latestCheckpoint(reads), verifierKey);
      assert.equal(checkpoint.origin, "trust.test/log");
      assert.equal(checkpoint.size, SIZES);
      assert.equal(toBase64(checkpoint.root), toBase64(roots[SIZES - 1]));
    },
  );

  await t.step("every leaf's inclusion proof in every tree size verifies", async () => {
    for (let size = 1; size <= SIZES; size++) {
      for (let index = 0; index < size; index++) {
        const proof = await inclusionProof(reads, index, size);
        assert.equal(proof.treeSize, size);
        assert.equal(proof.leafHash, toBase64(leaves[index]));
        assert.equal(proof.rootHash, toBase64(roots[size - 1]));
        const ok = await verifyInclusion(
          index,
          size,
          proof.proof.map(fromBase64),
          leaves[index],
          roots[size - 1],
        );
        assert.ok(ok, `leaf ${index} in tree ${size}`);
      }
      // The checkpoint of each size is signed over that size's root.
      const proof = await inclusionProof(reads, 0, size);
      const checkpoint = await verifyCheckpoint(proof.checkpoint, verifierKey);
      assert.equal(checkpoint.size, size);
      assert.equal(toBase64(checkpoint.root), toBase64(roots[size - 1]));
    }
  });

  await t.step(
    "a proof fails for another leaf, another index, a wrong root or a changed hash",
    async () => {
      const proof = await inclusionProof(reads, 37, 70);
      const path = proof.proof.map(fromBase64);
      assert.equal(await verifyInclusion(37, 70, path, leaves[38], roots[69]), false);
      assert.equal(await verifyInclusion(36, 70, path, leaves[37], roots[69]), false);
      assert.equal(await verifyInclusion(37, 70, path, leaves[37], roots[68]), false);
      const flipped = path.map((h) => h.slice());
      flipped[2][5] ^= 1;
      assert.equal(await verifyInclusion(37, 70, flipped, leaves[37], roots[69]), false);
    },
  );

  await t.step("consistency proofs between every pair of sizes verify", async () => {
    for (let to = 1; to <= SIZES; to++) {
      for (let from = 1; from <= to; from++) {
        const proof = await consistencyProof(reads, from, to);
        assert.equal(proof.fromRootHash, toBase64(roots[from - 1]));
        assert.equal(proof.toRootHash, toBase64(roots[to - 1]));
        const ok = await verifyConsistency(
          from,
          to,
          proof.proof.map(fromBase64),
          roots[from - 1],
          roots[to - 1],
        );
        assert.ok(ok, `consistency ${from} → ${to}`);
      }
    }
  });

  await t.step("a consistency proof fails against a root the log never had", async () => {
    const proof = await consistencyProof(reads, 13, 70);
    const forged = roots[12].slice();
    forged[0] ^= 1;
    const path = proof.proof.map(fromBase64);
    assert.equal(await verifyConsistency(13, 70, path, forged, roots[69]), false);
    assert.equal(await verifyConsistency(13, 70, path, roots[12], roots[68]), false);
    assert.equal(await verifyConsistency(12, 70, path, roots[11], roots[69]), false);
  });

  await t.step("sizes beyond the log are 404, inverted or out-of-tree ones 400", async () => {
    await assert.rejects(() => inclusionProof(reads, 0, 71), { code: "not_found" });
    await assert.rejects(() => inclusionProof(reads, 70), { code: "not_found" });
    await assert.rejects(() => inclusionProof(reads, 5, 5), { code: "validation_failed" });
    await assert.rejects(() => consistencyProof(reads, 3, 71), { code: "not_found" });
    await assert.rejects(() => consistencyProof(reads, 9, 8), { code: "validation_failed" });
  });
});

Deno.test("[serve] publication log: an empty log has a signed checkpoint of size 0", async () => {
  await using world = await logWorld();
  const { verifierKey } = await logInfo(world.reads);
  const checkpoint = await verifyCheckpoint(await latestCheckpoint(world.reads), verifierKey);
  assert.equal(checkpoint.size, 0);
  assert.equal(toBase64(checkpoint.root), toBase64(await rfcRoot([])));
});
