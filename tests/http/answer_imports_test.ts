/**
 * Past questionnaires into the knowledge base over HTTP (issue 34): an answered CAIQ-like
 * workbook (built by hand as XML, CSP CAIQ Answer beside the description) and a buyer's own
 * Windows-1252 CSV are previewed (what is created, what merges into which answer), then
 * imported with the preview's digest; every phrasing and its id is kept as an alias; duplicates
 * merge by id, question and answer text; a changed knowledge base or file is refused.
 */
import assert from "node:assert/strict";
import { createTestApp } from "../support/app.ts";
import { knowledgeBase, ok } from "../support/questionnaires.ts";
import { sheetXml, workbook } from "../support/hand_xlsx.ts";

const ENCRYPTION = "Customer data is encrypted at rest with AES-256 keys held in a cloud KMS.";

const CAIQ = workbook([[
  "CAIQv4",
  sheetXml([
    [
      "Question ID",
      "Question",
      "CSP CAIQ Answer",
      "SSRM Control Ownership",
      "CSP Implementation Description (Optional/Recommended)",
    ],
    [
      "A&A-01.1",
      "Are audit and assurance policies, procedures, and standards established and approved?",
      "Yes",
      "CSP-owned",
      "Approved by the board every year.",
    ],
    ["CEK-03.1", "Are data at-rest encrypted?", "Yes", "CSP-owned", ENCRYPTION],
    ["IAM-02.1", "Are strong password policies documented?", null, null, null],
    ["BCR-08.1", "Is on-premise backup media stored offsite?", "NA", null, null],
  ]),
]]);

/** A buyer's own numbering, in Windows-1252 ("é" is one byte, 0xE9). */
const CSV = Uint8Array.from(
  "Ref,Question,Response\r\n" +
    `SEC-7,Is customer data encrypted when stored?,${ENCRYPTION}\r\n` +
    "SEC-8,Describe your backup schedule,Daily snapshots kept 35 days in a second region.\r\n" +
    "SEC-9,Is backup data encrypted when stored?,Yes. Backups use the same keys and AES-256.\r\n" +
    "SEC-10,Describe how a restore is tested (résumé),\r\n",
  (ch) => ch.charCodeAt(0),
);

Deno.test("[answers] an answered questionnaire imported: preview, confirm, aliases and merges", async () => {
  await using ctx = await createTestApp();
  const kb = await knowledgeBase(ctx);
  const base = `/organizations/${kb.orgId}/answer-imports`;
  const send = (path: string, bytes: Uint8Array, token = kb.owner) =>
    ctx.call("POST", path, {
      token,
      body: bytes as Uint8Array<ArrayBuffer>,
      headers: { "content-type": "application/octet-stream" },
    });

  const preview = await ok(await send(`${base}/preview`, CAIQ));
  assert.equal(preview.format, "xlsx");
  assert.deepEqual(preview.counts, { create: 2, merge: 1, skip: 0, unanswered: 1, phrasings: 3 });
  const [audit, encryption, backup] = preview.items;
  assert.equal(audit.action, "merge");
  // Two answers claim A&A-01.1: the oldest takes the phrasing (ties by id), always the same.
  const claimed =
    [kb.audit, kb.duplicate].sort((a, b) =>
      a.createdAt.localeCompare(b.createdAt) || (a.id < b.id ? -1 : 1)
    )[0];
  assert.equal(audit.mergeInto.answerId, claimed.id);
  assert.equal(audit.mergeInto.sameAnswer, false);
  assert.equal(encryption.action, "create");
  // The CAIQ answer's Yes leads the description, which did not say it.
  assert.equal(encryption.answer, `Yes. ${ENCRYPTION}`);
  assert.deepEqual(encryption.questionnaireRefs, [{ questionnaire: "caiq-v4", id: "CEK-03.1" }]);
  assert.equal(backup.answer, "NA");
  // Nothing is stored by a preview.
  const before = await ok(
    await ctx.call("GET", `/organizations/${kb.orgId}/answers`, {
      token: kb.owner,
    }),
  );

  // Refused: another digest, a member, no body, not a spreadsheet; nothing written.
  const other = "0".repeat(64);
  assert.equal((await send(`${base}?digest=${other}`, CAIQ)).status, 409);
  assert.equal((await send(`${base}?digest=nope`, CAIQ)).status, 400);
  assert.equal((await send(`${base}/preview`, CAIQ, kb.member)).status, 403);
  assert.equal((await send(`${base}/preview`, new Uint8Array())).status, 400);
  assert.equal((await send(`${base}/preview`, new TextEncoder().encode("%PDF-1.7\n"))).status, 415);
  const still = await ok(
    await ctx.call("GET", `/organizations/${kb.orgId}/answers`, {
      token: kb.owner,
    }),
  );
  assert.equal(still.total, before.total);

  // Confirmed, leaving out the bare NA.
  const done = await ok(
    await send(`${base}?digest=${preview.digest}&visibility=public&skip=${backup.index}`, CAIQ),
    201,
  );
  assert.equal(done.created.length, 1);
  assert.deepEqual(done.merged, [claimed.id]);
  assert.equal(done.skipped, 1);
  const answerOf = async (id: string) =>
    (await ok(
      await ctx.call("GET", `/organizations/${kb.orgId}/answers?limit=200`, { token: kb.owner }),
    )).answers.find((a: { id: string }) => a.id === id);
  const created = await answerOf(done.created[0]);
  assert.equal(created.question, "Are data at-rest encrypted?");
  assert.equal(created.visibility, "public");
  assert.equal(created.category, "CAIQv4");
  assert.deepEqual(created.aliases, [{ text: "Are data at-rest encrypted?", ids: ["CEK-03.1"] }]);
  const merged = await answerOf(claimed.id);
  assert.equal(merged.answer, claimed.answer, "the knowledge base's text is kept");
  assert.deepEqual(merged.aliases, [{
    text: "Are audit and assurance policies, procedures, and standards established and approved?",
    ids: ["A&A-01.1"],
  }]);
  // The same preview cannot be applied twice: the knowledge base changed.
  assert.equal((await send(`${base}?digest=${preview.digest}`, CAIQ)).status, 409);

  // A buyer's own CSV: merged into the imported answer by its text, the buyer's id kept.
  const csvPreview = await ok(await send(`${base}/preview`, CSV));
  assert.equal(csvPreview.format, "csv");
  const byRow = (row: number) =>
    csvPreview.items.find((i: { phrasings: { row: number }[] }) =>
      i.phrasings.some((p) => p.row === row)
    );
  assert.equal(byRow(2).action, "merge");
  assert.equal(byRow(2).mergeInto.answerId, created.id);
  assert.equal(byRow(3).action, "create");
  assert.equal(csvPreview.counts.unanswered, 1);
  const csvDone = await ok(await send(`${base}?digest=${csvPreview.digest}`, CSV), 201);
  assert.equal(csvDone.created.length, 2);
  const again = await answerOf(created.id);
  assert.deepEqual(again.aliases, [
    { text: "Are data at-rest encrypted?", ids: ["CEK-03.1"] },
    { text: "Is customer data encrypted when stored?", ids: ["SEC-7"] },
  ]);
  const restricted = await answerOf(csvDone.created[0]);
  assert.equal(restricted.visibility, "restricted", "restricted unless said otherwise");

  // The phrasings feed matching: a buyer asking in the CSV's words gets the imported answer.
  const asked = await ok(
    await ctx.call("POST", `/organizations/${kb.orgId}/questionnaires?name=Next`, {
      token: kb.member,
      body: new TextEncoder().encode(
        "Question,Answer\nIs customer data encrypted when stored?,\n",
      ) as Uint8Array<ArrayBuffer>,
      headers: { "content-type": "text/csv" },
    }),
    201,
  );
  const { rows } = await ok(
    await ctx.call(
      "GET",
      `/organizations/${kb.orgId}/questionnaires/${asked.questionnaire.id}/rows`,
      { token: kb.member },
    ),
  );
  assert.deepEqual(rows[0].best?.source, { kind: "answer", answerId: created.id });
  // "customer" and "stored" are only in the imported phrasing, not in the answer's question.
  assert.ok(rows[0].best.reason.terms.includes("stored"), JSON.stringify(rows[0].best.reason));

  // Importing the same file again creates nothing: every item merges.
  const third = await ok(await send(`${base}/preview`, CSV));
  assert.deepEqual(
    third.items.map((i: { action: string }) => i.action),
    ["merge", "merge", "merge"],
  );
});
