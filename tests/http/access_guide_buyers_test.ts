/**
 * "How to get access" names buyer organizations in plain words (docs/ads.md, FRR-ADS-AC-01):
 * approval goes to the buyer's organization, its admins add colleagues and service tokens, which
 * organizations have access is not disclosed but one that has is let in at once, and whether
 * some document opens at once to every buyer organization follows the rules. The steps are the
 * same in the JSON, the Markdown and the HTML, and name no buyer organization.
 */
import assert from "node:assert/strict";
import { createTestApp, type TestApp } from "../support/app.ts";
import { documentsWorkspace, makePdf, upload } from "../support/documents.ts";
import type { Mailer } from "../../src/mail/mod.ts";
import { tokenHash } from "../../src/serve/buyers.ts";
import { saveBuyerSignIn } from "../../src/store/buyers.ts";

const quietMailer: Mailer = {
  configured: true,
  describe: "smtp://mail.test:25",
  send: () => Promise.resolve({ messageId: "<1@mail.test>" }),
};

const entities: Record<string, string> = {
  "&amp;": "&",
  "&lt;": "<",
  "&gt;": ">",
  "&quot;": '"',
  "&#39;": "'",
};
const squash = (text: string) => text.replace(/\s+/g, " ").trim();
const fromHtml = (text: string) =>
  squash(text.replace(/<[^>]+>/g, "").replace(/&(amp|lt|gt|quot|#39);/g, (e) => entities[e]));
const fromMarkdown = (text: string) =>
  text.replace(/\[(.*?)\]\(<[^>]*>\)/g, "$1").replace(/\\(.)/g, "$1")
    .replace(/&(amp|lt|gt);/g, (e) => entities[e]).trim();

async function restrictedWorld(ctx: TestApp) {
  const ws = await documentsWorkspace(ctx);
  const up = await upload(ctx, ws.orgId, {
    token: ws.owner,
    bytes: await makePdf("SOC 2"),
    query: `title=SOC%202%20report&projectId=${ws.projectId}`,
  });
  assert.equal(up.status, 201);
  const documentId = (await up.json()).document.id as string;
  const nda = await ctx.call("PUT", `/organizations/${ws.orgId}/nda`, {
    token: ws.owner,
    json: { text: "Keep it to yourselves." },
  });
  assert.equal(nda.status, 200);
  await nda.body?.cancel();
  return { ...ws, documentId };
}

/** The guide in its three forms; asserts they hold the same steps. */
async function guideOf(ctx: TestApp, slug: string) {
  const access = `/public/trust/${slug}/access`;
  const json = await (await ctx.call("GET", access)).json();
  const md = await (await ctx.call("GET", `${access}.md`)).text();
  const html = await (await ctx.call("GET", access, { headers: { accept: "text/html" } })).text();
  const htmlSteps = [...html.matchAll(/<li data-ads="step">([\s\S]*?)<\/li>/g)]
    .map((m) => fromHtml(m[1]));
  const mdSteps = md.split("\n").filter((l) => /^\d+\. /.test(l))
    .map((l) => fromMarkdown(l.replace(/^\d+\. /, "")));
  assert.deepEqual(htmlSteps, json.steps);
  assert.deepEqual(mdSteps, json.steps);
  return { json, md, html, text: (json.steps as string[]).join(" ") };
}

Deno.test("[http] how to get access: buyer organizations in plain words, the same in HTML, Markdown and JSON", async () => {
  await using ctx = await createTestApp({
    mailer: quietMailer,
    env: { SMTP_URL: "smtp://mail.test:25" },
  });
  const { owner, orgId, orgSlug, projectId } = await restrictedWorld(ctx);

  const first = await guideOf(ctx, orgSlug);
  assert.equal(first.json.buyerPageUrl, `${first.json.trustCenterUrl}/buyer`);
  assert.equal(first.json.buyerOrganizationsLetIn, false);
  assert.match(first.text, /approval is then given to your organization/);
  assert.match(first.text, /your colleagues read what it was granted without asking again/);
  assert.match(first.text, /Admins add and remove colleagues, and create read-only service tokens/);
  assert.match(
    first.text,
    /Acme does not disclose which organizations already have access: that stays private\. If yours has, you are let in at once/,
  );
  assert.doesNotMatch(first.text, /open at once to every organization/);
  assert.ok(first.html.includes(`href="${first.json.buyerPageUrl}"`));
  assert.ok(first.md.includes(`(<${first.json.buyerPageUrl}>)`));

  // A buyer organization exists and a project's rule opens its documents to every one of them.
  const token = "b".repeat(43);
  await saveBuyerSignIn(ctx.kv, orgId, tokenHash(token), {
    email: "ada@customer.test",
    createdAt: ctx.clock.now().toISOString(),
  }, 600_000);
  const session = await ctx.call("POST", `/public/trust/${orgSlug}/buyer/sessions`, {
    json: { token },
  });
  assert.equal(session.status, 201);
  await session.body?.cancel();
  const rule = await ctx.call("PUT", `/organizations/${orgId}/project-access-rules/${projectId}`, {
    token: owner,
    json: { mode: "verified", buyerOrganizations: true },
  });
  assert.equal(rule.status, 200);
  await rule.body?.cancel();
  const open = await guideOf(ctx, orgSlug);
  assert.equal(open.json.buyerOrganizationsLetIn, true);
  assert.match(open.text, /Some documents also open at once to every organization/);
  // Which organizations have access is not disclosed, in any form.
  for (const text of [open.md, open.html, JSON.stringify(open.json)]) {
    assert.ok(!text.includes("customer.test"));
  }
  const ads = await (await ctx.call("GET", `/public/trust/${orgSlug}/ads.json`)).json();
  assert.deepEqual(ads.access, open.json);
});

Deno.test("[http] how to get access: without email there is no buyer page to point to", async () => {
  await using ctx = await createTestApp();
  const { orgSlug } = await restrictedWorld(ctx);
  const guide = await guideOf(ctx, orgSlug);
  assert.equal(guide.json.buyerPageUrl, null);
  assert.doesNotMatch(guide.text, /buyer page/);
  assert.ok(!guide.html.includes("Sign in for your organization"));
});
