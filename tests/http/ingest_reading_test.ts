/**
 * Evidence payloads that are JSON arrays (conftest's `--output json`), and the `reading`
 * every ingest response and evidence listing carries.
 */
import assert from "node:assert/strict";
import { canonicalJson } from "../../src/lib/canonical_json.ts";
import { sha256Hex } from "../../src/lib/hash.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { collector, evidenceItem, workspace } from "../support/fixtures.ts";

const CONFTEST = JSON.parse(
  Deno.readTextFileSync(new URL("../fixtures/conftest/deployment-failures.json", import.meta.url)),
);
const TRIVY_SECRETS = JSON.parse(
  Deno.readTextFileSync(new URL("../fixtures/trivy/secrets.json", import.meta.url)),
);

function send(ctx: TestApp, secret: string, path: string, json: unknown) {
  return ctx.call("POST", path, { json, headers: { authorization: `Bearer ${secret}` } });
}

Deno.test("[http] ingest: conftest's array output is evidence end to end", async (t) => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "alice");
  const c = await collector(ctx, ws);
  const item = {
    ...evidenceItem(ctx, {}, { evidenceType: "policy_result" }),
    payload: CONFTEST,
  };

  let record: Record<string, unknown> = {};
  await t.step("201 with the canonical array's checksum and a conftest reading", async () => {
    const res = await send(ctx, c.secret, "/ingest/evidence", {
      projectId: ws.project.id,
      ...item,
    });
    assert.equal(res.status, 201);
    record = (await res.json()).record;
    assert.equal(record.checksum, `sha256:${await sha256Hex(canonicalJson(CONFTEST))}`);
    assert.deepEqual(record.reading, {
      format: "conftest",
      understood: true,
      summary: 'conftest: 1 success, 0 warnings, 4 failures in 1 file; first: "Containers must ' +
        'not run as root in Deployment hello-kubernet…"',
    });
  });

  await t.step("the payload route serves the array as stored", async () => {
    const res = await ctx.call(
      "GET",
      `/projects/${ws.project.id}/evidence/${record.id}/payload`,
      { token: ws.token },
    );
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), CONFTEST);
  });

  await t.step("the policy control fails on it", async () => {
    const res = await ctx.call("POST", `/projects/${ws.project.id}/evaluations/recompute`, {
      token: ws.token,
    });
    const { evaluations } = await res.json();
    const policy = evaluations.find((e: { control: { key: string } }) =>
      e.control.key === "evidence.policy_result"
    );
    assert.equal(policy.state, "fail");
    assert.match(policy.reason, /4 failures/);
  });

  await t.step("a batch takes arrays too", async () => {
    const res = await send(ctx, c.secret, "/ingest/evidence/batch", {
      projectId: ws.project.id,
      records: [{ ...item, sourceRef: "batch" }, { ...item, sourceRef: "batch", payload: [] }],
    });
    assert.equal(res.status, 201);
    const { records } = await res.json();
    assert.deepEqual(
      records.map((r: { reading: { understood: boolean } }) => r.reading.understood),
      [
        true,
        false,
      ],
    );
  });
});

Deno.test("[http] ingest: payloads other than objects and arrays are 400 with a clear message", async (t) => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "alice");
  const c = await collector(ctx, ws);
  const cases: [string, unknown, RegExp][] = [
    ["a string", "[]", /^Field "payload": Expected a JSON object or array$/],
    ["null", null, /^Field "payload": Expected a JSON object or array$/],
    ["an array over the limit", new Array(100_001).fill(0), /at most 100000 entries$/],
  ];
  for (const [name, payload, message] of cases) {
    await t.step(name, async () => {
      const res = await send(ctx, c.secret, "/ingest/evidence", {
        projectId: ws.project.id,
        ...evidenceItem(ctx, {}),
        payload,
      });
      assert.equal(res.status, 400);
      assert.match((await res.json()).error.message, message);
    });
  }
});

Deno.test("[http] ingest: every response and listing says how the record was read", async (t) => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "alice");
  const c = await collector(ctx, ws);
  const scan = { ...evidenceItem(ctx, TRIVY_SECRETS, { evidenceType: "vulnerability_scan" }) };

  await t.step("a Trivy secret scan is stored, read as Trivy and not understood", async () => {
    const res = await send(ctx, c.secret, "/ingest/evidence", {
      projectId: ws.project.id,
      ...scan,
    });
    assert.equal(res.status, 201);
    const { record } = await res.json();
    assert.equal(record.reading.format, "trivy");
    assert.equal(record.reading.understood, false);
    assert.match(record.reading.summary, /no vulnerability scanning in this report$/);
  });

  await t.step("a payload in no known format says so", async () => {
    const res = await send(ctx, c.secret, "/ingest/evidence", {
      projectId: ws.project.id,
      ...evidenceItem(ctx, { build: 42 }),
    });
    const { record } = await res.json();
    assert.deepEqual(
      { format: record.reading.format, understood: record.reading.understood },
      { format: null, understood: false },
    );
  });

  await t.step("a replay answers with the same reading", async () => {
    const res = await send(ctx, c.secret, "/ingest/evidence", {
      projectId: ws.project.id,
      ...scan,
    });
    assert.equal(res.status, 200);
    assert.equal((await res.json()).record.reading.format, "trivy");
  });

  await t.step("the listing carries each record's reading, after SPEC's fields", async () => {
    const res = await ctx.call("GET", `/projects/${ws.project.id}/evidence`, { token: ws.token });
    const { records } = await res.json();
    assert.equal(records.length, 2);
    for (const record of records) {
      assert.equal(typeof record.reading.understood, "boolean");
      assert.deepEqual(Object.keys(record).slice(-3), ["observedAt", "receivedAt", "reading"]);
    }
  });
});

Deno.test("[http] ingest: the answer says what the evidence did to the controls that read it", async (t) => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "alice");
  const c = await collector(ctx, ws);
  const sbom = { bomFormat: "CycloneDX", specVersion: "1.5", components: [] };

  let first = "";
  await t.step("a first SBOM moves its control from not evaluated to pass", async () => {
    const res = await send(ctx, c.secret, "/ingest/evidence", {
      projectId: ws.project.id,
      ...evidenceItem(ctx, sbom, { minutesAgo: 10 }),
    });
    assert.equal(res.status, 201);
    const { record, controls } = await res.json();
    first = record.id;
    assert.deepEqual(controls.map((e: { key: string }) => e.key), ["evidence.sbom"]);
    assert.deepEqual(controls[0], {
      key: "evidence.sbom",
      name: "Software bill of materials",
      previousState: null,
      state: "pass",
      reason: controls[0].reason,
      evidenceRecordId: record.id,
    });
    assert.equal(typeof controls[0].reason, "string");
  });

  await t.step("after a recompute the state before is the stored one", async () => {
    const recompute = await ctx.call("POST", `/projects/${ws.project.id}/evaluations/recompute`, {
      token: ws.token,
    });
    assert.equal(recompute.status, 200);
    await recompute.body?.cancel();
    const res = await send(ctx, c.secret, "/ingest/evidence", {
      projectId: ws.project.id,
      ...evidenceItem(ctx, TRIVY_SECRETS, { evidenceType: "vulnerability_scan" }),
    });
    const { controls } = await res.json();
    assert.deepEqual(
      controls.map((e: { key: string; previousState: string; state: string }) => [
        e.key,
        e.previousState,
        e.state,
      ]),
      [["evidence.vulnerability_scan", "unknown", "unknown"]],
    );
  });

  await t.step("an older observation leaves the control to the newer record", async () => {
    const res = await send(ctx, c.secret, "/ingest/evidence", {
      projectId: ws.project.id,
      ...evidenceItem(ctx, { ...sbom, version: 2 }, { minutesAgo: 60 }),
    });
    const { record, controls } = await res.json();
    assert.notEqual(record.id, first);
    assert.equal(controls[0].evidenceRecordId, first, "decided by the newer observation");
    assert.equal(controls[0].previousState, "pass");
  });

  await t.step("a batch lists each control its types feed, once", async () => {
    const res = await send(ctx, c.secret, "/ingest/evidence/batch", {
      projectId: ws.project.id,
      records: [
        evidenceItem(ctx, { ...sbom, version: 3 }),
        evidenceItem(ctx, { ...sbom, version: 4 }, { sourceRef: "acme/web@main" }),
        evidenceItem(ctx, CONFTEST, { evidenceType: "policy_result" }),
      ],
    });
    assert.equal(res.status, 201);
    const { controls } = await res.json();
    assert.deepEqual(controls.map((e: { key: string }) => e.key), [
      "evidence.sbom",
      "evidence.policy_result",
    ]);
    assert.equal(controls[1].state, "fail");
  });
});
