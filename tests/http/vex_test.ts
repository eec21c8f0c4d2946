/**
 * VEX over HTTP: an OpenVEX document sent as vulnerability_scan evidence flips the scan's
 * control from fail to pass, says why, and never becomes the latest scan itself.
 */
import assert from "node:assert/strict";
import { createTestApp, type TestApp } from "../support/app.ts";
import { collector, evidenceItem, workspace } from "../support/fixtures.ts";

const ALPINE_VEX = JSON.parse(
  Deno.readTextFileSync(new URL("../fixtures/openvex/alpine-libssl3.json", import.meta.url)),
);
const DIGEST = "sha256:124c7d2707904eea7431fffe91522a01e5a861a624ee31d03372cc1d138a3126";

/** A Trivy scan of the image the fixture's statements name: CVE-2023-3446 in two packages. */
const SCAN = {
  SchemaVersion: 2,
  ArtifactName: "alpine:3.18.0",
  ArtifactType: "container_image",
  Metadata: { RepoDigests: [`alpine@${DIGEST}`] },
  Results: [{
    Target: "alpine:3.18.0 (alpine 3.18.0)",
    Class: "os-pkgs",
    Type: "alpine",
    Vulnerabilities: ["libssl3", "libcrypto3"].map((name) => ({
      VulnerabilityID: "CVE-2023-3446",
      PkgName: name,
      PkgIdentifier: { PURL: `pkg:apk/alpine/${name}@3.0.8-r3?arch=x86_64&distro=3.18.0` },
      InstalledVersion: "3.0.8-r3",
      Severity: "HIGH",
    })),
  }],
};

interface Evaluation {
  state: string;
  reason: string;
  latestEvidenceRecordId: string | null;
  control: { key: string };
}

async function scanControl(ctx: TestApp, projectId: string, token: string): Promise<Evaluation> {
  const res = await ctx.call("POST", `/projects/${projectId}/evaluations/recompute`, { token });
  assert.equal(res.status, 200);
  const { evaluations } = await res.json();
  return evaluations.find((e: Evaluation) => e.control.key === "evidence.vulnerability_scan");
}

Deno.test("[http] vex: an OpenVEX document flips the vulnerability control from fail to pass", async (t) => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "alice");
  const c = await collector(ctx, ws);
  const send = (payload: Record<string, unknown>, minutesAgo: number) =>
    ctx.call("POST", "/ingest/evidence", {
      json: {
        projectId: ws.project.id,
        ...evidenceItem(ctx, payload, { evidenceType: "vulnerability_scan", minutesAgo }),
      },
      headers: { authorization: `Bearer ${c.secret}` },
    });

  let scanId = "";
  await t.step("the scan alone fails", async () => {
    const res = await send(SCAN, 10);
    assert.equal(res.status, 201);
    scanId = (await res.json()).record.id;
    const evaluation = await scanControl(ctx, ws.project.id, ws.token);
    assert.equal(evaluation.state, "fail");
    assert.equal(
      evaluation.reason,
      "Trivy report: 0 critical, 2 high, 0 medium, 0 low; 2 above medium",
    );
  });

  let vexId = "";
  await t.step("the VEX document is read as understood OpenVEX", async () => {
    const res = await send(ALPINE_VEX, 1);
    assert.equal(res.status, 201);
    const { record } = await res.json();
    vexId = record.id;
    assert.equal(record.evidenceType, "vulnerability_scan");
    assert.equal(record.reading.format, "openvex");
    assert.equal(record.reading.understood, true);
    assert.match(record.reading.summary, /5 statements \(3 fixed, 2 not_affected\)/);
  });

  await t.step(
    "the control passes, naming the statement; the scan is still the evidence",
    async () => {
      const evaluation = await scanControl(ctx, ws.project.id, ws.token);
      assert.equal(evaluation.state, "pass");
      assert.equal(
        evaluation.reason,
        "Trivy report: 0 critical, 0 high, 0 medium, 0 low (2 suppressed by VEX " +
          `${ALPINE_VEX["@id"]} by The OpenVEX Project <openvex@openssf.org>: not_affected, ` +
          "2023-07-17T18:28:47.696004345-06:00); no finding above medium",
      );
      assert.equal(evaluation.latestEvidenceRecordId, scanId);
    },
  );

  await t.step("the evidence listing of the type shows both, newest first", async () => {
    const res = await ctx.call(
      "GET",
      `/projects/${ws.project.id}/evidence?evidenceType=vulnerability_scan&limit=1`,
      { token: ws.token },
    );
    assert.equal(res.status, 200);
    const page = await res.json();
    assert.deepEqual(page.records.map((r: { id: string }) => r.id), [vexId]);
    const next = await ctx.call(
      "GET",
      `/projects/${ws.project.id}/evidence?evidenceType=vulnerability_scan&limit=1&cursor=${page.nextCursor}`,
      { token: ws.token },
    );
    assert.deepEqual((await next.json()).records.map((r: { id: string }) => r.id), [scanId]);
  });

  await t.step("a newer scan is judged with the same VEX document", async () => {
    const newer = structuredClone(SCAN);
    newer.Results[0].Vulnerabilities.push({
      ...newer.Results[0].Vulnerabilities[0],
      VulnerabilityID: "CVE-2024-0727",
    });
    assert.equal((await send(newer, 0)).status, 201);
    const evaluation = await scanControl(ctx, ws.project.id, ws.token);
    assert.equal(evaluation.state, "fail");
    assert.match(
      evaluation.reason,
      /^Trivy report: 0 critical, 1 high, 0 medium, 0 low \(2 suppressed by VEX /,
    );
  });
});
