/**
 * Wildcard patterns over HTTP: the limits are checked when identities and artifact names are
 * written (400 `validation_failed` naming the limit, nothing stored), and the pattern an
 * outside review found freezing the server (`********Z`, within the limits) is answered in
 * bounded time when a real Sigstore bundle is ingested and re-evaluated against it.
 */
import assert from "node:assert/strict";
import { createTestApp } from "../support/app.ts";
import { collector, evidenceItem, workspace } from "../support/fixtures.ts";

const FIXTURES = new URL("../fixtures/sigstore/", import.meta.url);
const ROOT_PATH = new URL("trusted_root.public-good.json", FIXTURES).pathname;
const BUNDLE = JSON.parse(
  Deno.readTextFileSync(new URL("slsa-delegator-v2.1.0.sigstore.json", FIXTURES)),
);
const ISSUER = "https://token.actions.githubusercontent.com";
const SIGNER = "https://github.com/slsa-framework/slsa-github-generator/.github/workflows/" +
  "delegator_generic_slsa3.yml@refs/tags/v2.1.0";
const LOGGED_AT = "2025-02-25T21:58:32.000Z";

Deno.test("[http] sigstore patterns: limits checked when written, matching bounded", async (t) => {
  await using ctx = await createTestApp({ env: { SIGSTORE_TRUSTED_ROOT: ROOT_PATH } });
  ctx.clock.set(new Date(Date.parse(LOGGED_AT) + 2 * 3600_000));
  const ws = await workspace(ctx, "alice");
  const identities = `/projects/${ws.project.id}/sigstore-identities`;
  const subjects = `/projects/${ws.project.id}/provenance-subjects`;
  const put = (path: string, json: unknown) => ctx.call("PUT", path, { token: ws.token, json });

  await t.step("over the limits: 400 naming the limit, nothing stored", async () => {
    const refused: [string, unknown, RegExp][] = [
      [
        identities,
        { identities: [{ issuer: ISSUER, subject: `${"*".repeat(9)}Z` }] },
        /at most 8 "\*" wildcards; this one has 9/,
      ],
      [
        identities,
        { identities: [{ issuer: ISSUER, subject: `${"*".repeat(400)}Z` }] },
        /this one has 400/,
      ],
      [
        identities,
        { identities: [{ issuer: ISSUER, subject: `*${"x".repeat(256)}` }] },
        /at most 256 characters long; this one has 257/,
      ],
      [
        subjects,
        { requireMatch: true, digestsFrom: [], artifactNames: ["*********Z"] },
        /at most 8 "\*" wildcards/,
      ],
      [subjects, {
        requireMatch: true,
        digestsFrom: [],
        artifactNames: [`ghcr.io/${"a".repeat(250)}/*`],
      }, /at most 256 characters long/],
    ];
    for (const [path, json, message] of refused) {
      const res = await put(path, json);
      assert.equal(res.status, 400, JSON.stringify(json).slice(0, 80));
      const { error } = await res.json();
      assert.equal(error.code, "validation_failed");
      assert.match(error.message, message);
    }
    assert.deepEqual(await (await ctx.call("GET", identities, { token: ws.token })).json(), {
      identities: [],
    });
    assert.equal(
      (await (await ctx.call("GET", subjects, { token: ws.token })).json()).requireMatch,
      false,
    );
  });

  await t.step("within them: 8 stars, and exact values up to the field's own length", async () => {
    const exact = `https://github.com/acme/${"a".repeat(400)}`;
    const ok = await put(identities, {
      identities: [{ issuer: ISSUER, subject: SIGNER }, { issuer: ISSUER, subject: exact }],
    });
    assert.equal(ok.status, 200, await ok.clone().text());
    await ok.body?.cancel();
    const rule = await put(subjects, {
      requireMatch: true,
      digestsFrom: [],
      artifactNames: ["********Z"],
    });
    assert.equal(rule.status, 200, await rule.clone().text());
    await rule.body?.cancel();
  });

  await t.step(
    "********Z against the real bundle: ingest and recompute in bounded time",
    async () => {
      const c = await collector(ctx, ws);
      const start = performance.now();
      const [sent, health] = await Promise.all([
        ctx.call("POST", "/ingest/evidence", {
          json: {
            projectId: ws.project.id,
            ...evidenceItem(ctx, BUNDLE, { evidenceType: "build_provenance" }),
          },
          headers: { authorization: `Bearer ${c.secret}` },
        }),
        ctx.call("GET", "/health"),
      ]);
      const ingestMs = performance.now() - start;
      assert.equal(sent.status, 201);
      assert.equal(health.status, 200);
      await health.body?.cancel();
      const { record } = await sent.json();
      assert.match(record.reading.summary, /matches none of the 1 artifact name pattern/);
      const again = performance.now();
      const res = await ctx.call("POST", `/projects/${ws.project.id}/evaluations/recompute`, {
        token: ws.token,
      });
      const recomputeMs = performance.now() - again;
      assert.equal(res.status, 200);
      const { evaluations } = await res.json();
      const provenance = evaluations.find((e: { control: { key: string } }) =>
        e.control.key === "evidence.build_provenance"
      );
      assert.equal(provenance.state, "fail");
      console.log(
        `ingest with /health beside it: ${ingestMs.toFixed(0)} ms; recompute: ${
          recomputeMs.toFixed(0)
        } ms`,
      );
      // The regular expression took about 10 s for each; the linear matcher a few ms.
      assert.ok(ingestMs < 3000, `ingest took ${ingestMs} ms`);
      assert.ok(recomputeMs < 3000, `recompute took ${recomputeMs} ms`);
    },
  );
});
