/**
 * Recompute cost against stored history: 20 controls evaluated for a
 * project with 100 evidence records and for one with 100 000, in the same
 * run on the same KV file. The ratio should stay near 1 (target <= 1.5),
 * because each control reads one index entry and one payload.
 */
import { createKvBlobStore } from "../../src/blobs/kv.ts";
import { EvidenceType } from "../../src/domain/control.ts";
import { catalogControls } from "../../src/evaluate/catalog.ts";
import { ingestEvidence } from "../../src/ingest/evidence.ts";
import { recomputeProject } from "../../src/live/recompute.ts";
import type { Collector } from "../../src/domain/collector.ts";
import { createControl } from "../../src/store/controls.ts";
import { createProject } from "../../src/store/projects.ts";
import { timed } from "./_harness.ts";

const TYPES = EvidenceType.options;
const ROUNDS = 40;

async function seededProject(
  kv: Deno.Kv,
  blobs: ReturnType<typeof createKvBlobStore>,
  records: number,
) {
  const organizationId = crypto.randomUUID();
  const now = new Date();
  const project = await createProject(kv, { organizationId, name: `bench ${records}` }, {
    now,
    controls: catalogControls(now),
  });
  for (let i = 0; i < 13; i++) {
    await createControl(kv, project.id, {
      id: crypto.randomUUID(),
      key: `custom.rule-${i}`,
      category: "evidence",
      publicName: `Rule ${i}`,
      freshnessPolicyJson: { kind: "time_window", windowSeconds: 86400 },
      degradationPolicyJson: { staleAfterSeconds: 7 * 86400, degradedAfterSeconds: null },
      enabled: true,
      required: false,
      createdAt: now.toISOString(),
      evidenceType: TYPES[i % TYPES.length],
      rule: { path: "summary.critical", op: "lte", value: 0 },
    });
  }
  const collector = {
    id: crypto.randomUUID(),
    organizationId,
    projectId: project.id,
    name: "bench",
  } as Collector;
  for (let start = 0; start < records; start += 100) {
    const items = Array.from({ length: Math.min(100, records - start) }, (_, i) => ({
      evidenceType: TYPES[(start + i) % TYPES.length],
      sourceType: "collector" as const,
      sourceRef: `bench/${start + i}`,
      observedAt: new Date(now.getTime() - (records - start - i) * 1000).toISOString(),
      payload: { summary: { critical: 0, high: 0, medium: 0, low: start + i }, n: start + i },
    }));
    await ingestEvidence(collector, items, { kv, blobs, now });
  }
  return project.id;
}

export async function benchRecompute(): Promise<{ ratio: number; line: string }> {
  const dir = await Deno.makeTempDir();
  const kv = await Deno.openKv(`${dir}/kv.sqlite3`);
  try {
    const blobs = createKvBlobStore(kv);
    const small = await seededProject(kv, blobs, 100);
    const large = await seededProject(kv, blobs, Number(Deno.env.get("BENCH_RECORDS") ?? 100_000));
    const run = (projectId: string) =>
      timed(() => recomputeProject({ kv, blobs }, projectId, new Date()));
    await run(small);
    await run(large);
    let smallMs = 0;
    let largeMs = 0;
    for (let i = 0; i < ROUNDS; i++) {
      smallMs += await run(small);
      largeMs += await run(large);
    }
    const ratio = largeMs / smallMs;
    return {
      ratio,
      line: `recompute: 20 controls, 100 records ${
        (smallMs / ROUNDS).toFixed(2)
      } ms, 100000 records ${(largeMs / ROUNDS).toFixed(2)} ms, ratio ${
        ratio.toFixed(2)
      } (target <= 1.5)`,
    };
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) console.log((await benchRecompute()).line);
