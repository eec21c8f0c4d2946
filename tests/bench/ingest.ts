/**
 * Ingest throughput over HTTP (batches of 100 records with 1 KiB payloads)
 * as a ratio to writing the same records and payloads straight into KV, in
 * the same run, on the same kind of KV file. The service runs as its own
 * process, as in production; the direct writes run in this one.
 *
 * After untimed warm-up batches on both sides, the two are timed in rounds
 * whose order alternates, and the ratio is the median of the rounds' ratios,
 * so load that drifts during the run (the client, the service and its KV
 * thread share the machine) biases neither side. Both stores keep growing
 * across rounds, by the same number of records.
 */
import { type BenchService, median, pool, startBenchService, timed } from "./_harness.ts";

/** Timed batches per side in each round. */
const DEFAULT_BATCHES = Number(Deno.env.get("BENCH_BATCHES") ?? 20);
const DEFAULT_ROUNDS = Number(Deno.env.get("BENCH_ROUNDS") ?? 5);
/** Untimed batches sent first on both sides, so neither is measured while its code is cold. */
const DEFAULT_WARMUP = Number(Deno.env.get("BENCH_WARMUP") ?? 5);
const CONCURRENCY = Number(Deno.env.get("BENCH_CONCURRENCY") ?? 4);
const TARGET = 0.5;

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

/** Sends `count` batches numbered from `first`, `CONCURRENCY` at a time. */
function run(send: (batch: number) => Promise<void>, first: number, count: number) {
  return pool(Array.from({ length: count }, (_, i) => () => send(first + i)), CONCURRENCY);
}

/** Where a run of the ingest benchmark writes: the direct side's KV and the service. */
export interface IngestTarget {
  /** The KV the direct writes go to, and how to let it go. */
  openDirect(): Promise<{ kv: Deno.Kv; close(): Promise<void> }>;
  startService(): Promise<BenchService>;
  batches?: number;
  rounds?: number;
  warmup?: number;
}

const LOCAL: IngestTarget = {
  async openDirect() {
    const dir = await Deno.makeTempDir();
    const kv = await Deno.openKv(`${dir}/kv.sqlite3`);
    return {
      kv,
      close: async () => {
        kv.close();
        await Deno.remove(dir, { recursive: true });
      },
    };
  },
  startService: () => startBenchService(),
};

/** Measures ingest against direct writes on `target` (by default: local KV files). */
export async function measureIngest(target: IngestTarget = LOCAL) {
  const BATCHES = target.batches ?? DEFAULT_BATCHES;
  const ROUNDS = target.rounds ?? DEFAULT_ROUNDS;
  const WARMUP = target.warmup ?? DEFAULT_WARMUP;
  const store = await target.openDirect();
  const kv = store.kv;
  const ws = await target.startService().catch(async (error) => {
    await store.close();
    throw error;
  });
  try {
    const direct = async (batch: number) => {
      const body = batchBody("bench-project", batch);
      const op = kv.atomic();
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
    };
    let failures = 0;
    const http = async (batch: number) => {
      const res = await fetch(`${ws.baseUrl}/ingest/evidence/batch`, {
        method: "POST",
        headers: { authorization: `Bearer ${ws.secret}`, "content-type": "application/json" },
        body: JSON.stringify(batchBody(ws.projectId, batch)),
      });
      if (res.status !== 201) failures++;
      await res.body?.cancel();
    };
    const sides = { direct, http };
    type Side = keyof typeof sides;

    await run(direct, 0, WARMUP);
    await run(http, 0, WARMUP);
    const rounds: Record<Side, number>[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const first = WARMUP + i * BATCHES;
      const order: Side[] = i % 2 ? ["http", "direct"] : ["direct", "http"];
      const round = {} as Record<Side, number>;
      for (const side of order) {
        const ms = await timed(() => run(sides[side], first, BATCHES));
        round[side] = (BATCHES * 100) / (ms / 1000);
      }
      rounds.push(round);
    }
    if (failures) throw new Error(`${failures} batches failed`);

    const ratios = rounds.map((r) => r.http / r.direct);
    const ratio = median(ratios);
    const rate = (side: Side) => median(rounds.map((r) => r[side])).toFixed(0);
    const spread = `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`;
    return { ratio, rate, spread, batches: BATCHES, rounds: ROUNDS, warmup: WARMUP };
  } finally {
    await ws.close();
    await store.close();
  }
}

export async function benchIngest(): Promise<{ ratio: number; line: string }> {
  const { ratio, rate, spread, batches: BATCHES, rounds: ROUNDS, warmup: WARMUP } =
    await measureIngest();
  return {
    ratio,
    line: `ingest: HTTP ${rate("http")} records/s, direct KV ${rate("direct")} records/s, ratio ${
      ratio.toFixed(2)
    } (rounds ${spread}; target >= ${TARGET}${
      Number(ratio.toFixed(2)) < TARGET ? ", BELOW TARGET" : ""
    }; ${ROUNDS} alternating rounds of ${
      BATCHES * 100
    } records of 1 KiB per side in batches of 100, ${CONCURRENCY} in flight, after ${
      WARMUP * 100
    } untimed)`,
  };
}

if (import.meta.main) console.log((await benchIngest()).line);
