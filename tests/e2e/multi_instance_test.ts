/**
 * Two real service processes on one KV file, the way a self-hoster scales out:
 * concurrent batch ingest and publishes through both, with the job worker on in both.
 */
import assert from "node:assert/strict";
import { login, signUp } from "../support/builtin_login.ts";
import { freePort, type ServiceProcess, startService } from "../support/process.ts";

const ACCOUNT = { email: "ops@acme.test", name: "Ops", password: "two instances passphrase" };
const BATCHES = 40;
const RECORDS_PER_BATCH = 25;
const PUBLISHES = 8;
const IN_FLIGHT = 6;

interface Outcome {
  what: string;
  status: number;
  body: string;
}

Deno.test("[e2e] two instances on one KV file: concurrent ingest and publish, no 5xx, nothing lost", async () => {
  const dir = await Deno.makeTempDir();
  const ports = [freePort(), freePort()];
  const bases = ports.map((port) => `http://127.0.0.1:${port}`);
  // One public URL for both, as behind a load balancer: tokens are valid on either.
  const env = (port: number) => ({
    PORT: String(port),
    KV_PATH: `${dir}/kv.sqlite3`,
    BASE_URL: `http://localhost:${ports[0]}`,
  });
  const services: ServiceProcess[] = [];
  try {
    services.push(startService(env(ports[0])));
    const setup = (await services[0].waitFor(/\/signup\?setup=/)).trim();
    (await signUp(bases[0], new URL(setup).search.slice(1), ACCOUNT)).body?.cancel();
    services.push(startService(env(ports[1])));
    await services[1].waitFor(/Dashboard: /);

    const token = (await login(bases[0], ACCOUNT)).access_token;
    const human = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const boot = await (await fetch(`${bases[1]}/onboarding/bootstrap`, {
      method: "POST",
      headers: human,
      body: JSON.stringify({ workspaceName: "Acme", projectName: "API" }),
    })).json();
    const projectId: string = boot.project.id;
    const { secret } = await (await fetch(`${bases[0]}/projects/${projectId}/collectors`, {
      method: "POST",
      headers: human,
      body: JSON.stringify({ name: "ci" }),
    })).json();

    const outcomes: Outcome[] = [];
    const acknowledged: string[] = [];
    const publishedVersions: number[] = [];
    const now = Date.now();
    const batch = (b: number) => async () => {
      const records = Array.from({ length: RECORDS_PER_BATCH }, (_, r) => ({
        evidenceType: "sbom",
        sourceType: "collector",
        sourceRef: `batch-${b}-record-${r}`,
        observedAt: new Date(now - 60_000 + b * RECORDS_PER_BATCH + r).toISOString(),
        payload: {
          bomFormat: "CycloneDX",
          specVersion: "1.5",
          components: [{ name: `c${b}.${r}` }],
        },
      }));
      const res = await fetch(`${bases[b % 2]}/ingest/evidence/batch`, {
        method: "POST",
        headers: { authorization: `Bearer ${secret.value}`, "content-type": "application/json" },
        body: JSON.stringify({ projectId, records }),
      });
      const body = await res.text();
      outcomes.push({ what: `batch ${b}`, status: res.status, body });
      if (res.status === 201) {
        acknowledged.push(...JSON.parse(body).records.map((r: { id: string }) => r.id));
      }
    };
    const publish = (p: number) => async () => {
      const res = await fetch(`${bases[p % 2]}/projects/${projectId}/publish`, {
        method: "POST",
        headers: human,
      });
      const body = await res.text();
      outcomes.push({ what: `publish ${p}`, status: res.status, body });
      if (res.status === 201) publishedVersions.push(JSON.parse(body).publishedProfile.version);
    };
    // Publishes are spread among the batches, so both run at once on both instances.
    const jobs = Array.from({ length: BATCHES }, (_, b) => batch(b));
    for (let p = 0; p < PUBLISHES; p++) jobs.splice(p * 5 + 2, 0, publish(p));
    let next = 0;
    await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
      while (next < jobs.length) await jobs[next++]();
    }));

    const failed = outcomes.filter((o) => o.status >= 500);
    assert.deepEqual(failed, [], `${failed.length} of ${outcomes.length} requests answered 5xx`);
    assert.deepEqual(
      outcomes.filter((o) => o.status !== 201),
      [],
      "every batch and publish succeeded",
    );
    assert.equal(acknowledged.length, BATCHES * RECORDS_PER_BATCH);
    assert.equal(new Set(publishedVersions).size, PUBLISHES, "each publish got its own version");

    const found: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 20; page++) {
      const query: string = `limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
      const res = await fetch(`${bases[page % 2]}/projects/${projectId}/evidence?${query}`, {
        headers: human,
      });
      const json = await res.json();
      found.push(...json.records.map((r: { id: string }) => r.id));
      cursor = json.nextCursor;
      if (!cursor) break;
    }
    assert.equal(found.length, new Set(found).size, "no record is listed twice");
    assert.deepEqual([...found].sort(), [...acknowledged].sort(), "every record is there once");

    const { publishedProfiles } = await (await fetch(
      `${bases[1]}/projects/${projectId}/published-profiles`,
      { headers: human },
    )).json();
    const versions = publishedProfiles.map((p: { version: number }) => p.version).sort(
      (a: number, b: number) => a - b,
    );
    assert.deepEqual(versions, Array.from({ length: versions.length }, (_, i) => i + 1));
    assert.ok(publishedVersions.every((v) => versions.includes(v)));

    // Evidence after the load schedules a recompute job, which either instance runs.
    const before = new Date().toISOString();
    await batch(BATCHES)();
    let recomputed = false;
    for (let i = 0; i < 100 && !recomputed; i++) {
      const { evaluations } =
        await (await fetch(`${bases[i % 2]}/projects/${projectId}/evaluations`, {
          headers: human,
        })).json();
      recomputed = evaluations.every((e: { updatedAt: string }) => e.updatedAt > before);
      if (!recomputed) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(recomputed, "a recompute job ran after the last evidence");
    for (const base of bases) {
      const ready = await (await fetch(`${base}/health/ready`)).json();
      assert.equal(ready.ready, true, JSON.stringify(ready));
    }
    const errors = services.flatMap((s) => s.lines.filter((l) => l.includes('"level":"error"')));
    assert.deepEqual(errors, [], "no instance logged an error");

    for (const base of bases) {
      const health = await fetch(`${base}/health`);
      assert.equal(health.status, 200);
      assert.deepEqual(await health.json(), { status: "ok" });
    }
  } finally {
    await Promise.all(services.map((s) => s.stop()));
    await Deno.remove(dir, { recursive: true });
  }
});
