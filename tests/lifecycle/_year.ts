/**
 * A year of CI in fast motion, shared by tests/lifecycle/year_test.ts (scaled down) and
 * tests/bench/year.ts (at size): on a fake clock, a collector sends `recordsPerDay` records a
 * day (half SBOMs, half vulnerability scans whose critical count flips every `changeEvery`
 * days, so the project publishes a new version automatically on each change), and the service's
 * own jobs run each day (recomputes, pruning, the blob collector, renders). With `retention`
 * null the service's retention is set out of reach (100 years, 100,000 records a type): nothing
 * is pruned. Sizes are measured at the checkpoints: KV bytes (V8-serialized keys and values of
 * every entry but the blobs') and blob bytes (the blob store's listing).
 */
import { serializedSize } from "../../src/store/_chunks.ts";
import { listPublicationsPage } from "../../src/store/publications.ts";
import { countDeadJobs } from "../../src/store/jobs.ts";
import { fakeClock } from "../../src/lib/clock.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

const DAY_MS = 24 * 3600 * 1000;

export interface YearOptions {
  days: number;
  recordsPerDay: number;
  sbomBytes: number;
  scanBytes: number;
  changeEvery: number;
  retention: { days: number; recordsPerType: number } | null;
  checkpoints: readonly number[];
}

export interface YearPoint {
  day: number;
  kvBytes: number;
  blobBytes: number;
  /** The evidence's share: its records and index entries, and its payload blobs. */
  evidenceKvBytes: number;
  evidenceBlobBytes: number;
  records: number;
  versions: number;
}

export interface Year {
  server: TestServer;
  slug: string;
  projectId: string;
  points: YearPoint[];
  /** Jobs that ran out of attempts (a pruning or collector run that kept failing). */
  deadJobs: number;
}

/** A payload of about `bytes` bytes, unique per `seed`. */
function padded(body: Record<string, unknown>, seed: string, bytes: number) {
  const text = JSON.stringify({ ...body, run: seed });
  return { ...body, run: seed, padding: "x".repeat(Math.max(0, bytes - text.length - 14)) };
}

async function call(
  server: TestServer,
  token: string,
  method: string,
  path: string,
  body?: unknown,
) {
  const res = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

/** Bytes of the KV (blob entries aside) and of the blob store, and the evidence records. */
export async function measure(
  server: TestServer,
  projectId: string,
  day: number,
): Promise<YearPoint> {
  let kvBytes = 0;
  let evidenceKvBytes = 0;
  let records = 0;
  for await (const entry of server.kv.list({ prefix: [] }, { batchSize: 1000 })) {
    const collection = entry.key[0];
    if (collection === "blobs" || collection === "blob_chunks") continue;
    const size = serializedSize(entry.key) + serializedSize(entry.value);
    kvBytes += size;
    if (collection === "evidence") records++;
    if (collection === "evidence" || collection === "evidence_by_observation") {
      evidenceKvBytes += size;
    }
  }
  let blobBytes = 0;
  let evidenceBlobBytes = 0;
  let after: string | undefined;
  for (;;) {
    const page = await server.services.blobs.list({ after, limit: 1000 });
    if (page.length === 0) break;
    for (const blob of page) {
      blobBytes += blob.size;
      if (blob.key.startsWith("evidence/")) evidenceBlobBytes += blob.size;
    }
    after = page[page.length - 1].key;
  }
  const versions = (await listPublicationsPage(server.kv, projectId, { limit: 1 }))
    .publications[0]?.version ?? 0;
  return { day, kvBytes, blobBytes, evidenceKvBytes, evidenceBlobBytes, records, versions };
}

/** Runs the year; the caller closes `server` (after verifying what it wants). */
export async function runYear(options: YearOptions): Promise<Year> {
  const clock = fakeClock(new Date("2026-01-01T00:00:00Z"));
  const retention = options.retention ??
    { days: 36_500, recordsPerType: 100_000 };
  const server = await startTestServer({
    clock,
    worker: false,
    env: {
      MAX_EVIDENCE_BYTES: String(100 * 1024 * 1024),
      EVIDENCE_RETENTION_DAYS: String(retention.days),
      EVIDENCE_RETENTION_RECORDS: String(retention.recordsPerType),
    },
  });
  const slug = "yearco";
  let token = await server.tokenFor("owner");
  const { project } = await call(server, token, "POST", "/onboarding/bootstrap", {
    workspaceName: "Year Co",
    projectName: "Year Co",
    projectSlug: slug,
    projectVisibility: "public",
  });
  await call(server, token, "PATCH", `/projects/${project.id}`, { autoPublish: true });
  const created = await call(server, token, "POST", `/projects/${project.id}/collectors`, {
    name: "ci",
  });
  const secret = created.secret.value as string;
  const points: YearPoint[] = [];
  for (let day = 1; day <= options.days; day++) {
    clock.advance(DAY_MS);
    token = await server.tokenFor("owner");
    const critical = Math.floor(day / options.changeEvery) % 2;
    const now = clock.now().getTime();
    const records = Array.from({ length: options.recordsPerDay }, (_, i) => {
      const sbom = i % 2 === 0;
      const seed = `${day}.${i}`;
      return {
        evidenceType: sbom ? "sbom" : "vulnerability_scan",
        sourceType: "github_actions",
        sourceRef: "yearco/api@refs/heads/main",
        observedAt: new Date(now - (options.recordsPerDay - i) * 60_000).toISOString(),
        payload: sbom
          ? padded(
            { bomFormat: "CycloneDX", specVersion: "1.5", components: [] },
            seed,
            options.sbomBytes,
          )
          : padded({ summary: { critical, high: 0, medium: 1 } }, seed, options.scanBytes),
      };
    });
    for (let i = 0; i < records.length; i += 25) {
      await call(server, secret, "POST", "/ingest/evidence/batch", {
        projectId: project.id,
        records: records.slice(i, i + 25),
      });
    }
    if (day === 1) await call(server, token, "POST", `/projects/${project.id}/publish`);
    await server.services.scheduler.recompute(project.id);
    await server.services.jobs.drain(120_000);
    if (options.checkpoints.includes(day)) points.push(await measure(server, project.id, day));
  }
  const deadJobs = await countDeadJobs(server.kv, 1000);
  return { server, slug, projectId: project.id, points, deadJobs };
}

/**
 * The payload digests the project's versions cite that no stored record (with its payload
 * blob) resolves any more, as `version: digest`; empty when every version's evidence is kept.
 */
export async function unresolvedCitations(year: Year): Promise<string[]> {
  const { kv, services } = year.server;
  const resolvable = new Set<string>();
  for await (
    const entry of kv.list<{ projectId: string; checksum: string; payloadS3Key: string }>(
      { prefix: ["evidence"] },
    )
  ) {
    if (entry.value.projectId !== year.projectId) continue;
    if (await services.blobs.has(entry.value.payloadS3Key)) resolvable.add(entry.value.checksum);
  }
  const missing: string[] = [];
  let before: number | undefined;
  for (;;) {
    const page = await listPublicationsPage(kv, year.projectId, { before, limit: 50 });
    for (const publication of page.publications) {
      const bytes = await services.blobs.get(publication.artifacts.trustJson.key);
      const profile = JSON.parse(new TextDecoder().decode(bytes!));
      for (const control of profile.controls) {
        const digest = control.evidence?.digest;
        if (digest && !resolvable.has(digest)) missing.push(`${publication.version}: ${digest}`);
      }
    }
    if (!page.more) return missing;
    before = page.publications.at(-1)!.version;
  }
}
