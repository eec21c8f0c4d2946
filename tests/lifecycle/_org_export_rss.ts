/**
 * Run as its own process by tests/lifecycle/org_export_memory_test.ts (so the RSS it reports is
 * the export's alone): seeds one organization with `records` small evidence records (each with
 * its own payload blob of about 200 bytes) into an in-memory KV, then runs `exports`
 * organization exports at once, reading every byte, and prints one JSON line: the RSS after
 * seeding, the highest RSS sampled while the exports ran, the archive sizes and the blobs in them.
 *
 * With a third argument `live`, it also collects garbage every 250 ms while the exports run and
 * reports the most JS heap still in use after a collection (`liveHeap`, over the heap before)
 * and the most bytes of typed arrays (`liveExternal`, where the export's spools, sets and the
 * ZIP's central directory live): what the exports hold, free of when V8 chooses to collect (the
 * RSS figures then mean less).
 *
 * Usage: deno run -A --v8-flags=--expose-gc tests/lifecycle/_org_export_rss.ts <records> <exports> [live]
 */
import { createKvBlobStore } from "../../src/blobs/kv.ts";
import { exportOrganization } from "../../src/lifecycle/org_export.ts";

const records = Number(Deno.args[0] ?? 10_000);
const exports = Number(Deno.args[1] ?? 1);
const live = Deno.args[2] === "live";
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

const kv = await Deno.openKv(":memory:");
const blobs = createKvBlobStore(kv);
const organizationId = crypto.randomUUID();
const projectId = crypto.randomUUID();
const createdAt = new Date(Date.now() - 3600_000).toISOString();
await kv.atomic()
  .set(["organizations", organizationId], {
    id: organizationId,
    name: "Acme",
    slug: "acme",
    createdAt,
  })
  .set(["projects", projectId], {
    id: projectId,
    organizationId,
    slug: "acme",
    name: "Acme Cloud",
    hostedSubdomain: null,
    createdAt,
  })
  .set(["projects_by_organization", organizationId, projectId], projectId)
  .set(["projects_by_slug", "acme"], projectId)
  .commit();

const start = Date.now() - records * 1000;
for (let i = 0; i < records; i += 50) {
  const op = kv.atomic();
  const count = Math.min(50, records - i);
  const payloads = Array.from({ length: count }, (_, j) =>
    new TextEncoder().encode(JSON.stringify({
      bomFormat: "CycloneDX",
      specVersion: "1.5",
      components: [{ name: `component-${i + j}`, version: `1.${i + j}.0` }],
      padding: "x".repeat(100),
    })));
  const keys = await blobs.putMany("evidence", payloads);
  for (let j = 0; j < count; j++) {
    const id = crypto.randomUUID();
    const observedAt = new Date(start + (i + j) * 1000).toISOString();
    op.set(["evidence", id], {
      id,
      projectId,
      evidenceType: "sbom",
      sourceType: "github_actions",
      sourceRef: "acme/api@refs/heads/main",
      observedAt,
      receivedAt: observedAt,
      payloadS3Key: keys[j],
      payloadSha256: keys[j].slice("evidence/".length),
      payloadBytes: payloads[j].length,
      reading: { format: null },
    });
    op.set(["evidence_by_observation", projectId, "sbom", Date.parse(observedAt), id], id);
  }
  if (!(await op.commit()).ok) throw new Error("seeding failed");
}

gc();
await new Promise((resolve) => setTimeout(resolve, 200));
gc();
const baseline = Deno.memoryUsage().rss;
const baselineHeap = Deno.memoryUsage().heapUsed;
let peak = baseline;
let liveHeap = 0;
let liveExternal = 0;
const baselineExternal = Deno.memoryUsage().external;
let collected = performance.now();
const sampler = setInterval(() => {
  peak = Math.max(peak, Deno.memoryUsage().rss);
}, 20);

async function one(): Promise<{ bytes: number }> {
  const stream = exportOrganization({
    kv,
    blobs,
    organizationId,
    log: false,
    keys: false,
    now: new Date(),
  });
  let bytes = 0;
  for await (const chunk of stream) {
    bytes += chunk.length;
    peak = Math.max(peak, Deno.memoryUsage().rss);
    if (live && performance.now() - collected > 250) {
      gc();
      const usage = Deno.memoryUsage();
      liveHeap = Math.max(liveHeap, usage.heapUsed - baselineHeap);
      liveExternal = Math.max(liveExternal, usage.external - baselineExternal);
      collected = performance.now();
    }
  }
  return { bytes };
}

const started = performance.now();
const running = Array.from({ length: exports }, () => one());
/** What one more export is answered while these run (503 once the limit is reached). */
let oneMore = "started";
try {
  await exportOrganization({
    kv,
    blobs,
    organizationId,
    log: false,
    keys: false,
    now: new Date(),
  }).cancel();
} catch (error) {
  const e = error as { status?: number; headers?: Record<string, string> };
  oneMore = `${e.status} retry-after ${e.headers?.["Retry-After"]}`;
}
const results = await Promise.all(running);
const seconds = (performance.now() - started) / 1000;
clearInterval(sampler);
peak = Math.max(peak, Deno.memoryUsage().rss);
gc();
await new Promise((resolve) => setTimeout(resolve, 200));
gc();
const after = Deno.memoryUsage().rss;
console.log(JSON.stringify({
  records,
  exports,
  baselineRss: baseline,
  peakRss: peak,
  afterRss: after,
  growth: peak - baseline,
  retained: after - baseline,
  archiveBytes: results.map((r) => r.bytes),
  seconds: Number(seconds.toFixed(1)),
  oneMore,
  ...(live ? { liveHeap, liveExternal } : {}),
  heapUsed: Deno.memoryUsage().heapUsed,
  external: Deno.memoryUsage().external,
}));
kv.close();
