/**
 * Two service processes on one KV file under many state-changing batches, against one process:
 * how long the public page goes without a new version while changes keep arriving, and how
 * long after the last change its version appears.
 *
 * Each batch (`POST /ingest/evidence/batch`, BENCH_TWO_RECORDS records) flips the vulnerability
 * control, so every batch is a state change; BENCH_TWO_BATCHES batches (default 392) are sent
 * BENCH_TWO_IN_FLIGHT at a time (default 4), spread over the instances, while a reader polls
 * trust.json and notes when each version appears. Printed: the longest stretch without a new
 * version while batches were sent, the time from the last batch to the version showing it, and
 * the count of versions. BENCH_TWO_LOG=1 prints the instances' warnings and errors.
 */
import { acmeProject, caller, firstAccount } from "../support/live_vendor.ts";
import { freePort, type ServiceProcess, startService } from "../support/process.ts";

const BATCHES = Number(Deno.env.get("BENCH_TWO_BATCHES") ?? 392);
const RECORDS = Number(Deno.env.get("BENCH_TWO_RECORDS") ?? 5);
const IN_FLIGHT = Number(Deno.env.get("BENCH_TWO_IN_FLIGHT") ?? 4);
/** Which runs: one instance, then two (`BENCH_TWO_RUNS=2` runs only the second). */
const RUNS = (Deno.env.get("BENCH_TWO_RUNS") ?? "1,2").split(",").map(Number);

interface Run {
  instances: number;
  longestGapMs: number;
  lastChangeMs: number;
  versions: number;
  batchesMs: number;
  failed: number;
}

async function version(base: string): Promise<{ version: number; state: string } | null> {
  const res = await fetch(`${base}/trust/acme/trust.json`);
  if (res.status !== 200) {
    await res.body?.cancel();
    return null;
  }
  const profile = await res.json();
  const control = profile.controls.find((c: { key: string }) =>
    c.key === "evidence.vulnerability_scan"
  );
  return { version: profile.version, state: control?.state ?? "?" };
}

async function run(instances: number): Promise<Run> {
  const dir = await Deno.makeTempDir();
  const ports = Array.from({ length: instances }, () => freePort());
  const bases = ports.map((port) => `http://127.0.0.1:${port}`);
  const env = (port: number) => ({
    PORT: String(port),
    KV_PATH: `${dir}/kv.sqlite3`,
    BASE_URL: bases[0],
  });
  const services: ServiceProcess[] = [startService(env(ports[0]))];
  try {
    const token = await firstAccount(services[0], bases[0]);
    for (const port of ports.slice(1)) {
      const service = startService(env(port));
      services.push(service);
      await service.waitFor(/^Live work: /);
    }
    const call = caller(bases, token);
    const target = await acmeProject(call);
    const batch = async (b: number, critical: number) => {
      const now = Date.now();
      const records = Array.from({ length: RECORDS }, (_, r) => ({
        evidenceType: "vulnerability_scan",
        sourceType: "collector",
        sourceRef: `batch-${b}-${r}`,
        observedAt: new Date(now - 1000 + r).toISOString(),
        payload: { summary: { critical, high: 0, medium: 0, low: b * RECORDS + r } },
      }));
      const res = await fetch(`${bases[b % bases.length]}/ingest/evidence/batch`, {
        method: "POST",
        headers: { authorization: `Bearer ${target.secret}`, "content-type": "application/json" },
        body: JSON.stringify({ projectId: target.projectId, records }),
      });
      await res.body?.cancel();
      return res.status;
    };
    await batch(0, 0);
    await call("POST", `/projects/${target.projectId}/publish`);
    await call("PATCH", `/projects/${target.projectId}`, { autoPublish: true });

    const seen: Array<{ at: number; version: number }> = [];
    let reading = true;
    const reader = (async () => {
      let last = 0;
      while (reading) {
        const v = await version(bases[0]).catch(() => null);
        if (v && v.version > last) {
          last = v.version;
          seen.push({ at: performance.now(), version: v.version });
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const started = performance.now();
    let next = 1;
    let failed = 0;
    let lastSentAt = started;
    await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
      while (next <= BATCHES) {
        const b = next++;
        // Odd batches fail the control, even ones pass it: each batch changes its state.
        const status = await batch(b, b % 2);
        if (status !== 201) failed++;
        lastSentAt = performance.now();
      }
    }));
    const sentAt = performance.now();
    // The last batch's state, once published (bounded).
    const want = BATCHES % 2 === 1 ? "fail" : "pass";
    let lastChangeMs = NaN;
    for (let i = 0; i < 1200; i++) {
      const v = await version(bases[0]).catch(() => null);
      if (v?.state === want) {
        lastChangeMs = Math.max(0, performance.now() - lastSentAt);
        break;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    reading = false;
    await reader;
    let longestGapMs = 0;
    let previous = started;
    for (const { at } of seen.filter((s) => s.at >= started && s.at <= sentAt)) {
      longestGapMs = Math.max(longestGapMs, at - previous);
      previous = at;
    }
    longestGapMs = Math.max(longestGapMs, sentAt - previous);
    if (Deno.env.get("BENCH_TWO_LOG")) {
      for (const [i, service] of services.entries()) {
        for (const line of service.lines.filter((l) => /"level":"(warn|error)"/.test(l))) {
          console.error(`instance ${i + 1}: ${line}`);
        }
      }
    }
    return {
      instances,
      longestGapMs,
      lastChangeMs,
      versions: seen.length,
      batchesMs: sentAt - started,
      failed,
    };
  } finally {
    await Promise.all(services.map((s) => s.stop()));
    await Deno.remove(dir, { recursive: true });
  }
}

export async function benchTwoInstances(): Promise<{ line: string }> {
  const runs = [];
  for (const instances of RUNS) runs.push(await run(instances));
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  return {
    line: `two instances: ${BATCHES} state-changing batches; ${
      runs.map((r) =>
        `${r.instances} instance${r.instances > 1 ? "s" : ""}: longest without a version ${
          s(r.longestGapMs)
        }, last change published after ${s(r.lastChangeMs)}, ${r.versions} versions in ${
          s(r.batchesMs)
        }${r.failed ? `, ${r.failed} batches refused` : ""}`
      ).join("; ")
    }`,
  };
}

if (import.meta.main) console.log((await benchTwoInstances()).line);
