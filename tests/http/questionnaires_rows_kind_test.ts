/**
 * Nothing silently dropped, over HTTP (issue 34): an id-less prompt is a question (in the rows
 * and the gaps), every other non-empty row is listed in setAside with its rule, and a reviewer
 * changes what a row is with PUT …/rows/{key}/kind (the file read again, decisions kept).
 */
import assert from "node:assert/strict";
import { Papa } from "../deps.ts";
import { createTestApp } from "../support/app.ts";
import { knowledgeBase, ok } from "../support/questionnaires.ts";

const CSV = [
  "#,Question,Answer",
  "1,Do independent auditors assess you every year?,",
  ",Network Security,",
  ",Describe your password policy.,",
  ",Describe how vulnerabilities are prioritised,",
  "Total,,2",
].join("\n") + "\n";

Deno.test("[questionnaires] rows set aside are listed with their rule, and a reviewer reclassifies one", async () => {
  await using ctx = await createTestApp();
  const kb = await knowledgeBase(ctx);
  const created = await ok(
    await ctx.call("POST", `/organizations/${kb.orgId}/questionnaires?name=Rules`, {
      token: kb.member,
      body: new TextEncoder().encode(CSV),
      headers: { "content-type": "text/csv" },
    }),
    201,
  );
  const q = created.questionnaire;
  const base = `/organizations/${kb.orgId}/questionnaires/${q.id}`;
  assert.equal(q.coverage.questions, 3);
  assert.deepEqual(q.setAside, {
    total: 2,
    headings: 1,
    ignored: 1,
    rows: [
      {
        key: "0:3",
        sheet: "CSV",
        row: 3,
        text: "Network Security",
        kind: "heading",
        rule: "heading",
        ruleText:
          "The sheet numbers its questions, this row has no number, asks nothing and is short: a category",
      },
      {
        key: "0:6",
        sheet: "CSV",
        row: 6,
        text: "Total",
        kind: "ignored",
        rule: "no_question_cell",
        ruleText: "Its question cell is empty",
      },
    ],
  });
  const { rows } = await ok(await ctx.call("GET", `${base}/rows`, { token: kb.member }));
  assert.deepEqual(rows.map((r: { key: string; rule: string }) => [r.key, r.rule]), [
    ["0:2", "id"],
    ["0:4", "prompt"],
    ["0:5", "prompt"],
  ]);
  // The uncovered prompts are gaps, not lost.
  const { gaps } = await ok(await ctx.call("GET", `${base}/gaps`, { token: kb.member }));
  const gapKeys = gaps.map((g: { key: string }) => g.key);
  assert.ok(gapKeys.includes("0:4") && gapKeys.includes("0:5"), JSON.stringify(gapKeys));

  // A decision on a row survives the reclassification of another.
  await ok(
    await ctx.call("PATCH", `${base}/rows/0:4`, {
      token: kb.member,
      json: { state: "edited", answer: "Passkeys for staff; 14 characters for the rest." },
    }),
  );
  const kind = (key: string, json: unknown, token = kb.member) =>
    ctx.call("PUT", `${base}/rows/${key}/kind`, { token, json });
  const heading = await ok(await kind("0:3", { kind: "question" }));
  assert.equal(heading.questionnaire.coverage.questions, 4);
  assert.equal(heading.questionnaire.coverage.edited, 1);
  assert.deepEqual(heading.questionnaire.setAside.rows.map((r: { key: string }) => r.key), [
    "0:6",
  ]);
  const demoted = await ok(await kind("0:5", { kind: "heading" }));
  assert.equal(demoted.questionnaire.coverage.questions, 3);
  assert.deepEqual(
    demoted.questionnaire.setAside.rows.map((r: { key: string; rule: string }) => [r.key, r.rule]),
    [["0:5", "chosen"], ["0:6", "no_question_cell"]],
  );
  const again = await ok(await ctx.call("GET", `${base}/rows`, { token: kb.member }));
  assert.deepEqual(
    again.rows.map((r: { key: string; rule: string; decision: { state: string } }) => [
      r.key,
      r.rule,
      r.decision.state,
    ]),
    [["0:2", "id", "pending"], ["0:3", "chosen", "pending"], ["0:4", "prompt", "edited"]],
  );
  // The export answers the row made a question and leaves the demoted one as the buyer sent it.
  const exported = await ctx.call("GET", `${base}/export`, { token: kb.member });
  assert.equal(exported.status, 200);
  const records = Papa.parse<string[]>(await exported.text()).data;
  assert.equal(records[3][1], "Describe your password policy.");
  assert.equal(records[3][2], "Passkeys for staff; 14 characters for the rest.");
  assert.equal(records[2][2], "No answer");
  assert.equal(records[4][2] ?? "", "");

  // Bad input: a 4xx in the envelope, nothing changed.
  assert.equal((await kind("0:99", { kind: "question" })).status, 404);
  assert.equal((await kind("0:6", { kind: "question" })).status, 400);
  assert.equal((await kind("0:3", { kind: "category" })).status, 400);
  assert.equal((await kind("x", { kind: "question" })).status, 400);
  const after = await ok(await ctx.call("GET", base, { token: kb.member }));
  assert.equal(after.questionnaire.coverage.questions, 3);
});
