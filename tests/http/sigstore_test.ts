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
      assert.match(result.reason, /Rekor log index 174304175$/);
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
    assert.match(control.reason, /Rekor log index 174304175$/);
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
