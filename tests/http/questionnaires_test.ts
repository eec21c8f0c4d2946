/**
 * A buyer's CAIQ v4.0.3 workbook through the whole review over HTTP: upload (columns found,
 * rows matched by id and by text, coverage and flags), accept, edit and reject rows, bulk-accept
 * id matches, save an answer back with the question id learned, the gap list, the export (read
 * back with SheetJS, a reader independent of the writer: answer and evidence cells filled,
 * pinned to the published version), the share through the access-link flow, and determinism:
 * the same workbook and data give the same suggestions and the same export bytes.
 */
import assert from "node:assert/strict";
import { SheetJS } from "../deps.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { fixture, knowledgeBase, ok } from "../support/questionnaires.ts";
import { CAIQ_ROWS } from "../fixtures/questionnaires/rows.ts";

const XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

async function upload(ctx: TestApp, orgId: string, token: string, bytes: Uint8Array, name = "Q") {
  return await ctx.call("POST", `/organizations/${orgId}/questionnaires?name=${name}`, {
    token,
    body: bytes as Uint8Array<ArrayBuffer>,
    headers: { "content-type": XLSX },
  });
}

/** Every row of a questionnaire, following nextCursor. */
async function allRows(ctx: TestApp, base: string, token: string, status = "all") {
  // deno-lint-ignore no-explicit-any -- the JSON rows, checked field by field
  const rows: any[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 50; page++) {
    const query: string = `?status=${status}&limit=7${cursor ? `&cursor=${cursor}` : ""}`;
    const body = await ok(await ctx.call("GET", `${base}/rows${query}`, { token }));
    rows.push(...body.rows);
    cursor = body.nextCursor;
    if (!cursor) return rows;
  }
  throw new Error("the rows never ended");
}

Deno.test("[questionnaires] a CAIQ workbook from upload to export and share", async (t) => {
  await using ctx = await createTestApp();
  const kb = await knowledgeBase(ctx);
  const original = await fixture("caiq_v4.0.3.xlsx");
  const created = await ok(await upload(ctx, kb.orgId, kb.member, original, "Globex%20CAIQ"), 201);
  const q = created.questionnaire;
  const base = `/organizations/${kb.orgId}/questionnaires/${q.id}`;
  const rowOf = <T extends { questionId: string | null }>(rows: T[], id: string): T =>
    rows.find((r) => r.questionId === id)!;

  await t.step("upload: columns by header, rows matched by id and by text, coverage", async () => {
    assert.equal(q.name, "Globex CAIQ");
    assert.equal(q.format, "xlsx");
    assert.deepEqual(q.columns.map((c: { sheet: string; id: string }) => [c.sheet, c.id]), [
      ["CAIQv4.0.3", "A"],
    ]);
    assert.equal(q.coverage.questions, CAIQ_ROWS.length);
    assert.equal(q.coverage.pending, CAIQ_ROWS.length);
    assert.ok(q.coverage.byId >= 2, JSON.stringify(q.coverage));
    assert.ok(q.coverage.byText >= 1, JSON.stringify(q.coverage));
    assert.equal(
      q.coverage.text,
      `${q.coverage.answered} of ${CAIQ_ROWS.length} answered from the knowledge base: ` +
        `${q.coverage.byId} by id, ${q.coverage.byText} by text; ` +
        `${CAIQ_ROWS.length - q.coverage.answered} need an answer`,
    );
    const listed = await ok(
      await ctx.call("GET", `/organizations/${kb.orgId}/questionnaires`, { token: kb.owner }),
    );
    assert.deepEqual(listed.questionnaires.map((x: { id: string }) => x.id), [q.id]);
    assert.equal(listed.questionnaires[0].sheets, undefined);
  });

  await t.step("flags: two answers claim A&A-01.1", () => {
    const duplicate = q.flags.find((f: { kind: string }) => f.kind === "duplicate_id");
    assert.equal(duplicate.questionnaireId, "A&A-01.1");
    assert.deepEqual(duplicate.answerIds, [kb.audit.id, kb.duplicate.id].sort());
    assert.deepEqual(duplicate.rowKeys, [rowOf(CAIQ_OBJECTS, "A&A-01.1").key]);
  });

  const rows = await allRows(ctx, base, kb.member);
  await t.step("rows: every question in file order, with reasons and citations", () => {
    assert.deepEqual(rows.map((r) => r.questionId), CAIQ_ROWS.map(([id]) => id));
    const audit = rowOf(rows, "A&A-01.1");
    assert.equal(audit.best.by, "id");
    assert.deepEqual(audit.best.reason, { questionnaireId: "A&A-01.1" });
    const cited = audit.suggestions.flatMap((s: { citations: { kind: string }[] }) => s.citations)
      .find((c: { kind: string }) => c.kind === "control");
    assert.equal(cited.version, 1);
    assert.match(cited.url, /\/trust\/[^/]+\/versions\/1\/trust\.json$/);
    const independent = rowOf(rows, "A&A-02.1");
    assert.equal(independent.best?.by, "text", JSON.stringify(independent.suggestions));
    assert.ok("terms" in independent.best.reason);
    assert.equal(rowOf(rows, "IAM-02.1").best.text, "Example Labs, in March.", "members see all");
    assert.deepEqual(rows[0].decision, {
      state: "pending",
      answer: null,
      suggestion: null,
      by: null,
      at: null,
    });
  });

  await t.step("accept, edit and reject rows; bulk-accept id matches", async () => {
    const patch = (key: string, json: unknown) =>
      ctx.call("PATCH", `${base}/rows/${key}`, { token: kb.member, json });
    const independent = rowOf(rows, "A&A-02.1");
    const accepted = await ok(await patch(independent.key, { state: "accepted" }));
    assert.equal(accepted.row.decision.state, "accepted");
    assert.equal(accepted.row.decision.by.email, "member@acme.test");
    const edited = await ok(
      await patch(rowOf(rows, "A&A-03.1").key, { state: "edited", answer: "Yes, *yearly*." }),
    );
    assert.equal(edited.row.decision.answer, "Yes, *yearly*.");
    await ok(await patch(rowOf(rows, "IAM-02.1").key, { state: "rejected" }));
    const none = rows.find((r) => r.suggestions.length === 0)!;
    const refused = await patch(none.key, { state: "accepted" });
    assert.equal(refused.status, 400);
    assert.equal((await patch("9:9", { state: "rejected" })).status, 404);
    const bulk = await ok(
      await ctx.call("POST", `${base}/accept-id-matches`, { token: kb.member }),
    );
    assert.equal(bulk.accepted, q.coverage.byId - 1, "the rejected id match stays rejected");
    const read = await ok(await ctx.call("GET", base, { token: kb.member }));
    assert.equal(read.questionnaire.coverage.accepted, q.coverage.byId);
    assert.equal(read.questionnaire.coverage.edited, 1);
    assert.equal(read.questionnaire.coverage.rejected, 1);
    const rejected = await ok(
      await ctx.call("GET", `${base}/rows?status=rejected`, { token: kb.member }),
    );
    assert.deepEqual(rejected.rows.map((r: { questionId: string }) => r.questionId), ["IAM-02.1"]);
  });

  await t.step("save-answer: owners only; the edited answer learns its CAIQ id", async () => {
    const key = rowOf(rows, "A&A-03.1").key;
    const json = { category: "Audit", visibility: "public" };
    const path = `${base}/rows/${key}/save-answer`;
    assert.equal((await ctx.call("POST", path, { token: kb.member, json })).status, 403);
    const { answer } = await ok(await ctx.call("POST", path, { token: kb.owner, json }));
    assert.equal(answer.answer, "Yes, *yearly*.");
    assert.deepEqual(answer.questionnaireRefs, [{ questionnaire: "caiq-v4", id: "A&A-03.1" }]);
    const pending = rows.find((r) => r.best === null && r.questionId !== "A&A-03.1")!;
    const refused = await ctx.call("POST", `${base}/rows/${pending.key}/save-answer`, {
      token: kb.owner,
      json,
    });
    assert.equal(refused.status, 409);
  });

  await t.step("gaps: the unanswered questions, as JSON and CSV", async () => {
    const { gaps } = await ok(await ctx.call("GET", `${base}/gaps`, { token: kb.member }));
    assert.deepEqual(
      gaps.map((g: { key: string }) => g.key),
      rows.filter((r) => r.best === null).map((r) => r.key),
    );
    const csv = await ctx.call("GET", `${base}/gaps?format=csv`, { token: kb.member });
    assert.equal(csv.headers.get("content-type"), "text/csv; charset=utf-8");
    const lines = (await csv.text()).trim().split("\r\n");
    assert.equal(lines[0], "key,sheet,row,id,question");
    assert.equal(lines.length, gaps.length + 1);
  });

  let exported: Uint8Array;
  await t.step("export: the answer and evidence cells filled, pinned to the version", async () => {
    const res = await ctx.call("GET", `${base}/export`, { token: kb.member });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), XLSX);
    assert.match(res.headers.get("content-disposition")!, /Globex-CAIQ-answered\.xlsx/);
    exported = new Uint8Array(await res.arrayBuffer());
    const sheet = SheetJS.read(exported.slice(), { type: "array" }).Sheets["CAIQv4.0.3"];
    const cell = (id: string, column: string) => {
      const row = rowOf(rows, id).row;
      return sheet[`${column}${row}`]?.v;
    };
    // Two answers claim A&A-01.1 (the flag above); the first by id was accepted.
    assert.equal(cell("A&A-01.1", "E"), rowOf(rows, "A&A-01.1").best.text.replace(/\*\*/g, ""));
    assert.match(cell("A&A-01.1", "K"), /\/answers#answer-/);
    assert.match(cell("A&A-01.1", "K"), /\/versions\/1\/trust\.json/);
    assert.equal(cell("A&A-03.1", "E"), "Yes, yearly.");
    assert.match(cell("A&A-03.1", "K"), /^Edited by the vendor/);
    assert.equal(cell("IAM-02.1", "E"), "No answer");
    const again = await ctx.call("GET", `${base}/export`, { token: kb.owner });
    assert.deepEqual(new Uint8Array(await again.arrayBuffer()), exported, "same bytes");
  });

  await t.step("manifest: a JWS of the publication key over the export's digest", async () => {
    const res = await ctx.call("GET", `${base}/manifest`, { token: kb.member });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/jose");
    const [header, payload] = (await res.text()).split(".").map((part, i) =>
      i < 2 ? JSON.parse(new TextDecoder().decode(decodeBase64Url(part))) : part
    );
    assert.equal(header.alg, "EdDSA");
    assert.equal(header.kid, ctx.services.keys.publications.kid);
    const digest = await crypto.subtle.digest("SHA-256", exported as Uint8Array<ArrayBuffer>);
    assert.equal(payload.file.sha256, hex(new Uint8Array(digest)));
    assert.equal(payload.rows.length, q.coverage.byId + 1);
    const audit = payload.rows.find((r: { key: string }) => r.key === rowOf(rows, "A&A-01.1").key);
    assert.equal(audit.versions[0].version, 1);
    assert.match(audit.versions[0].trustJsonDigest, /^sha256:[0-9a-f]{64}$/);
  });

  await t.step("share: the answered file and its manifest as restricted documents", async () => {
    const path = `${base}/share`;
    assert.equal((await ctx.call("POST", path, { token: kb.member })).status, 403);
    const shared = await ok(await ctx.call("POST", path, { token: kb.owner }), 201);
    assert.equal(shared.document.visibility, "restricted");
    assert.equal(shared.document.type, "xlsx");
    assert.equal(shared.manifest.type, "jws");
    assert.match(shared.warning, /No NDA is set/);
    const { documents } = await ok(
      await ctx.call("GET", `/organizations/${kb.orgId}/documents`, { token: kb.member }),
    );
    assert.deepEqual(
      documents.map((d: { id: string }) => d.id).sort(),
      [shared.document.id, shared.manifest.id].sort(),
    );
    const bytes = await ctx.services.blobs.get(`document/${shared.document.sha256}`);
    assert.deepEqual(bytes, exported);
    const read = await ok(await ctx.call("GET", base, { token: kb.member }));
    assert.equal(read.questionnaire.sharedDocumentId, shared.document.id);
  });

  await t.step(
    "PATCH: rename, and other columns keep the decisions of rows still there",
    async () => {
      const renamed = await ok(
        await ctx.call("PATCH", base, { token: kb.member, json: { name: "Renamed" } }),
      );
      assert.equal(renamed.questionnaire.name, "Renamed");
      const columns = [{ ...q.columns[0], answer: "F" }];
      const changed = await ok(
        await ctx.call("PATCH", base, { token: kb.member, json: { columns } }),
      );
      assert.equal(changed.questionnaire.columns[0].answer, "F");
      assert.equal(changed.questionnaire.coverage.edited, 1);
    },
  );

  await t.step("DELETE removes the record, its rows and decisions", async () => {
    assert.equal((await ctx.call("DELETE", base, { token: kb.member })).status, 204);
    assert.equal((await ctx.call("GET", base, { token: kb.member })).status, 404);
    for (const prefix of ["questionnaires", "questionnaire_rows", "questionnaire_decisions"]) {
      const left = await Array.fromAsync(ctx.kv.list({ prefix: [prefix, kb.orgId] }));
      assert.deepEqual(left, [], prefix);
    }
  });
});

Deno.test("[questionnaires] the same workbook and data give the same suggestions, byte for byte", async () => {
  await using ctx = await createTestApp();
  const kb = await knowledgeBase(ctx);
  const original = await fixture("sig_lite.xlsx");
  const bodies = [];
  for (let i = 0; i < 2; i++) {
    const { questionnaire } = await ok(await upload(ctx, kb.orgId, kb.owner, original), 201);
    const base = `/organizations/${kb.orgId}/questionnaires/${questionnaire.id}`;
    bodies.push({
      rows: JSON.stringify(await allRows(ctx, base, kb.owner)),
      coverage: JSON.stringify(questionnaire.coverage),
      flags: JSON.stringify(questionnaire.flags),
      export: new Uint8Array(
        await (await ctx.call("GET", `${base}/export`, { token: kb.owner })).arrayBuffer(),
      ),
    });
  }
  assert.equal(bodies[0].rows, bodies[1].rows);
  assert.equal(bodies[0].coverage, bodies[1].coverage);
  assert.equal(bodies[0].flags, bodies[1].flags);
  assert.deepEqual(bodies[0].export, bodies[1].export);
});

const CAIQ_OBJECTS = CAIQ_ROWS.map(([id], i) => ({ questionId: id, key: `1:${4 + i}` }));

function hex(bytes: Uint8Array): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function decodeBase64Url(text: string): Uint8Array {
  const standard = text.replace(/-/g, "+").replace(/_/g, "/");
  return Uint8Array.from(
    atob(standard.padEnd(Math.ceil(standard.length / 4) * 4, "=")),
    (c) => c.charCodeAt(0),
  );
}
