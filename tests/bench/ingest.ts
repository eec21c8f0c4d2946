/**
 * Ingest throughput over HTTP (batches of 100 records with 1 KiB payloads)
 * as a ratio to writing the same records and payloads straight into KV, in
 * the same run, on the same kind of KV file. The service runs as its own
 * process, as in production; the direct writes run in this one.
 */
import { pool, startBenchService, timed } from "./_harness.ts";

const BATCHES = Number(Deno.env.get("BENCH_BATCHES") ?? 30);
const CONCURRENCY = Number(Deno.env.get("BENCH_CONCURRENCY") ?? 4);

function payload(batch: number, i: number) {
  return {
    bomFormat: "CycloneDX",
    specVersion: "1.5",
    serialNumber: `urn:uuid:${crypto.randomUUID()}`,
    metadata: { batch, i },
    components: [{
      type: "library",
      name: `pkg-${batch}-${i}`,
      version: "1.0.0",
      purl: "x".repeat(850),
    }],
  };
}

function batchBody(projectId: string, batch: number) {
  const observedAt = new Date().toISOString();
  return {
    projectId,
    records: Array.from({ length: 100 }, (_, i) => ({
      evidenceType: "sbom",
      sourceType: "collector",
      sourceRef: `bench/${batch}/${i}`,
      observedAt,
      payload: payload(batch, i),
    })),
  };
}

async function openTempKv() {
  const dir = await Deno.makeTempDir();
  return { kv: await Deno.openKv(`${dir}/kv.sqlite3`), dir };
}

export async function benchIngest(): Promise<{ ratio: number; line: string }> {
  const direct = await openTempKv();
  const directMs = await timed(() =>
    pool(
      Array.from({ length: BATCHES }, (_, batch) => async () => {
        const body = batchBody("bench-project", batch);
        const op = direct.kv.atomic();
        for (const record of body.records) {
          const id = crypto.randomUUID();
          const text = JSON.stringify(record.payload);
          op.set(["evidence", id], {
            id,
            ...record,
            payload: undefined,
            receivedAt: new Date().toISOString(),
          });
          op.set(["payloads", id], text);
        }
        await op.commit();
      }),
      CONCURRENCY,
    ).then(() => {})
  );
  direct.kv.close();
  await Deno.remove(direct.dir, { recursive: true });

  const ws = await startBenchService();
  let failures = 0;
  const httpMs = await timed(() =>
    pool(
      Array.from({ length: BATCHES }, (_, batch) => async () => {
        const res = await fetch(`${ws.baseUrl}/ingest/evidence/batch`, {
          method: "POST",
          headers: { authorization: `Bearer ${ws.secret}`, "content-type": "application/json" },
          body: JSON.stringify(batchBody(ws.projectId, batch)),
        });
        if (res.status !== 201) failures++;
        await res.body?.cancel();
      }),
      CONCURRENCY,
    ).then(() => {})
  );
  await ws.close();
  if (failures) throw new Error(`${failures} batches failed`);

  const records = BATCHES * 100;
  const directRate = records / (directMs / 1000);
  const httpRate = records / (httpMs / 1000);
  const ratio = httpRate / directRate;
  return {
    ratio,
    line: `ingest: HTTP ${httpRate.toFixed(0)} records/s, direct KV ${
      directRate.toFixed(0)
    } records/s, ratio ${
      ratio.toFixed(2)
    } (target >= 0.5; ${records} records of 1 KiB in batches of 100)`,
  };
}

if (import.meta.main) console.log((await benchIngest()).line);
