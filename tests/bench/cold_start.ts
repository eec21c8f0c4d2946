/**
 * Cold start on Deno 2.5.0 (what Deno Deploy runs): the time from spawning `deno run -A main.ts`
 * to the first answered GET /health, and, in another start, to the first answered public trust
 * page (GET /trust/{slug}, whose first request also loads what that route loads lazily). Both
 * for the current tree and for a baseline tree, a git worktree of COLD_START_BASELINE (default
 * the commit before the heavy npm modules became lazy), each on its own copy of one KV file that
 * holds one published public project with an update and a subprocessor. Starts alternate
 * between the trees over BENCH_ROUNDS rounds after a warm-up start of each (which fills Deno's
 * transpile and code caches, as a deployed build has them); medians are reported, with the
 * ratio after/before and the size of each tree's static module graph. Beside each wall time,
 * the CPU time the service process had used when it answered (Linux /proc), which other work
 * on the machine disturbs far less than the wall time. Never asserts on time.
 *
 * The 2.5.0 binary is the one `npx --yes deno@2.5.0` runs (COLD_START_DENO names another);
 * it is spawned directly, so npx's own start is not counted.
 */
import { upgradeFromKvQueue } from "../../src/live/legacy_queue.ts";
import { median, processCpuMs } from "./_harness.ts";
import { createTestApp } from "../support/app.ts";
import { publishVersion, workspace } from "../support/fixtures.ts";
import { freePort } from "../support/process.ts";
import { denoInfo, staticModules } from "../support/static_graph.ts";

const ROUNDS = Number(Deno.env.get("BENCH_ROUNDS") ?? 5);
/** The last commit before the lazy loading of PDF, Sigstore, XLSX, Markdown, MCP and OpenAPI. */
const DEFAULT_BASELINE = "0d836ed47795c642bffea80c7dedfe1fe3b7c628";
const BASELINE = Deno.env.get("COLD_START_BASELINE") ?? DEFAULT_BASELINE;
const TREE = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");
/** A start slower than this is a failed start, not a measurement. */
const START_TIMEOUT_MS = 60_000;

/** The Deno 2.5.0 executable, as npx installs it. */
async function deno250(): Promise<string> {
  const named = Deno.env.get("COLD_START_DENO");
  if (named) return named;
  const out = await new Deno.Command("npx", {
    args: ["--yes", "deno@2.5.0", "eval", "console.log(Deno.execPath())"],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const path = new TextDecoder().decode(out.stdout).trim();
  if (!out.success || !path) {
    throw new Error(`npx --yes deno@2.5.0 failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  return path;
}

async function git(args: string[]): Promise<string> {
  const out = await new Deno.Command("git", { args, cwd: TREE, stdout: "piped", stderr: "piped" })
    .output();
  if (!out.success) {
    throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return new TextDecoder().decode(out.stdout).trim();
}

/**
 * Writes the KV file with `deno` (values written by a newer Deno's V8 may not deserialize on an
 * older one); returns the project's slug.
 */
async function prepareKvWith(deno: string, path: string): Promise<string> {
  const out = await new Deno.Command(deno, {
    args: ["run", "-A", "--no-lock", new URL(import.meta.url).pathname, "prepare", path],
    cwd: TREE,
    env: { DENO_TLS_CA_STORE: Deno.env.get("DENO_TLS_CA_STORE") ?? "mozilla,system" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const slug = new TextDecoder().decode(out.stdout).trim().split("\n").at(-1);
  if (!out.success || !slug) {
    throw new Error(`Preparing the KV file failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  return slug;
}

/** A KV file with one published public project (an update and a subprocessor on its page). */
async function prepareKv(path: string): Promise<string> {
  const ctx = await createTestApp({ kvPath: path, now: new Date(), env: { KV_PATH: path } });
  try {
    const ws = await workspace(ctx, "cold-start", {
      projectSlug: "cold-start",
      visibility: "public",
    });
    const post = async (url: string, json: unknown) => {
      const res = await ctx.call("POST", url, { token: ws.token, json });
      if (res.status >= 300) throw new Error(`POST ${url}: ${await res.text()}`);
      await res.body?.cancel();
    };
    await post(`/organizations/${ws.organization.id}/subprocessors`, {
      name: "Hosting vendor",
      purpose: "Hosting",
      location: "European Union",
      website: "https://vendor.example",
    });
    await post(`/projects/${ws.project.id}/updates`, {
      kind: "advisory",
      title: "An advisory",
      body: "Some **Markdown** with a [link](https://example.com) and a list:\n\n- one\n- two\n",
    });
    await publishVersion(ctx, ws);
    // A service has started on this database before: the one-time upgrade from the KV queue is
    // done (the first start waits for old queue messages for a second).
    await upgradeFromKvQueue(undefined, ctx.services);
    // What the publish scheduled runs now, so no start finds work due.
    await ctx.services.jobs.drain(10_000);
    return ws.project.slug;
  } finally {
    await ctx[Symbol.asyncDispose]();
  }
}

/** Modules and npm packages in the static import graph of `main.ts` in `dir`. */
async function staticGraph(dir: string): Promise<string> {
  const graph = staticModules(await denoInfo("main.ts", dir));
  return `${graph.local} local modules, ${graph.npmPackages.length} npm packages`;
}

interface Start {
  /** Milliseconds from the spawn to the answer. */
  wallMs: number;
  /** CPU milliseconds the service had used by then (NaN where /proc does not tell). */
  cpuMs: number;
}

/**
 * Spawns the service of `dir` on a copy of `kvFile` and polls `path` until it answers 200.
 */
async function coldStart(deno: string, dir: string, kvFile: string, path: string): Promise<Start> {
  const work = await Deno.makeTempDir({ prefix: "cold-start-" });
  const kvPath = `${work}/kv.sqlite3`;
  await Deno.copyFile(kvFile, kvPath);
  const port = freePort();
  const url = `http://127.0.0.1:${port}${path}`;
  const started = performance.now();
  const child = new Deno.Command(deno, {
    args: ["run", "-A", "--frozen", "main.ts"],
    cwd: dir,
    env: {
      PORT: String(port),
      KV_PATH: kvPath,
      BASE_URL: `http://localhost:${port}`,
      NO_COLOR: "1",
      DENO_TLS_CA_STORE: Deno.env.get("DENO_TLS_CA_STORE") ?? "mozilla,system",
    },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  let exited = false;
  const status = child.status.then((s) => {
    exited = true;
    return s;
  });
  try {
    while (performance.now() - started < START_TIMEOUT_MS && !exited) {
      try {
        const res = await fetch(url, { headers: { accept: "text/html" } });
        await res.body?.cancel();
        if (res.status === 200) {
          const wallMs = performance.now() - started;
          return { wallMs, cpuMs: processCpuMs(child.pid) ?? NaN };
        }
        throw new Error(`GET ${path}: ${res.status}`);
      } catch (error) {
        if (!(error instanceof TypeError)) throw error; // connection refused: not listening yet
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    }
    throw new Error(`${dir}: no answer to GET ${path}`);
  } catch (error) {
    if (exited) throw new Error(`${dir}: the service stopped:\n${await stderr}`);
    throw error;
  } finally {
    if (!exited) child.kill("SIGTERM");
    await status;
    await stderr;
    await Deno.remove(work, { recursive: true });
  }
}

export async function benchColdStart(): Promise<{ ratio: number; line: string }> {
  const deno = await deno250();
  const dir = await Deno.makeTempDir({ prefix: "cold-start-" });
  const baselineTree = `${dir}/baseline`;
  const kvFile = `${dir}/kv.sqlite3`;
  const baselineCommit = await git(["rev-parse", "--short", `${BASELINE}^{commit}`]);
  await git(["worktree", "add", "--detach", baselineTree, BASELINE]);
  try {
    const slug = await prepareKvWith(deno, kvFile);
    const trees = { before: baselineTree, after: TREE };
    type Side = keyof typeof trees;
    const targets = { health: "/health", trust: `/trust/${slug}` };
    type Target = keyof typeof targets;
    const sides = Object.keys(trees) as Side[];
    for (const side of sides) await coldStart(deno, trees[side], kvFile, targets.trust);
    const times: Record<Side, Record<Target, Start[]>> = {
      before: { health: [], trust: [] },
      after: { health: [], trust: [] },
    };
    for (let i = 0; i < ROUNDS; i++) {
      for (let j = 0; j < sides.length; j++) {
        const side = sides[(i + j) % sides.length];
        for (const target of Object.keys(targets) as Target[]) {
          times[side][target].push(await coldStart(deno, trees[side], kvFile, targets[target]));
        }
      }
    }
    const ms = (side: Side, target: Target) => median(times[side][target].map((t) => t.wallMs));
    const cpu = (side: Side, target: Target) =>
      median(times[side][target].map((t) => t.cpuMs)).toFixed(0);
    const ratio = ms("after", "trust") / ms("before", "trust");
    const graphs = {
      before: await staticGraph(baselineTree),
      after: await staticGraph(TREE),
    };
    const describe = (side: Side) =>
      `${ms(side, "health").toFixed(0)} ms (CPU ${cpu(side, "health")} ms) to /health, ${
        ms(side, "trust").toFixed(0)
      } ms (CPU ${cpu(side, "trust")} ms) to the trust page; ${graphs[side]}`;
    const cpuRatio = (target: Target) =>
      (Number(cpu("after", target)) / Number(cpu("before", target))).toFixed(2);
    return {
      ratio,
      line: `cold start (Deno 2.5.0, median of ${ROUNDS}): before (${baselineCommit}) ${
        describe("before")
      }; after: ${describe("after")}; ratio after/before ${
        (ms("after", "health") / ms("before", "health")).toFixed(2)
      } to /health (CPU ${cpuRatio("health")}), ${ratio.toFixed(2)} to the trust page (CPU ${
        cpuRatio("trust")
      })`,
    };
  } finally {
    await git(["worktree", "remove", "--force", baselineTree]).catch(() => {});
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) {
  // `prepare <file>`: what the benchmark runs on Deno 2.5.0 to write its KV file.
  if (Deno.args[0] === "prepare") console.log(await prepareKv(Deno.args[1]));
  else console.log((await benchColdStart()).line);
}
