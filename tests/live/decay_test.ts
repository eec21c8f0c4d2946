/**
 * Live re-evaluation through the job store and the worker's loop, with short policies and
 * the real clock: states change by themselves, without any request.
 */
import assert from "node:assert/strict";
import { startTestServer } from "../support/server.ts";
import { insertJob } from "../../src/store/jobs.ts";

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`Timed out waiting for ${what}`);
}

Deno.test("[live] a control turns degraded then stale by itself; redelivery does no harm", async (t) => {
  await using server = await startTestServer();
  const token = await server.tokenFor("alice");
  const api = async (method: string, path: string, body?: unknown, auth = token) => {
    const res = await fetch(server.baseUrl + path, {
      method,
      headers: { authorization: `Bearer ${auth}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await res.json();
    if (res.status >= 300) {
      throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    }
    return json;
  };
  const { project } = await api("POST", "/onboarding/bootstrap", {
    workspaceName: "Acme",
    projectName: "API",
  });
  const { controls } = await api("GET", `/projects/${project.id}/controls`);
  const sbom = controls.find((c: { key: string }) => c.key === "evidence.sbom");
  await api("PATCH", `/projects/${project.id}/controls/${sbom.id}`, {
    freshnessPolicyJson: { kind: "time_window", windowSeconds: 4 },
    degradationPolicyJson: { staleAfterSeconds: 7, degradedAfterSeconds: null },
  });
  const { secret } = await api("POST", `/projects/${project.id}/collectors`, { name: "ci" });
  const observedAt = new Date().toISOString();
  await api("POST", "/ingest/evidence", {
    projectId: project.id,
    evidenceType: "sbom",
    sourceType: "collector",
    sourceRef: "ci",
    observedAt,
    payload: { bomFormat: "CycloneDX", specVersion: "1.5", components: [{ name: "a" }] },
  }, secret.value);

  const sbomState = async () => {
    const { evaluations } = await api("GET", `/projects/${project.id}/evaluations`);
    return evaluations.find((e: { control: { key: string } }) => e.control.key === "evidence.sbom");
  };

  await t.step("the ingest schedules a recompute: pass", async () => {
    const evaluation = await waitFor("pass", async () => {
      const e = await sbomState();
      return e?.state === "pass" ? e : undefined;
    });
    assert.equal(evaluation.latestEvidenceAt, new Date(observedAt).toISOString());
  });

  await t.step("then degraded after the 4 s window, with no request in between", async () => {
    const evaluation = await waitFor("degraded", async () => {
      const e = await sbomState();
      return e?.state === "degraded" ? e : undefined;
    });
    assert.ok(Date.now() - Date.parse(observedAt) >= 4000);
    assert.equal(evaluation.confidence, 0.5);
  });

  await t.step("then stale after 7 s", async () => {
    const evaluation = await waitFor("stale", async () => {
      const e = await sbomState();
      return e?.state === "stale" ? e : undefined;
    });
    assert.ok(Date.now() - Date.parse(observedAt) >= 7000);
    assert.equal(evaluation.confidence, 0.25);
    assert.equal(evaluation.nextCheckAt, null, "nothing further to schedule for this control");
  });

  await t.step("a recompute job run twice recomputes to the same states", async () => {
    const before = await api("GET", `/projects/${project.id}/evaluations`);
    const message = { kind: "recompute", projectId: project.id };
    await insertJob(server.kv, message, { now: new Date() });
    await insertJob(server.kv, message, { now: new Date() });
    await waitFor("the repeated jobs to run", async () => {
      const now = await api("GET", `/projects/${project.id}/evaluations`);
      const ran = now.evaluations.every((e: { updatedAt: string }, i: number) =>
        e.updatedAt > before.evaluations[i].updatedAt
      );
      return ran ? now : undefined;
    });
    const after = await api("GET", `/projects/${project.id}/evaluations`);
    const states = (x: { evaluations: Array<{ state: string; confidence: number }> }) =>
      x.evaluations.map((e) => `${e.state}/${e.confidence}`);
    assert.deepEqual(states(after), states(before));
    assert.ok(
      !server.log.lines.some((l) => l.includes('"level":"error"')),
      server.log.lines.join("\n"),
    );
  });
});
