/**
 * Shared pieces of the benchmarks: timing, a bounded task pool, and the real
 * service started as its own process (as `deno task start` runs it) with a
 * public project and a collector. Benchmarks print ratios against a baseline
 * measured in the same run; they never assert on time.
 */
import { login, signUp } from "../support/builtin_login.ts";
import { freePort, type ServiceProcess, startService } from "../support/process.ts";

/** Runs `fn` and returns its wall time in milliseconds. */
export async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** The median of `values` (the mean of the middle two for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * CPU time (user + system, all threads) a process has used so far, in milliseconds, from
 * Linux's /proc; null elsewhere. Sampled around a load run, it gives the server's CPU per
 * request, which is far steadier than throughput on a small machine shared with the client.
 */
export function processCpuMs(pid: number): number | null {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    // Fields after the parenthesized command name; utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * (1000 / CLOCK_TICKS_PER_SECOND);
  } catch {
    return null;
  }
}

/** USER_HZ, which Linux fixes at 100 for /proc on every common architecture. */
const CLOCK_TICKS_PER_SECOND = 100;

/** Runs `tasks` with at most `concurrency` in flight. */
export async function pool<T>(tasks: Array<() => Promise<T>>, concurrency: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]();
    }
  }));
  return results;
}

export interface BenchService {
  baseUrl: string;
  projectId: string;
  slug: string;
  humanToken: string;
  collectorId: string;
  secret: string;
  /** The service process, for reading its CPU time. */
  pid: number;
  close(): Promise<void>;
}

/**
 * The service on a fresh KV file in its own process, with a public project and a collector.
 * `env` adds to (or replaces, e.g. `KV_PATH` for a KV Connect server) its environment;
 * `preload` is given to `startService`.
 */
export async function startBenchService(
  options: { env?: Record<string, string>; preload?: string } = {},
): Promise<BenchService> {
  const dir = await Deno.makeTempDir();
  const port = freePort();
  const baseUrl = `http://localhost:${port}`;
  const service: ServiceProcess = startService({
    PORT: String(port),
    KV_PATH: `${dir}/kv.sqlite3`,
    ...options.env,
  }, { preload: options.preload });
  const close = async () => {
    await service.stop();
    await Deno.remove(dir, { recursive: true });
  };
  try {
    const setup = (await service.waitFor(/\/signup\?setup=/)).trim();
    const account = { email: "bench@acme.test", name: "Bench", password: "benchmark passphrase" };
    await (await signUp(baseUrl, new URL(setup).search.slice(1), account)).body?.cancel();
    const humanToken = (await login(baseUrl, account)).access_token;
    const auth = { authorization: `Bearer ${humanToken}`, "content-type": "application/json" };
    const boot = await (await fetch(`${baseUrl}/onboarding/bootstrap`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({
        workspaceName: "Bench",
        projectName: "Bench",
        projectVisibility: "public",
      }),
    })).json();
    const created = await (await fetch(`${baseUrl}/projects/${boot.project.id}/collectors`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ name: "bench" }),
    })).json();
    return {
      baseUrl,
      projectId: boot.project.id,
      slug: boot.project.slug,
      humanToken,
      collectorId: created.collector.id,
      secret: created.secret.value,
      pid: service.child.pid,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
