/**
 * The live layer's benchmark: how soon evidence becomes a published version, how late a
 * control's decay is published after its due time, and what the job store costs against
 * writing the same records straight into KV.
 *
 * - evidence → page: the real service (own process, KV file) with automatic publishing; each
 *   record flips the vulnerability control, and the time from the POST until the public
 *   trust.json shows the next version is one sample (BENCH_LIVE_RECORDS, default 200).
 * - decay lag: a control with a 1 s window and stale after 2 s; from its due time (observed
 *   time + 1 s, + 2 s) to the publishedAt of the version showing it (BENCH_DECAY_ROUNDS, 10).
 * - job throughput: in one process on a KV file, N jobs stored and run by the worker with a
 *   no-op handler, against a raw loop writing and deleting the same two entries per record.
 */
import { createJobWorker } from "../../src/live/worker.ts";
import { systemClock } from "../../src/lib/clock.ts";
import { memoryLogger } from "../../src/lib/log.ts";
import { insertJob } from "../../src/store/jobs.ts";
import { startBenchService, timed } from "./_harness.ts";

const RECORDS = Number(Deno.env.get("BENCH_LIVE_RECORDS") ?? 200);
const DECAY_ROUNDS = Number(Deno.env.get("BENCH_DECAY_ROUNDS") ?? 10);
const JOBS = Number(Deno.env.get("BENCH_JOBS") ?? 2000);

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function latestVersion(base: string, slug: string): Promise<number> {
  const res = await fetch(`${base}/trust/${slug}/trust.json`);
  if (res.status !== 200) {
    await res.body?.cancel();
    return 0;
  }
  return (await res.json()).version;
}

async function until<T>(probe: () => Promise<T | null>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== null) return value;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error("the service did not publish in time");
}

async function measureService() {
  const service = await startBenchService();
  const { baseUrl, slug, projectId } = service;
  const human = {
    authorization: `Bearer ${service.humanToken}`,
    "content-type": "application/json",
  };
  const ingest = (body: Record<string, unknown>) =>
    fetch(`${baseUrl}/ingest/evidence`, {
      method: "POST",
      headers: { authorization: `Bearer ${service.secret}`, "content-type": "application/json" },
      body: JSON.stringify({ projectId, sourceType: "collector", sourceRef: "bench", ...body }),
    }).then((r) => r.body?.cancel());
  const scan = (i: number, critical: number) =>
    ingest({
      evidenceType: "vulnerability_scan",
      observedAt: new Date(Date.now() - 100).toISOString(),
      payload: { summary: { critical, high: 0, medium: 0, low: i } },
    });
  try {
    await scan(0, 0);
    await fetch(`${baseUrl}/projects/${projectId}/publish`, { method: "POST", headers: human })
      .then((r) => r.body?.cancel());
    await fetch(`${baseUrl}/projects/${projectId}`, {
      method: "PATCH",
      headers: human,
      body: JSON.stringify({ autoPublish: true }),
    }).then((r) => r.body?.cancel());
    const latencies: number[] = [];
    let version = await latestVersion(baseUrl, slug);
    for (let i = 1; i <= RECORDS; i++) {
      const target = version + 1;
      latencies.push(
        await timed(async () => {
          await scan(i, i % 2);
          version = await until(async () => {
            const v = await latestVersion(baseUrl, slug);
            return v >= target ? v : null;
          });
        }),
      );
    }

    const { controls } = await (await fetch(`${baseUrl}/projects/${projectId}/controls`, {
      headers: human,
    })).json();
    const sbom = controls.find((c: { key: string }) => c.key === "evidence.sbom");
    await fetch(`${baseUrl}/projects/${projectId}/controls/${sbom.id}`, {
      method: "PATCH",
      headers: human,
      body: JSON.stringify({
        freshnessPolicyJson: { kind: "time_window", windowSeconds: 1 },
        degradationPolicyJson: { staleAfterSeconds: 2, degradedAfterSeconds: null },
      }),
    }).then((r) => r.body?.cancel());
    const lags: number[] = [];
    for (let round = 0; round < DECAY_ROUNDS; round++) {
      const observedAt = Date.now();
      await ingest({
        evidenceType: "sbom",
        observedAt: new Date(observedAt).toISOString(),
        payload: { bomFormat: "CycloneDX", specVersion: "1.5", components: [{ name: `${round}` }] },
      });
      await new Promise((r) => setTimeout(r, 3_000));
      const latest = await latestVersion(baseUrl, slug);
      for (
        const [state, dueAt] of [["degraded", observedAt + 1000], ["stale", observedAt + 2000]]
      ) {
        for (let v = latest; v > latest - 4 && v > 0; v--) {
          const p = await (await fetch(`${baseUrl}/trust/${slug}/versions/${v}/trust.json`)).json();
          const s = p.controls.find((c: { key: string }) => c.key === "evidence.sbom")?.state;
          if (s === state) {
            lags.push(Date.parse(p.publishedAt) - (dueAt as number));
            break;
          }
        }
      }
    }
    return { latencies, lags };
  } finally {
    await service.close();
  }
}

async function measureJobs() {
  const dir = await Deno.makeTempDir();
  try {
    const raw = await Deno.openKv(`${dir}/raw.sqlite3`);
    const rawMs = await timed(async () => {
      for (let i = 0; i < JOBS; i++) {
        const id = crypto.randomUUID();
        const value = { id, kind: "noop", message: { kind: "noop", i } };
        await raw.atomic().set(["raw", id], value).set(["raw_due", Date.now(), id], id).commit();
      }
      for await (const entry of raw.list<string>({ prefix: ["raw_due"] })) {
        await raw.atomic().delete(entry.key).delete(["raw", entry.value]).commit();
      }
    });
    raw.close();
    const kv = await Deno.openKv(`${dir}/jobs.sqlite3`);
    const worker = createJobWorker({ kv, clock: systemClock, log: memoryLogger() });
    let ran = 0;
    worker.on("noop", () => {
      ran++;
      return Promise.resolve();
    });
    const jobsMs = await timed(async () => {
      for (let i = 0; i < JOBS; i++) {
        await insertJob(kv, { kind: "noop", i }, { now: new Date() });
      }
      while (ran < JOBS) await worker.drain(60_000);
    });
    await worker.stop(() => kv.close());
    return { rawPerSecond: JOBS / (rawMs / 1000), jobsPerSecond: JOBS / (jobsMs / 1000) };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

export async function benchLive(): Promise<{ line: string }> {
  const { latencies, lags } = await measureService();
  const jobs = await measureJobs();
  const ms = (n: number) => `${Math.round(n)} ms`;
  return {
    line: `live: evidence → published page p50 ${ms(percentile(latencies, 50))}, p99 ${
      ms(percentile(latencies, 99))
    } over ${latencies.length} records (target p99 ≤ 1000 ms); decay lag p50 ${
      ms(percentile(lags, 50))
    }, p99 ${ms(percentile(lags, 99))} over ${lags.length} changes (target p99 ≤ 2000 ms); jobs ${
      Math.round(jobs.jobsPerSecond)
    }/s vs raw KV ${Math.round(jobs.rawPerSecond)}/s: ratio ${
      (jobs.jobsPerSecond / jobs.rawPerSecond).toFixed(2)
    }`,
  };
}

if (import.meta.main) console.log((await benchLive()).line);
