/**
 * Another tenant's reads while anonymous callers run public questionnaire matching (issue 31's
 * aim: under 100 ms), against what the machine itself gives any process at the same moment.
 *
 * `main.ts` runs as its own process (as `deno task start` runs it), with one organization of
 * 2,000 answers of about 9 KB and another tenant's public project. A bare `Deno.serve` answering
 * "ok" runs as a second process: the baseline. This process samples, every 20 ms and at the same
 * instants, the service's `/health`, the other tenant's `trust.json` and the baseline's `/`;
 * first for 5 s right after the 2,000 answers were added (their renders and index upkeep may
 * still run), then while two anonymous callers each send two sets of 400 questions. On a shared 2-core machine every process waits for a core when the load is
 * high, the baseline as much as the service; what the service adds is the difference. The report
 * gives both, and `excess` = the service's percentile minus the baseline's at that percentile.
 *
 * Usage: deno run -A --lock=tests/deno.lock tests/bench/matching_isolation.ts
 */
import { freePort, startService } from "../support/process.ts";
import { login, signUp } from "../support/builtin_login.ts";
import { percentile, random, words } from "../support/made_up_words.ts";

const ANSWERS = Number(Deno.env.get("BENCH_ISOLATION_ANSWERS") ?? 2_000);
const QUESTIONS = 400;
const SAMPLE_EVERY_MS = 20;
const QUIET_MS = 5_000;
/** The aim for another tenant's reads during matching, beyond what the machine adds. */
const AIM_MS = 100;

async function account(base: string, email: string): Promise<string> {
  const credentials = { email, name: email.split("@")[0], password: "isolation passphrase" };
  (await signUp(base, "", credentials)).body?.cancel();
  return (await login(base, credentials)).access_token;
}

async function json(base: string, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

interface Samples {
  health: number[];
  trustJson: number[];
  baseline: number[];
}

/** Samples the three reads together every 20 ms until `running()` is false. */
async function sample(
  base: string,
  baseline: string,
  slug: string,
  running: () => boolean,
): Promise<Samples> {
  const out: Samples = { health: [], trustJson: [], baseline: [] };
  const timed = async (url: string, into: number[]) => {
    const started = performance.now();
    const res = await fetch(url);
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
    into.push(performance.now() - started);
  };
  for (let i = 0; running() && i < 100_000; i++) {
    await Promise.all([
      timed(`${base}/health`, out.health),
      timed(`${base}/trust/${slug}/trust.json`, out.trustJson),
      timed(`${baseline}/`, out.baseline),
    ]);
    await new Promise((resolve) => setTimeout(resolve, SAMPLE_EVERY_MS));
  }
  return out;
}

const loadAverage = async () =>
  (await Deno.readTextFile("/proc/loadavg").catch(() => "? ")).split(" ")[0];

function describe(samples: Samples): string {
  const at = (values: number[], p: number) => Math.round(percentile(values, p));
  const row = (name: string, values: number[]) =>
    `${name} p50 ${at(values, 0.5)} / p99 ${at(values, 0.99)} / max ${
      Math.round(Math.max(...values))
    } ms`;
  return [
    row("/health", samples.health),
    row("trust.json", samples.trustJson),
    row("baseline", samples.baseline),
  ].join(", ");
}

export async function benchMatchingIsolation(): Promise<{ line: string; excessP99: number }> {
  const dir = await Deno.makeTempDir({ prefix: "bench-isolation-" });
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const service = startService({
    PORT: String(port),
    KV_PATH: `${dir}/kv.sqlite3`,
    BASE_URL: base,
    SIGNUP: "open",
    TRUSTED_PROXIES: "127.0.0.1/32",
  });
  const baselinePort = freePort();
  const bare = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `Deno.serve({ hostname: "127.0.0.1", port: ${baselinePort}, onListen() { console.log("listening"); } }, () => new Response("ok"));`,
    ],
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const bareOut = bare.stdout.pipeThrough(new TextDecoderStream()).getReader();
  try {
    await bareOut.read();
    const baseline = `http://127.0.0.1:${baselinePort}`;
    await service.waitFor(/^Live work: /);
    // The other tenant: a public project with a published version.
    const victim = await account(base, "victim@victim.test");
    const victimBoot = await json(base, victim, "POST", "/onboarding/bootstrap", {
      workspaceName: "Victim",
      projectName: "Victim app",
      projectVisibility: "public",
    });
    await json(base, victim, "POST", `/projects/${victimBoot.project.id}/publish`);
    const slug: string = victimBoot.project.slug;
    // The organization asked: 2,000 answers of about 9 KB, one request at a time (concurrent
    // additions to one organization conflict, and are answered 409 to be retried).
    const owner = await account(base, "owner@big.test");
    const big = await json(base, owner, "POST", "/onboarding/bootstrap", {
      workspaceName: "Bigcorp",
      projectName: "Bigcorp app",
      projectVisibility: "public",
    });
    const organizationId: string = big.organization.id;
    const next = random(7);
    const texts = Array.from({ length: ANSWERS }, (_, i) => ({
      question: `${words(next, 12)}?`,
      answer: words(next, 1100).slice(0, 9000),
      category: `Category ${i % 9}`,
      visibility: i % 10 === 0 ? "restricted" : "public",
      questionnaireRefs: [{ questionnaire: "sig", id: `A.${i}` }],
      citations: [],
    }));
    for (const body of texts) {
      await json(base, owner, "POST", `/organizations/${organizationId}/answers`, body);
    }

    const loadQuiet = await loadAverage();
    const quietUntil = Date.now() + QUIET_MS;
    const quiet = await sample(base, baseline, slug, () => Date.now() < quietUntil);

    let running = true;
    const loadBefore = await loadAverage();
    const sampler = sample(base, baseline, slug, () => running);
    const statuses: number[] = [];
    await Promise.all(["203.0.113.1", "203.0.113.2"].map(async (client, c) => {
      for (let round = 0; round < 2; round++) {
        const ask = random(1000 + c * 10 + round);
        const questions = Array.from(
          { length: QUESTIONS },
          () => ({ text: `${words(ask, 10)}?` }),
        );
        const res = await fetch(
          `${base}/public/trust/${big.organization.slug}/questionnaire-answers`,
          {
            method: "POST",
            headers: { "content-type": "application/json", "x-forwarded-for": client },
            body: JSON.stringify({ questions }),
            signal: AbortSignal.timeout(120_000),
          },
        );
        await res.arrayBuffer();
        statuses.push(res.status);
      }
    }));
    running = false;
    const loaded = await sampler;
    const loadAfter = await loadAverage();

    const excess = (p: number) =>
      Math.round(
        Math.max(percentile(loaded.health, p), percentile(loaded.trustJson, p)) -
          percentile(loaded.baseline, p),
      );
    const excessP99 = excess(0.99);
    const line = [
      `matching isolation (main.ts; ${ANSWERS} answers of ~9 KB, two anonymous callers × 2 × ` +
      `${QUESTIONS} questions, answered ${statuses.join(", ")}): another tenant's reads sampled ` +
      `every ${SAMPLE_EVERY_MS} ms beside a bare Deno.serve process (the baseline)`,
      `  after adding the answers (load ${loadQuiet}, ${quiet.health.length} samples): ${
        describe(quiet)
      }`,
      `  matching (load ${loadBefore} → ${loadAfter}, ${loaded.health.length} samples): ${
        describe(loaded)
      }`,
      `  beyond the baseline (the slower of /health and trust.json minus the baseline): p50 ${
        excess(0.5)
      } ms, p99 ${excessP99} ms (aim: under ${AIM_MS} ms; ${
        excessP99 < AIM_MS ? "meets" : "MISSES"
      } it)`,
    ].join("\n");
    return { line, excessP99 };
  } finally {
    await bareOut.cancel().catch(() => {});
    try {
      bare.kill("SIGTERM");
    } catch {
      // already gone
    }
    await bare.status;
    await service.stop();
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) console.log((await benchMatchingIsolation()).line);
