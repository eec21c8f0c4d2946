/**
 * Questionnaire exports carry the vendor's own answer text: a spreadsheet renders neither
 * Markdown nor HTML, so "R&D <team>" is written as typed (the public Markdown and JSON carry the
 * safe rewrite instead), while a cell a spreadsheet could run stays inert.
 */
import assert from "node:assert/strict";
import { createTestApp } from "../support/app.ts";
import { workspace } from "../support/fixtures.ts";

Deno.test("[http] answer exports carry the vendor's text as typed, formulas inert", async () => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "owner", { projectSlug: "acme", visibility: "public" });
  const created = await ctx.call("POST", `/organizations/${ws.organization.id}/answers`, {
    token: ws.token,
    json: {
      question: "Who reviews access?",
      answer: "Our R&D <team> reviews it; =1+1 is not a formula here.",
      category: "Access",
      visibility: "public",
      questionnaireRefs: [{ questionnaire: "caiq-v4", id: "IAM-02.1" }],
    },
  });
  assert.equal(created.status, 201, await created.clone().text());
  const csv = await (await ctx.call("GET", `/public/trust/${ws.organization.slug}/answers.csv`))
    .text();
  assert.match(csv, /Our R&D <team> reviews it; =1\+1 is not a formula here\./);
  assert.doesNotMatch(csv, /&amp;|&lt;/);
});
