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
 *   no-op handler, against a raw loop writing and deleting the same two entries per record, in
 *   alternating rounds (BENCH_JOBS, default 2000, in BENCH_JOB_ROUNDS, 5); the ratio is the
 *   median of the rounds'. `deno run -A tests/bench/live.ts jobs` measures only this.
 */
import { createJobWorker } from "../../src/live/worker.ts";
import { systemClock } from "../../src/lib/clock.ts";
import { memoryLogger } from "../../src/lib/log.ts";
import { insertJob } from "../../src/store/jobs.ts";
import { type BenchService, median, processCpuMs, startBenchService, timed } from "./_harness.ts";

const RECORDS = Number(Deno.env.get("BENCH_LIVE_RECORDS") ?? 200);
const DECAY_ROUNDS = Number(Deno.env.get("BENCH_DECAY_ROUNDS") ?? 10);
const JOBS = Number(Deno.env.get("BENCH_JOBS") ?? 2000);
/** Job throughput as a fraction of the raw loop's that the product aims at. */
const JOB_TARGET = 0.6;
/** Alternating rounds the jobs are measured in. */
const JOB_ROUNDS = Number(Deno.env.get("BENCH_JOB_ROUNDS") ?? 5);

export function percentile(values: number[], p: number): number {
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

/** The evidence → page latencies and decay lags of the service `start` starts. */
export async function measureService(
  start: () => Promise<BenchService> = startBenchService,
  records = RECORDS,
  decayRounds = DECAY_ROUNDS,
) {
  const service = await start();
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
    for (let i = 1; i <= records; i++) {
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
    for (let round = 0; round < decayRounds; round++) {
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

/** Where the job benchmark keeps its two stores (raw loop, job store); each is closed after. */
export type OpenJobStores = () => Promise<{ raw: Deno.Kv; jobs: Deno.Kv; close(): Promise<void> }>;

async function localStores(): ReturnType<OpenJobStores> {
  const dir = await Deno.makeTempDir();
  const raw = await Deno.openKv(`${dir}/raw.sqlite3`);
  const jobs = await Deno.openKv(`${dir}/jobs.sqlite3`);
  return {
    raw,
    jobs,
    close: async () => {
      raw.close();
      jobs.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/**
 * Job throughput against the raw loop, in `rounds` alternating rounds of `count / rounds` jobs
 * per side on stores that persist across rounds (so load that drifts during the run biases
 * neither side); the ratio is the median of the rounds' ratios.
 */
export async function measureJobs(
  open: OpenJobStores = localStores,
  count = JOBS,
  rounds = JOB_ROUNDS,
): Promise<
  { rawPerSecond: number; jobsPerSecond: number; ratio: number; spread: string; cpuRatio: number }
> {
  const stores = await open();
  const { raw, jobs: kv } = stores;
  const worker = createJobWorker({ kv, clock: systemClock, log: memoryLogger() });
  let ran = 0;
  worker.on("noop", () => {
    ran++;
    return Promise.resolve();
  });
  const perRound = Math.max(1, Math.round(count / rounds));
  const sides = {
    raw: async (round: number) => {
      for (let i = 0; i < perRound; i++) {
        const id = crypto.randomUUID();
        const value = { id, kind: "noop", message: { kind: "noop", i: round * perRound + i } };
        await raw.atomic().set(["raw", id], value).set(["raw_due", Date.now(), id], id).commit();
      }
      for await (const entry of raw.list<string>({ prefix: ["raw_due"] })) {
        await raw.atomic().delete(entry.key).delete(["raw", entry.value]).commit();
      }
    },
    jobs: async (round: number) => {
      const target = ran + perRound;
      for (let i = 0; i < perRound; i++) {
        await insertJob(kv, { kind: "noop", i: round * perRound + i }, { now: new Date() });
      }
      while (ran < target) await worker.drain(60_000);
    },
  };
  type Side = keyof typeof sides;
  const results: Record<Side, number>[] = [];
  /** Per round, the process's CPU time for the raw side over the jobs' (steadier on a busy machine). */
  const cpuRatios: number[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      const order: Side[] = round % 2 ? ["jobs", "raw"] : ["raw", "jobs"];
      const result = {} as Record<Side, number>;
      const cpu = {} as Record<Side, number>;
      for (const side of order) {
        const before = processCpuMs(Deno.pid) ?? NaN;
        result[side] = perRound / ((await timed(() => sides[side](round))) / 1000);
        cpu[side] = (processCpuMs(Deno.pid) ?? NaN) - before;
      }
      results.push(result);
      cpuRatios.push(cpu.raw / cpu.jobs);
    }
  } finally {
    await worker.stop(() => {});
    await stores.close();
  }
  const ratios = results.map((r) => r.jobs / r.raw);
  return {
    rawPerSecond: median(results.map((r) => r.raw)),
    jobsPerSecond: median(results.map((r) => r.jobs)),
    ratio: median(ratios),
    spread: `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`,
    cpuRatio: median(cpuRatios),
  };
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
      jobs.ratio.toFixed(2)
    } (rounds ${jobs.spread}; target >= ${JOB_TARGET}${
      Number(jobs.ratio.toFixed(2)) < JOB_TARGET ? ", BELOW TARGET" : ""
    }; ${JOB_ROUNDS} alternating rounds of ${Math.round(JOBS / JOB_ROUNDS)} jobs per side)`,
  };
}

if (import.meta.main) {
  if (Deno.args[0] === "jobs") {
    const jobs = await measureJobs();
    console.log(
      `jobs ${Math.round(jobs.jobsPerSecond)}/s vs raw KV ${
        Math.round(jobs.rawPerSecond)
      }/s: ratio ${jobs.ratio.toFixed(2)} (rounds ${jobs.spread}; by CPU time ${
        jobs.cpuRatio.toFixed(2)
      })`,
    );
  } else console.log((await benchLive()).line);
}
