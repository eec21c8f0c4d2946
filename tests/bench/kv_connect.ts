/**
 * The live and ingest figures with the service on a remote KV over the KV Connect protocol:
 * the test server (tests/support/kv_connect_server.ts, with denokv's limits) runs in this
 * process, and the service in its own on `KV_PATH=http://127.0.0.1:<port>` with
 * `DENO_KV_ACCESS_TOKEN`, as on a self-hosted denokv.
 *
 * - ingest: batches of 100 records over HTTP against the same records written straight into a
 *   second server's KV through a KV Connect client of this process, in alternating rounds;
 * - jobs: the worker's job throughput against the raw loop, both on KV Connect clients;
 * - evidence → published page: as in live.ts, with automatic publishing.
 *
 * Smaller than the local runs (BENCH_KVC_* sizes) so that the whole stays within two minutes:
 * the server decodes every request in JavaScript here. Every run ends with the servers having
 * refused no request for a limit; it never asserts on time.
 */
import { type KvConnectServer, startKvConnectServer } from "../support/kv_connect_server.ts";
import { NO_KV_QUEUES } from "../support/process.ts";
import { startBenchService } from "./_harness.ts";
import { measureIngest } from "./ingest.ts";
import { measureJobs, measureService, percentile } from "./live.ts";

const BATCHES = Number(Deno.env.get("BENCH_KVC_BATCHES") ?? 4);
const ROUNDS = Number(Deno.env.get("BENCH_KVC_ROUNDS") ?? 3);
const JOBS = Number(Deno.env.get("BENCH_KVC_JOBS") ?? 300);
const RECORDS = Number(Deno.env.get("BENCH_KVC_RECORDS") ?? 20);

/** A client of `server`, opened as the service opens it. */
async function openClient(server: KvConnectServer): Promise<Deno.Kv> {
  const previous = Deno.env.get("DENO_KV_ACCESS_TOKEN");
  Deno.env.set("DENO_KV_ACCESS_TOKEN", server.token);
  try {
    return await Deno.openKv(server.url);
  } finally {
    if (previous === undefined) Deno.env.delete("DENO_KV_ACCESS_TOKEN");
    else Deno.env.set("DENO_KV_ACCESS_TOKEN", previous);
  }
}

/** The bench service on `server`. */
function serviceOn(server: KvConnectServer) {
  return startBenchService({
    env: { KV_PATH: server.url, DENO_KV_ACCESS_TOKEN: server.token },
    preload: NO_KV_QUEUES,
  });
}

export async function benchKvConnect(): Promise<{ line: string }> {
  const servers: KvConnectServer[] = [];
  const start = async () => {
    const server = await startKvConnectServer({ mode: "denokv" });
    servers.push(server);
    return server;
  };
  try {
    const ingest = await measureIngest({
      async openDirect() {
        const kv = await openClient(await start());
        return { kv, close: () => Promise.resolve(kv.close()) };
      },
      startService: async () => serviceOn(await start()),
      batches: BATCHES,
      rounds: ROUNDS,
      warmup: 1,
    });
    const jobs = await measureJobs(
      async () => {
        const raw = await openClient(await start());
        const jobs = await openClient(await start());
        return {
          raw,
          jobs,
          close: () => {
            raw.close();
            jobs.close();
            return Promise.resolve();
          },
        };
      },
      JOBS,
      ROUNDS,
    );
    const server = await start();
    const { latencies } = await measureService(() => serviceOn(server), RECORDS, 0);
    const violations = servers.flatMap((s) => s.violations);
    if (violations.length > 0) {
      throw new Error(`requests over denokv's limits: ${JSON.stringify(violations.slice(0, 3))}`);
    }
    const ms = (n: number) => `${Math.round(n)} ms`;
    return {
      line: `KV Connect (denokv limits): ingest HTTP ${ingest.rate("http")} records/s, direct ${
        ingest.rate("direct")
      } records/s, ratio ${ingest.ratio.toFixed(2)} (rounds ${ingest.spread}; ${ROUNDS} rounds of ${
        BATCHES * 100
      } records per side); jobs ${Math.round(jobs.jobsPerSecond)}/s vs raw ${
        Math.round(jobs.rawPerSecond)
      }/s, ratio ${jobs.ratio.toFixed(2)} (rounds ${jobs.spread}; by CPU time ${
        jobs.cpuRatio.toFixed(2)
      }; ${JOBS} jobs); evidence → published page p50 ${ms(percentile(latencies, 50))}, p99 ${
        ms(percentile(latencies, 99))
      } over ${latencies.length} records; no request over a limit`,
    };
  } finally {
    for (const server of servers) await server.close();
  }
}

if (import.meta.main) console.log((await benchKvConnect()).line);
