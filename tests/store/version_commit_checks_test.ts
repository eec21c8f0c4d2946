/**
 * A version's commit stays within denokv's 10 checks per atomic write (docs/kv_connect.md): a
 * first publish of a project whose six evidence controls each cite a payload made 14 checks
 * (one per new citation and per event job staged, besides the version's own), which a KV
 * Connect server with denokv's limits refuses. The commits of the whole flow are counted.
 */
import assert from "node:assert/strict";
import { EvidenceType } from "../../src/domain/control.ts";
import { createTestApp } from "../support/app.ts";
import { collector, evidenceItem, publishVersion, workspace } from "../support/fixtures.ts";

/** denokv's MAX_CHECKS (proto/limits.rs). */
const DENOKV_MAX_CHECKS = 10;

/** `kv` with the checks of each commit recorded, with the commit's first keys. */
function countingChecks(kv: Deno.Kv, commits: { checks: number; keys: string[] }[]): Deno.Kv {
  const atomic = kv.atomic.bind(kv);
  kv.atomic = () => {
    const op = atomic();
    const keys: string[] = [];
    const check = op.check.bind(op);
    const commit = op.commit.bind(op);
    op.check = (...entries) => {
      keys.push(...entries.map((entry) => JSON.stringify(entry.key)));
      return check(...entries);
    };
    op.commit = () => {
      commits.push({ checks: keys.length, keys });
      return commit();
    };
    return op;
  };
  return kv;
}

Deno.test("[store] a first publish citing six payloads commits within denokv's 10 checks", async () => {
  const commits: { checks: number; keys: string[] }[] = [];
  await using t = await createTestApp({ wrapKv: (kv) => countingChecks(kv, commits) });
  const ws = await workspace(t, "ivy");
  const c = await collector(t, ws);
  for (const [i, evidenceType] of EvidenceType.options.entries()) {
    const res = await t.call("POST", "/ingest/evidence", {
      headers: { authorization: `Bearer ${c.secret}` },
      json: { projectId: ws.project.id, ...evidenceItem(t, { document: i }, { evidenceType }) },
    });
    assert.equal(res.status, 201, await res.text());
  }
  const before = commits.length;
  assert.equal(await publishVersion(t, ws), 1);
  const publish = commits.slice(before);
  const version = publish.find((commit) => commit.keys.some((key) => key.includes("log_head")));
  assert.ok(version, "the version's commit checks the log head");
  const citations = await Array.fromAsync(
    t.kv.list({ prefix: ["evidence_citations", ws.project.id] }),
  );
  assert.equal(citations.length, 6, "each evidence control's payload is cited");
  const over = commits.filter((commit) => commit.checks > DENOKV_MAX_CHECKS);
  assert.deepEqual(over, [], "no commit over denokv's checks");
});
