import assert from "node:assert/strict";
import { createTestApp, snapshotKv, type TestApp } from "../support/app.ts";
import { createFaultyBlobStore } from "../support/faulty_blob_store.ts";
import { createKvBlobStore } from "../../src/blobs/kv.ts";
import { sha256Hex } from "../../src/lib/hash.ts";
import { collector, evidenceItem, sbomPayload, workspace } from "../support/fixtures.ts";

function send(ctx: TestApp, secret: string, path: string, json: unknown, headers = {}) {
  return ctx.call("POST", path, {
    json,
    headers: { authorization: `Bearer ${secret}`, ...headers },
  });
}

async function evidenceCount(ctx: TestApp, token: string, projectId: string) {
  const res = await ctx.call("GET", `/projects/${projectId}/evidence?limit=100`, { token });
  return (await res.json()).records.length;
}

Deno.test("[http] ingest: records, checksums, replays and idempotency", async (t) => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "alice");
  const c = await collector(ctx, ws);
  const payload = { b: 1, a: [true, null, "é"] };
  const item = { projectId: ws.project.id, ...evidenceItem(ctx, payload) };

  let first: Record<string, unknown> = {};
  await t.step("one record: 201, canonical checksum, content-addressed key", async () => {
    const res = await send(ctx, c.secret, "/ingest/evidence", item);
    assert.equal(res.status, 201);
    first = (await res.json()).record;
    const canonical = '{"a":[true,null,"é"],"b":1}';
    const hex = await sha256Hex(canonical);
    assert.equal(first.checksum, `sha256:${hex}`);
    assert.equal(first.payloadS3Key, `evidence/${hex}`);
    assert.deepEqual(first.collector, { id: c.id, name: "ci" });
    assert.equal(first.receivedAt, ctx.clock.now().toISOString());
  });

  await t.step("the same record sent again returns it with 200 and stores nothing", async () => {
    const before = await snapshotKv(ctx.kv);
    const res = await send(ctx, c.secret, "/ingest/evidence", {
      ...item,
      payload: { a: [true, null, "é"], b: 1 },
    });
    assert.equal(res.status, 200);
    assert.deepEqual((await res.json()).record, first);
    const withoutActivity = (snapshot: string) =>
      snapshot.split("\n").filter((line) => !line.includes("collector_last_seen")).join("\n");
    assert.equal(withoutActivity(await snapshotKv(ctx.kv)), withoutActivity(before));
  });

  await t.step(
    "an Idempotency-Key replay returns the stored records; reuse with other data is 409",
    async () => {
      const batch = {
        projectId: ws.project.id,
        records: [evidenceItem(ctx, sbomPayload(10)), evidenceItem(ctx, sbomPayload(11))],
      };
      const key = { "idempotency-key": "run-42" };
      const created = await send(ctx, c.secret, "/ingest/evidence/batch", batch, key);
      assert.equal(created.status, 201);
      const records = (await created.json()).records;
      const count = await evidenceCount(ctx, ws.token, ws.project.id);
      const replay = await send(ctx, c.secret, "/ingest/evidence/batch", batch, key);
      assert.equal(replay.status, 200);
      assert.deepEqual((await replay.json()).records, records);
      assert.equal(await evidenceCount(ctx, ws.token, ws.project.id), count);
      const other = await send(ctx, c.secret, "/ingest/evidence/batch", {
        ...batch,
        records: [evidenceItem(ctx, sbomPayload(12))],
      }, key);
      assert.equal(other.status, 409);
      assert.equal((await other.json()).error.code, "conflict");
      assert.equal(await evidenceCount(ctx, ws.token, ws.project.id), count);
    },
  );

  await t.step("identical payloads are stored once", async () => {
    const blobEntries = async () => {
      const entries = [];
      for await (const entry of ctx.kv.list({ prefix: ["blobs"] })) entries.push(entry);
      for await (const entry of ctx.kv.list({ prefix: ["blob_chunks"] })) entries.push(entry);
      return entries.map((e) => ({ key: e.key, value: e.value }));
    };
    const before = await blobEntries();
    assert.ok(before.some((e) => e.key[1] === first.payloadS3Key));
    const res = await send(ctx, c.secret, "/ingest/evidence", {
      ...item,
      sourceRef: "another/ref",
    });
    assert.equal(res.status, 201);
    const second = (await res.json()).record;
    assert.notEqual(second.id, first.id);
    assert.equal(second.payloadS3Key, first.payloadS3Key);
    assert.deepEqual(await blobEntries(), before);
  });

  await t.step("timestamps with an offset are normalized to UTC", async () => {
    const res = await send(ctx, c.secret, "/ingest/evidence", {
      ...item,
      sourceRef: "tz",
      observedAt: "2026-11-01T13:30:00+02:00",
    });
    assert.equal(res.status, 201);
    assert.equal((await res.json()).record.observedAt, "2026-11-01T11:30:00.000Z");
  });

  await t.step("observedAt more than 5 minutes ahead is refused; 4 minutes is fine", async () => {
    const ahead = (minutes: number) =>
      new Date(ctx.clock.now().getTime() + minutes * 60_000).toISOString();
    const refused = await send(ctx, c.secret, "/ingest/evidence", {
      ...item,
      observedAt: ahead(6),
    });
    assert.equal(refused.status, 400);
    assert.match((await refused.json()).error.message, /observedAt/);
    const fine = await send(ctx, c.secret, "/ingest/evidence", { ...item, observedAt: ahead(4) });
    assert.equal(fine.status, 201);
    await fine.body?.cancel();
  });

  await t.step("the payload route returns the stored bytes with their digest", async () => {
    const res = await ctx.call("GET", `/projects/${ws.project.id}/evidence/${first.id}/payload`, {
      token: ws.token,
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("etag"), `"${first.checksum}"`);
    assert.match(res.headers.get("repr-digest") ?? "", /^sha-256=:[A-Za-z0-9+/]+=*:$/);
    const text = await res.text();
    assert.equal(`sha256:${await sha256Hex(text)}`, first.checksum);
    const b = await workspace(ctx, "bob");
    const foreign = await ctx.call(
      "GET",
      `/projects/${ws.project.id}/evidence/${first.id}/payload`,
      {
        token: b.token,
      },
    );
    assert.equal(foreign.status, 403);
    await foreign.body?.cancel();
  });
});

Deno.test("[http] ingest batch: all or nothing", async (t) => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "alice");
  const c = await collector(ctx, ws);
  const records = Array.from({ length: 100 }, (_, i) => evidenceItem(ctx, sbomPayload(i)));

  await t.step("a batch whose 57th record is invalid stores none of the 100", async () => {
    const bad = records.map((r, i) => i === 56 ? { ...r, evidenceType: "horoscope" } : r);
    const before = await snapshotKv(ctx.kv);
    const res = await send(ctx, c.secret, "/ingest/evidence/batch", {
      projectId: ws.project.id,
      records: bad,
    });
    assert.equal(res.status, 400);
    assert.match((await res.json()).error.message, /records\.56\.evidenceType/);
    assert.equal(await snapshotKv(ctx.kv), before);
  });

  await t.step("a batch whose 57th observation is in the future stores none", async () => {
    const bad = records.map((r, i) =>
      i === 56
        ? { ...r, observedAt: new Date(ctx.clock.now().getTime() + 3600_000).toISOString() }
        : r
    );
    const before = await snapshotKv(ctx.kv);
    const res = await send(ctx, c.secret, "/ingest/evidence/batch", {
      projectId: ws.project.id,
      records: bad,
    });
    assert.equal(res.status, 400);
    assert.match((await res.json()).error.message, /records\.56\.observedAt/);
    assert.equal(await snapshotKv(ctx.kv), before);
  });

  await t.step("0 and 101 records are refused", async () => {
    for (const n of [0, 101]) {
      const res = await send(ctx, c.secret, "/ingest/evidence/batch", {
        projectId: ws.project.id,
        records: Array.from({ length: n }, (_, i) => evidenceItem(ctx, sbomPayload(i))),
      });
      assert.equal(res.status, 400);
      await res.body?.cancel();
    }
  });

  await t.step("100 valid records are stored in request order", async () => {
    const res = await send(ctx, c.secret, "/ingest/evidence/batch", {
      projectId: ws.project.id,
      records,
    });
    assert.equal(res.status, 201);
    const stored = (await res.json()).records;
    assert.equal(stored.length, 100);
    assert.equal(stored[56].sourceRef, records[56].sourceRef);
    assert.equal(await evidenceCount(ctx, ws.token, ws.project.id), 100);
  });
});

Deno.test("[http] ingest batch: a blob store failing half-way leaves no record visible", async () => {
  await using ctx = await createTestApp({
    blobs: (kv) => createFaultyBlobStore(createKvBlobStore(kv), { failOnPut: 50 }),
  });
  const ws = await workspace(ctx, "alice");
  const c = await collector(ctx, ws);
  const records = Array.from({ length: 100 }, (_, i) => evidenceItem(ctx, sbomPayload(i)));
  const res = await send(ctx, c.secret, "/ingest/evidence/batch", {
    projectId: ws.project.id,
    records,
  });
  assert.equal(res.status, 500);
  const { error } = await res.json();
  assert.equal(error.code, "internal");
  assert.doesNotMatch(error.message, /Injected/, "internals are not shown");
  assert.equal(await evidenceCount(ctx, ws.token, ws.project.id), 0);
  const retry = await send(ctx, c.secret, "/ingest/evidence/batch", {
    projectId: ws.project.id,
    records,
  });
  assert.equal(retry.status, 201, "a retry after the fault stores everything");
  await retry.body?.cancel();
  assert.equal(await evidenceCount(ctx, ws.token, ws.project.id), 100);
});

Deno.test("[http] ingest limits: body size and strict schemas", async (t) => {
  await using ctx = await createTestApp({ env: { MAX_EVIDENCE_BYTES: "65536" } });
  const ws = await workspace(ctx, "alice");
  const c = await collector(ctx, ws);

  await t.step("a body over MAX_EVIDENCE_BYTES is 413 before parsing", async () => {
    const res = await send(ctx, c.secret, "/ingest/evidence", {
      projectId: ws.project.id,
      ...evidenceItem(ctx, { blob: "x".repeat(70_000) }),
    });
    assert.equal(res.status, 413);
    assert.equal((await res.json()).error.code, "payload_too_large");
  });

  const cases: Array<[string, unknown]> = [
    ["unknown field", { projectId: ws.project.id, ...evidenceItem(ctx, {}), extra: 1 }],
    ["payload a string", { projectId: ws.project.id, ...evidenceItem(ctx, {}), payload: "{}" }],
    ["payload a number", { projectId: ws.project.id, ...evidenceItem(ctx, {}), payload: 1 }],
    ["payload null", { projectId: ws.project.id, ...evidenceItem(ctx, {}), payload: null }],
    ["bad timestamp", {
      projectId: ws.project.id,
      ...evidenceItem(ctx, {}),
      observedAt: "yesterday",
    }],
    ["bad sourceType", { projectId: ws.project.id, ...evidenceItem(ctx, {}), sourceType: "ftp" }],
    ["empty sourceRef", { projectId: ws.project.id, ...evidenceItem(ctx, {}), sourceRef: "" }],
    ["missing projectId", evidenceItem(ctx, {})],
    ["deep payload", {
      projectId: ws.project.id,
      ...evidenceItem(ctx, JSON.parse(`${'{"a":'.repeat(80)}1${"}".repeat(80)}`)),
    }],
  ];
  for (const [name, body] of cases) {
    await t.step(`${name} is 400 and writes nothing`, async () => {
      const before = await snapshotKv(ctx.kv);
      const res = await send(ctx, c.secret, "/ingest/evidence", body);
      assert.equal(res.status, 400);
      await res.body?.cancel();
      assert.equal(await snapshotKv(ctx.kv), before);
    });
  }

  await t.step("a lone surrogate in a payload is refused (not I-JSON)", async () => {
    const res = await ctx.call("POST", "/ingest/evidence", {
      body:
        `{"projectId":"${ws.project.id}","evidenceType":"sbom","sourceType":"custom","sourceRef":"x","observedAt":"${ctx.clock.now().toISOString()}","payload":{"s":"\\ud800"}}`,
      headers: { authorization: `Bearer ${c.secret}`, "content-type": "application/json" },
    });
    assert.equal(res.status, 400);
    assert.match((await res.json()).error.message, /payload/);
  });
});

Deno.test("[http] evidence listing: newest observed first, merged types, filter, cursor pages", async () => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "alice");
  const c = await collector(ctx, ws);
  const types = ["sbom", "vulnerability_scan", "policy_result"];
  for (let i = 0; i < 11; i++) {
    ctx.clock.advance(1000);
    const res = await send(ctx, c.secret, "/ingest/evidence", {
      projectId: ws.project.id,
      ...evidenceItem(ctx, { n: i }, { evidenceType: types[i % 3] }),
    });
    assert.equal(res.status, 201);
    await res.body?.cancel();
  }
  // Backfills: received last, observed earlier than everything else (one before 1970, so a
  // cursor carries a negative time).
  const backfill = await (await send(ctx, c.secret, "/ingest/evidence", {
    projectId: ws.project.id,
    ...evidenceItem(ctx, { backfill: true }, { evidenceType: "sbom", minutesAgo: 24 * 60 }),
  })).json();
  const before1970: string[] = [];
  for (const observedAt of ["1969-07-20T20:17:40Z", "1969-07-20T20:17:39Z"]) {
    const res = await send(ctx, c.secret, "/ingest/evidence", {
      projectId: ws.project.id,
      ...evidenceItem(ctx, { observedAt }, { evidenceType: "policy_result" }),
      observedAt,
    });
    before1970.push((await res.json()).record.id);
  }

  const pages = async (filter: string, limit: number) => {
    const records: Array<{ id: string; evidenceType: string; observedAt: string }> = [];
    let cursor: string | null = null;
    let count = 0;
    do {
      const query: string = `limit=${limit}${filter}${
        cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""
      }`;
      const res = await ctx.call("GET", `/projects/${ws.project.id}/evidence?${query}`, {
        token: ws.token,
      });
      assert.equal(res.status, 200);
      const page = await res.json();
      assert.ok(page.records.length <= limit && page.records.length > 0);
      records.push(...page.records);
      cursor = page.nextCursor;
      assert.ok(++count <= 20, "pages must end");
    } while (cursor);
    return records;
  };

  for (const limit of [1, 3, 5, 12, 100]) {
    const all = await pages("", limit);
    assert.equal(all.length, 14, `limit ${limit}`);
    assert.equal(new Set(all.map((r) => r.id)).size, 14);
    const times = all.map((r) => Date.parse(r.observedAt));
    assert.deepEqual(times, [...times].sort((a, b) => b - a), `limit ${limit}`);
    assert.deepEqual(all.slice(-3).map((r) => r.id), [backfill.record.id, ...before1970]);
  }
  const sboms = await pages("&evidenceType=sbom", 2);
  assert.equal(sboms.length, 5);
  assert.ok(sboms.every((r) => r.evidenceType === "sbom"));
  assert.equal(sboms.at(-1)!.id, backfill.record.id);
  const none = await (await ctx.call(
    "GET",
    `/projects/${ws.project.id}/evidence?evidenceType=build_provenance`,
    { token: ws.token },
  )).json();
  assert.deepEqual(none, { records: [], nextCursor: null });

  for (const cursor of ["%%%", "123", "abc.def", `1.${backfill.record.id}x`]) {
    const bad = await ctx.call(
      "GET",
      `/projects/${ws.project.id}/evidence?cursor=${encodeURIComponent(cursor)}`,
      { token: ws.token },
    );
    assert.equal(bad.status, 400, cursor);
    assert.match((await bad.json()).error.message, /cursor/);
  }
  const badType = await ctx.call("GET", `/projects/${ws.project.id}/evidence?evidenceType=x`, {
    token: ws.token,
  });
  assert.equal(badType.status, 400);
  await badType.body?.cancel();
});

Deno.test("[http] signals: latest detection, public only for public projects", async () => {
  await using ctx = await createTestApp();
  const pub = await workspace(ctx, "alice", { projectSlug: "acme-public", visibility: "public" });
  const priv = await workspace(ctx, "bob", { projectSlug: "bob-private" });
  const c = await collector(ctx, pub);
  const detection = (at: string, sha: string) => ({
    detectedAt: at,
    commitSha: sha,
    ciCd: { detected: true, tools: ["github-actions"] },
    monitoring: { detected: true, tools: ["datadog"] },
    authProvider: { detected: true, providers: ["auth0"] },
    cloudProvider: { detected: true, providers: ["aws"] },
    securityContact: { detected: true, email: "security@acme.test" },
  });
  const empty = await ctx.call("GET", "/trust/acme-public/signals");
  assert.equal(empty.status, 200);
  assert.deepEqual(await empty.json(), { signals: null });
  assert.equal(empty.headers.get("cache-control"), "public, s-maxage=300");

  const newer = detection("2026-11-01T11:00:00Z", "bbb");
  const res = await send(ctx, c.secret, "/ingest/signals", {
    projectId: pub.project.id,
    detection: newer,
  });
  assert.equal(res.status, 201);
  assert.equal((await res.json()).signals.commitSha, "bbb");
  const older = await send(ctx, c.secret, "/ingest/signals", {
    projectId: pub.project.id,
    detection: detection("2026-11-01T10:00:00Z", "aaa"),
  });
  assert.equal(
    (await older.json()).signals.commitSha,
    "bbb",
    "an older detection does not replace a newer one",
  );

  const latest = await (await ctx.call("GET", "/trust/acme-public/signals")).json();
  assert.equal(latest.signals.commitSha, "bbb");
  assert.equal(latest.signals.detectedAt, "2026-11-01T11:00:00.000Z");

  assert.equal(priv.project.slug, "bob-private");
  for (const slug of ["bob-private", "no-such-project"]) {
    const res = await ctx.call("GET", `/trust/${slug}/signals`);
    assert.equal(res.status, 404);
    assert.equal((await res.json()).error.code, "not_found");
  }
});
