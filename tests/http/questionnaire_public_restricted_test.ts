/**
 * A restricted answer never counts as answered for a buyer (POST /public/trust/{orgSlug}/
 * questionnaire-answers, the body of MCP answer_questionnaire): a question only a restricted
 * answer reaches (by its id or by its text) has no best, status "restricted" and the trust
 * center's access request form (null while no NDA is set), and is left out of `answered`; the
 * restricted suggestion is marked and carries no text. When a public answer reaches the
 * question too, it is the best.
 */
import assert from "node:assert/strict";
import { createTestApp, type TestApp } from "../support/app.ts";
import { knowledgeBase, ok } from "../support/questionnaires.ts";

interface Body {
  results: {
    best: { text: string; source: { kind: string; answerId?: string } } | null;
    status: string;
    requestAccessUrl?: string | null;
    suggestions: {
      source: { kind: string; answerId?: string };
      text: string;
      restricted?: boolean;
      requestAccessUrl?: string | null;
      citations: { kind: string }[];
    }[];
  }[];
  answered: number;
  restricted: number;
}

const QUESTIONS = [
  // The restricted answer claims IAM-02.1.
  { text: "Do you enforce a password policy?", id: "IAM-02.1" },
  // The restricted answer's own question.
  { text: "Who performed your last penetration test?" },
  // A public answer claims A&A-01.1.
  { text: "Are audit and assurance policies documented?", id: "A&A-01.1" },
];

async function ask(ctx: TestApp, slug: string): Promise<Body> {
  return await ok(
    await ctx.call("POST", `/public/trust/${slug}/questionnaire-answers`, {
      json: { questions: QUESTIONS },
    }),
  );
}

Deno.test("[http] public matching: a restricted answer is reported as restricted, not answered", async (t) => {
  await using ctx = await createTestApp();
  const kb = await knowledgeBase(ctx);
  const slug = kb.orgSlug;

  await t.step("no NDA: restricted, no request link, not counted", async () => {
    const body = await ask(ctx, slug);
    const [byId, byText, publicRow] = body.results;
    for (const row of [byId, byText]) {
      assert.equal(row.best, null);
      assert.equal(row.status, "restricted");
      assert.equal(row.requestAccessUrl, null);
      const top = row.suggestions[0];
      assert.equal(top.source.answerId, kb.restricted.id);
      assert.equal(top.restricted, true);
      assert.equal(top.text, "");
      assert.deepEqual(top.citations.filter((c) => c.kind !== "answer"), []);
    }
    assert.equal(publicRow.status, "answered");
    assert.equal(publicRow.best?.source.answerId !== undefined, true);
    assert.equal(publicRow.requestAccessUrl, undefined);
    assert.equal(body.answered, 1);
    assert.equal(body.restricted, 2);
    assert.ok(!JSON.stringify(body).includes("Example Labs"), "no restricted text");
  });

  await t.step("with an NDA: the access request form, which answers", async () => {
    await ok(
      await ctx.call("PUT", `/organizations/${kb.orgId}/nda`, {
        token: kb.owner,
        json: { text: "Keep it between us." },
      }),
    );
    const body = await ask(ctx, slug);
    const [byId, byText] = body.results;
    const url = new URL(byId.requestAccessUrl!);
    assert.equal(url.searchParams.get("answers"), "1");
    assert.match(url.pathname, new RegExp(`/${slug}/documents/request$`));
    assert.equal(byText.requestAccessUrl, byId.requestAccessUrl);
    assert.equal(byId.suggestions[0].requestAccessUrl, byId.requestAccessUrl);
    assert.equal(body.answered, 1);
    const form = await ctx.call("GET", `${url.pathname}${url.search}`, {
      headers: { accept: "text/html" },
    });
    assert.equal(form.status, 200);
    assert.match(await form.text(), /<form/);
  });

  await t.step("a public answer reaching the same question is the best", async () => {
    const { answer } = await ok(
      await ctx.call("POST", `/organizations/${kb.orgId}/answers`, {
        token: kb.owner,
        json: {
          question: "Is a password policy enforced?",
          answer: "Yes: 14 characters at least.",
          category: "Access",
          visibility: "public",
          questionnaireRefs: [{ questionnaire: "caiq-v4", id: "IAM-02.1" }],
        },
      }),
      201,
    );
    const body = await ask(ctx, slug);
    const [byId, byText] = body.results;
    assert.equal(byId.status, "answered");
    assert.equal(byId.best?.source.answerId, answer.id);
    assert.equal(byId.best?.text, "Yes: 14 characters at least.");
    assert.equal(byId.requestAccessUrl, undefined);
    const restricted = byId.suggestions.find((s) => s.source.answerId === kb.restricted.id);
    assert.equal(restricted?.restricted, true, "the restricted one is still named, marked");
    assert.equal(byText.status, "restricted");
    assert.equal(body.answered, 2);
    assert.equal(body.restricted, 1);
  });
});
