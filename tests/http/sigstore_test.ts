/**
 * Sigstore-signed build provenance end to end: the project's expected identities
 * (GET/PUT /projects/{id}/sigstore-identities), the reading at ingest, and the
 * `evidence.build_provenance` evaluation after recompute, with a real public-good bundle
 * verified against the trusted root SIGSTORE_TRUSTED_ROOT names.
 */
import assert from "node:assert/strict";
import { createTestApp, type TestApp } from "../support/app.ts";
import { collector, evidenceItem, publishVersion, workspace } from "../support/fixtures.ts";

const FIXTURES = new URL("../fixtures/sigstore/", import.meta.url);
const ROOT_PATH = new URL("trusted_root.public-good.json", FIXTURES).pathname;
const BUNDLE = JSON.parse(
  Deno.readTextFileSync(new URL("slsa-delegator-v2.1.0.sigstore.json", FIXTURES)),
);
const ISSUER = "https://token.actions.githubusercontent.com";
const SIGNER = "https://github.com/slsa-framework/slsa-github-generator/.github/workflows/" +
  "delegator_generic_slsa3.yml@refs/tags/v2.1.0";
/** Rekor's integrated time of BUNDLE's entry (its signed entry timestamp). */
const LOGGED_AT = "2025-02-25T21:58:32.000Z";
/** BUNDLE's only subject. */
const SUBJECT_NAME = "gha_delegator-binary-linux-amd64-workflow_dispatch";
const SUBJECT_SHA256 = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03";
const NOT_REQUIRED = "subjects not matched to the project's artifacts (not required)";

/** Sets the test clock to two hours after BUNDLE was logged, when it is fresh. */
function atBuildTime(ctx: TestApp) {
  ctx.clock.set(new Date(Date.parse(LOGGED_AT) + 2 * 3600_000));
}

async function provenanceState(ctx: TestApp, projectId: string, token: string) {
  const res = await ctx.call("POST", `/projects/${projectId}/evaluations/recompute`, { token });
  assert.equal(res.status, 200);
  const { evaluations } = await res.json();
  return evaluations.find((e: { control: { key: string } }) =>
    e.control.key === "evidence.build_provenance"
  ) as { state: string; reason: string };
}

Deno.test("[http] sigstore: a real bundle passes only for the project's expected identity", async (t) => {
  await using ctx = await createTestApp({ env: { SIGSTORE_TRUSTED_ROOT: ROOT_PATH } });
  atBuildTime(ctx);
  const ws = await workspace(ctx, "alice");
  const c = await collector(ctx, ws);
  const identities = `/projects/${ws.project.id}/sigstore-identities`;

  await t.step("a project expects no identity until one is set", async () => {
    const res = await ctx.call("GET", identities, { token: ws.token });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { identities: [] });
  });

  await t.step("ingest reads the bundle and says its signer is not expected", async () => {
    const res = await ctx.call("POST", "/ingest/evidence", {
      json: {
        projectId: ws.project.id,
        ...evidenceItem(ctx, BUNDLE, { evidenceType: "build_provenance" }),
      },
      headers: { authorization: `Bearer ${c.secret}` },
    });
    assert.equal(res.status, 201);
    const { record } = await res.json();
    assert.equal(record.reading.format, "sigstore-bundle");
    assert.match(record.reading.summary, /verifies, but the project expects no signer identity/);
    assert.doesNotMatch(record.reading.summary, /signed by/);
  });

  await t.step("without an expected identity the control fails", async () => {
    const result = await provenanceState(ctx, ws.project.id, ws.token);
    assert.equal(result.state, "fail");
    assert.match(result.reason, /the project expects no signer identity/);
  });

  await t.step("bad identity lists are refused with 400 and change nothing", async () => {
    for (
      const json of [
        { identities: [{ issuer: "not a url", subject: SIGNER }] },
        { identities: [{ issuer: ISSUER, subject: "" }] },
        { identities: [{ issuer: ISSUER, subject: SIGNER, extra: 1 }] },
        { identities: Array.from({ length: 21 }, () => ({ issuer: ISSUER, subject: SIGNER })) },
        { identity: [] },
      ]
    ) {
      const res = await ctx.call("PUT", identities, { token: ws.token, json });
      assert.equal(res.status, 400, JSON.stringify(json));
      assert.equal((await res.json()).error.code, "validation_failed");
    }
    assert.deepEqual(await (await ctx.call("GET", identities, { token: ws.token })).json(), {
      identities: [],
    });
  });

  await t.step("another organization's member is refused with 403", async () => {
    const other = await workspace(ctx, "mallory");
    const res = await ctx.call("PUT", identities, {
      token: other.token,
      json: { identities: [{ issuer: ISSUER, subject: "*" }] },
    });
    assert.equal(res.status, 403);
    await res.body?.cancel();
    assert.deepEqual(await (await ctx.call("GET", identities, { token: ws.token })).json(), {
      identities: [],
    });
  });

  await t.step("a wrong identity keeps it failing with the signer named", async () => {
    const wrong = "https://github.com/acme/app/.github/workflows/release.yml@refs/heads/main";
    const res = await ctx.call("PUT", identities, {
      token: ws.token,
      json: { identities: [{ issuer: ISSUER, subject: wrong }] },
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
    const result = await provenanceState(ctx, ws.project.id, ws.token);
    assert.equal(result.state, "fail");
    assert.match(
      result.reason,
      /delegator_generic_slsa3\.yml@refs\/tags\/v2\.1\.0.*is not an expected identity/,
    );
  });

  await t.step(
    "the expected identity makes it pass, naming signer, issuer and log index",
    async () => {
      const res = await ctx.call("PUT", identities, {
        token: ws.token,
        json: { identities: [{ issuer: ISSUER, subject: SIGNER }] },
      });
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { identities: [{ issuer: ISSUER, subject: SIGNER }] });
      const result = await provenanceState(ctx, ws.project.id, ws.token);
      assert.equal(result.state, "pass", result.reason);
      assert.ok(
        result.reason.includes(`signed by "${SIGNER}" (issuer "${ISSUER}")`),
        result.reason,
      );
      assert.ok(
        result.reason.endsWith(`Rekor log index 174304175, logged ${LOGGED_AT}; ${NOT_REQUIRED}`),
        result.reason,
      );
      assert.match(result.reason, /SLSA v1 provenance/);
    },
  );

  await t.step("a publication shows the verified signer and log index to buyers", async () => {
    const made = await ctx.call("PATCH", `/projects/${ws.project.id}`, {
      token: ws.token,
      json: { visibility: "public" },
    });
    assert.equal(made.status, 200);
    await made.body?.cancel();
    await publishVersion(ctx, ws);
    const profile = await (await ctx.call("GET", `/trust/${ws.project.slug}/trust.json`)).json();
    const control = profile.controls.find((c: { key: string }) =>
      c.key === "evidence.build_provenance"
    );
    assert.equal(control.state, "pass");
    assert.ok(control.reason.includes(`signed by "${SIGNER}"`), control.reason);
    assert.match(control.reason, /Rekor log index 174304175, logged /);
    const page = await (await ctx.call("GET", `/trust/${ws.project.slug}`, {
      headers: { accept: "text/html" },
    })).text();
    assert.ok(page.includes("Rekor log index 174304175"), "the HTML page shows the log index");
  });

  await t.step("a copy with one byte of the payload altered fails at once", async () => {
    const tampered = structuredClone(BUNDLE);
    const bytes = Uint8Array.from(atob(tampered.dsseEnvelope.payload), (ch) => ch.charCodeAt(0));
    bytes[40] ^= 1;
    tampered.dsseEnvelope.payload = btoa(String.fromCharCode(...bytes));
    const res = await ctx.call("POST", "/ingest/evidence", {
      json: {
        projectId: ws.project.id,
        ...evidenceItem(ctx, tampered, { evidenceType: "build_provenance", minutesAgo: 0 }),
      },
      headers: { authorization: `Bearer ${c.secret}` },
    });
    assert.equal(res.status, 201);
    const { record } = await res.json();
    assert.match(record.reading.summary, /^Sigstore bundle does not verify: /);
    const result = await provenanceState(ctx, ws.project.id, ws.token);
    assert.equal(result.state, "fail");
    assert.match(result.reason, /^Sigstore bundle does not verify: /);
    assert.doesNotMatch(result.reason, /signed by/);
  });
});

Deno.test("[http] sigstore: a trusted root that did not log the bundle makes it fail", async () => {
  const root = JSON.parse(Deno.readTextFileSync(ROOT_PATH));
  root.tlogs = root.ctlogs;
  const path = await Deno.makeTempFile({ suffix: ".json" });
  try {
    await Deno.writeTextFile(path, JSON.stringify(root));
    await using ctx = await createTestApp({ env: { SIGSTORE_TRUSTED_ROOT: path } });
    const ws = await workspace(ctx, "alice");
    const c = await collector(ctx, ws);
    await ctx.call("PUT", `/projects/${ws.project.id}/sigstore-identities`, {
      token: ws.token,
      json: { identities: [{ issuer: ISSUER, subject: SIGNER }] },
    }).then((res) => res.body?.cancel());
    const res = await ctx.call("POST", "/ingest/evidence", {
      json: {
        projectId: ws.project.id,
        ...evidenceItem(ctx, BUNDLE, { evidenceType: "build_provenance" }),
      },
      headers: { authorization: `Bearer ${c.secret}` },
    });
    assert.equal(res.status, 201);
    await res.body?.cancel();
    const result = await provenanceState(ctx, ws.project.id, ws.token);
    assert.equal(result.state, "fail");
    assert.match(result.reason, /^Sigstore bundle does not verify: the transparency-log/);
  } finally {
    await Deno.remove(path);
  }
});

/** A workspace whose project expects BUNDLE's signer, with a collector. */
async function expectingSigner(ctx: TestApp) {
  const ws = await workspace(ctx, "alice");
  const c = await collector(ctx, ws);
  const res = await ctx.call("PUT", `/projects/${ws.project.id}/sigstore-identities`, {
    token: ws.token,
    json: { identities: [{ issuer: ISSUER, subject: SIGNER }] },
  });
  assert.equal(res.status, 200);
  await res.body?.cancel();
  const send = async (
    payload: Record<string, unknown>,
    evidenceType: string,
    sourceRef?: string,
  ) => {
    const sent = await ctx.call("POST", "/ingest/evidence", {
      json: {
        projectId: ws.project.id,
        ...evidenceItem(ctx, payload, { evidenceType, sourceRef }),
      },
      headers: { authorization: `Bearer ${c.secret}` },
    });
    assert.ok(sent.status === 201 || sent.status === 200, `${sent.status}`);
    return (await sent.json()).record as { observedAt: string; reading: { summary: string } };
  };
  return { ws, send };
}

Deno.test("[http] sigstore: a bundle sent long after it was logged is as old as its Rekor entry", async (t) => {
  await using ctx = await createTestApp({ env: { SIGSTORE_TRUSTED_ROOT: ROOT_PATH } });
  const { ws, send } = await expectingSigner(ctx);

  await t.step(
    "the record's observation time is the verified log time, not the claim",
    async () => {
      // The test clock stands at 2026-11-01; the collector claims "a minute ago".
      const record = await send(BUNDLE, "build_provenance");
      assert.equal(record.observedAt, LOGGED_AT);
      const listed = await ctx.call("GET", `/projects/${ws.project.id}/evidence`, {
        token: ws.token,
      });
      const { records } = await listed.json();
      assert.equal(records[0].observedAt, LOGGED_AT);
    },
  );

  await t.step("the control is not fresh: its age counts from the signature", async () => {
    const result = await provenanceState(ctx, ws.project.id, ws.token) as {
      state: string;
      reason: string;
      latestEvidenceAt?: string;
      freshUntil?: string;
    };
    assert.notEqual(result.state, "pass", result.reason);
    assert.equal(result.state, "stale");
    assert.match(result.reason, /counted from its signature's log time, 2025-02-25T21:58:32/);
    assert.equal(result.latestEvidenceAt, LOGGED_AT);
  });

  await t.step("sent again with another claimed time, it is the same record", async () => {
    ctx.clock.advance(60_000);
    const again = await send(BUNDLE, "build_provenance");
    assert.equal(again.observedAt, LOGGED_AT);
    const listed = await ctx.call("GET", `/projects/${ws.project.id}/evidence`, {
      token: ws.token,
    });
    assert.equal((await listed.json()).records.length, 1);
  });
});

Deno.test("[http] sigstore: an earlier claimed observation time is kept", async () => {
  await using ctx = await createTestApp({ env: { SIGSTORE_TRUSTED_ROOT: ROOT_PATH } });
  atBuildTime(ctx);
  const { send } = await expectingSigner(ctx);
  // evidenceItem claims a minute before the clock: a minute before the log time.
  ctx.clock.set(new Date(LOGGED_AT));
  const record = await send(BUNDLE, "build_provenance");
  assert.equal(record.observedAt, new Date(Date.parse(LOGGED_AT) - 60_000).toISOString());
});

Deno.test("[http] sigstore: provenance subjects must be the project's artifacts when required", async (t) => {
  await using ctx = await createTestApp({ env: { SIGSTORE_TRUSTED_ROOT: ROOT_PATH } });
  atBuildTime(ctx);
  const { ws, send } = await expectingSigner(ctx);
  const path = `/projects/${ws.project.id}/provenance-subjects`;
  const put = async (json: unknown) => {
    const res = await ctx.call("PUT", path, { token: ws.token, json });
    assert.equal(res.status, 200, await res.clone().text());
    return await res.json();
  };
  await send(BUNDLE, "build_provenance");

  await t.step(
    "by default subjects are not required to match, and the reason says so",
    async () => {
      const res = await ctx.call("GET", path, { token: ws.token });
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), {
        requireMatch: false,
        digestsFrom: [],
        artifactNames: [],
      });
      const result = await provenanceState(ctx, ws.project.id, ws.token);
      assert.equal(result.state, "pass", result.reason);
      assert.ok(result.reason.endsWith(NOT_REQUIRED), result.reason);
    },
  );

  await t.step("bad settings are refused with 400 and change nothing", async () => {
    for (
      const json of [
        { requireMatch: true, digestsFrom: [], artifactNames: [] },
        { requireMatch: true, digestsFrom: ["kubernetes"], artifactNames: [] },
        { requireMatch: true, digestsFrom: ["sbom", "sbom"], artifactNames: [] },
        { requireMatch: true, digestsFrom: [], artifactNames: ["a\nb"] },
        { requireMatch: true, digestsFrom: [], artifactNames: [""] },
        { requireMatch: true, digestsFrom: [], artifactNames: Array(21).fill("x") },
        { requireMatch: "yes", digestsFrom: [], artifactNames: ["x"] },
        { requireMatch: true, digestsFrom: [], artifactNames: ["x"], extra: 1 },
        { requireMatch: true },
      ]
    ) {
      const res = await ctx.call("PUT", path, { token: ws.token, json });
      assert.equal(res.status, 400, JSON.stringify(json));
      assert.equal((await res.json()).error.code, "validation_failed");
    }
    assert.deepEqual(await (await ctx.call("GET", path, { token: ws.token })).json(), {
      requireMatch: false,
      digestsFrom: [],
      artifactNames: [],
    });
  });

  await t.step("another organization's member is refused with 403", async () => {
    const other = await workspace(ctx, "mallory");
    const res = await ctx.call("PUT", path, {
      token: other.token,
      json: { requireMatch: false, digestsFrom: [], artifactNames: [] },
    });
    assert.equal(res.status, 403);
    await res.body?.cancel();
  });

  await t.step("a subject unrelated to the project's deployment fails, naming it", async () => {
    await send({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "api" },
      spec: {
        replicas: 1,
        template: {
          spec: {
            containers: [{ name: "api", image: `ghcr.io/acme/api@sha256:${"ab".repeat(32)}` }],
          },
        },
      },
      status: { replicas: 1, readyReplicas: 1 },
    }, "deployment_snapshot");
    await put({ requireMatch: true, digestsFrom: ["deployment_snapshot"], artifactNames: [] });
    const result = await provenanceState(ctx, ws.project.id, ws.token);
    assert.equal(result.state, "fail");
    assert.equal(
      result.reason,
      "Sigstore signature verifies, but no subject of its SLSA provenance is an artifact the " +
        `project reports: "${SUBJECT_NAME}" (sha256:5891b5b522d5…) is not a digest the latest ` +
        "deployment snapshot reports",
    );
  });

  await t.step("no SBOM yet: the reason says none was received", async () => {
    await put({ requireMatch: true, digestsFrom: ["sbom"], artifactNames: [] });
    const result = await provenanceState(ctx, ws.project.id, ws.token);
    assert.equal(result.state, "fail");
    assert.match(result.reason, /is not a digest the latest SBOM \(none received\) reports$/);
  });

  await t.step("a deployment running the built artifact's digest makes it pass", async () => {
    ctx.clock.advance(60_000);
    await send({
      apiVersion: "v1",
      kind: "List",
      items: [{
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "api" },
        spec: {
          replicas: 1,
          template: {
            spec: {
              containers: [{ name: "api", image: `ghcr.io/acme/api@sha256:${SUBJECT_SHA256}` }],
            },
          },
        },
        status: { replicas: 1, readyReplicas: 1 },
      }],
    }, "deployment_snapshot");
    await put({ requireMatch: true, digestsFrom: ["deployment_snapshot"], artifactNames: [] });
    const result = await provenanceState(ctx, ws.project.id, ws.token);
    assert.equal(result.state, "pass", result.reason);
    assert.ok(
      result.reason.endsWith(
        `; subject "${SUBJECT_NAME}" (sha256:5891b5b522d5…) is an artifact the latest ` +
          "deployment snapshot reports",
      ),
      result.reason,
    );
  });

  await t.step("an SBOM describing the artifact makes it pass by the SBOM rule", async () => {
    await send({
      bomFormat: "CycloneDX",
      specVersion: "1.5",
      metadata: {
        component: {
          type: "application",
          name: "binary-linux-amd64",
          hashes: [{ alg: "SHA-256", content: SUBJECT_SHA256 }],
        },
      },
      components: [],
    }, "sbom");
    await put({ requireMatch: true, digestsFrom: ["sbom"], artifactNames: [] });
    const result = await provenanceState(ctx, ws.project.id, ws.token);
    assert.equal(result.state, "pass", result.reason);
    assert.match(result.reason, /is an artifact the latest SBOM reports$/);
  });

  await t.step("an artifact name pattern decides when no digest matches", async () => {
    await put({ requireMatch: true, digestsFrom: [], artifactNames: ["gha_delegator-*"] });
    const result = await provenanceState(ctx, ws.project.id, ws.token);
    assert.equal(result.state, "pass", result.reason);
    assert.ok(
      result.reason.endsWith(
        `; subject "${SUBJECT_NAME}" matches the artifact name pattern "gha_delegator-*"`,
      ),
      result.reason,
    );
    await put({ requireMatch: true, digestsFrom: [], artifactNames: ["ghcr.io/acme/*"] });
    const refused = await provenanceState(ctx, ws.project.id, ws.token);
    assert.equal(refused.state, "fail");
    assert.match(refused.reason, /matches none of the 1 artifact name pattern$/);
  });

  await t.step("the ingest reading applies the rule too", async () => {
    ctx.clock.advance(60_000);
    const tagged = await send(BUNDLE, "build_provenance", "acme/api@refs/tags/v2");
    assert.match(tagged.reading.summary, /no subject of its SLSA provenance is an artifact/);
  });

  await t.step("setting the default back removes the rule", async () => {
    assert.deepEqual(await put({ requireMatch: false, digestsFrom: [], artifactNames: [] }), {
      requireMatch: false,
      digestsFrom: [],
      artifactNames: [],
    });
    const result = await provenanceState(ctx, ws.project.id, ws.token);
    assert.equal(result.state, "pass", result.reason);
  });
});
