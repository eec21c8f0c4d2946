import assert from "node:assert/strict";
import { createTestApp, snapshotKv, type TestApp } from "../support/app.ts";
import { documentsWorkspace, makePdf, upload } from "../support/documents.ts";
import { type Mailer, MailError, type MailMessage } from "../../src/mail/mod.ts";

async function setUp(ctx: TestApp) {
  const ws = await documentsWorkspace(ctx);
  const bytes = await makePdf("Restricted report");
  const doc =
    (await (await upload(ctx, ws.orgId, { token: ws.owner, bytes, query: "title=SOC%202" })).json())
      .document;
  const open = (await (await upload(ctx, ws.orgId, {
    token: ws.owner,
    bytes: await makePdf("Open"),
    query: "title=Open&visibility=public",
  })).json()).document;
  return { ...ws, docId: doc.id as string, openId: open.id as string };
}

const ask = (docId: string, extra: Record<string, unknown> = {}) => ({
  name: "Vera Visitor",
  email: "vera@customer.test",
  company: "Customer Inc",
  documentIds: [docId],
  ndaVersion: 1,
  acceptNda: true,
  ...extra,
});

Deno.test("[http] access requests: the NDA gate, validation, honeypot and throttling", async (t) => {
  await using ctx = await createTestApp();
  const { owner, orgId, orgSlug, docId, openId } = await setUp(ctx);
  const submit = `/public/trust/${orgSlug}/access-requests`;
  const form = `/public/trust/${orgSlug}/documents/request`;

  await t.step("no NDA: no requests (409 JSON, 404 form)", async () => {
    const res = await ctx.call("POST", submit, { json: ask(docId) });
    assert.equal(res.status, 409);
    await res.body?.cancel();
    const page = await ctx.call("GET", form);
    assert.equal(page.status, 404);
    assert.match(await page.text(), /takes no document requests/);
  });

  await ctx.call("PUT", `/organizations/${orgId}/nda`, {
    token: owner,
    json: { text: "Do not share." },
  });

  await t.step("bad requests are 400 and store nothing", async () => {
    const before = await snapshotKv(ctx.kv);
    const bad = [
      ask(docId, { acceptNda: false }),
      ask(docId, { ndaVersion: 2 }),
      ask(docId, { email: "not-an-email" }),
      ask(openId),
      ask(crypto.randomUUID()),
      ask(docId, { documentIds: [] }),
      ask(docId, { name: "a\nb" }),
    ];
    for (const body of bad) {
      const res = await ctx.call("POST", submit, { json: body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal((await res.json()).error.code, "validation_failed", JSON.stringify(body));
    }
    const unknown = await ctx.call("POST", `/public/trust/nope/access-requests`, {
      json: ask(docId),
    });
    assert.equal(unknown.status, 404);
    await unknown.body?.cancel();
    assert.equal(await snapshotKv(ctx.kv), before);
  });

  await t.step("the form shows the NDA and records a request with its hash and time", async () => {
    const page = await ctx.call("GET", `${form}?document=${docId}`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get("content-security-policy")!, /form-action http:\/\/trust\.test/);
    const html = await page.text();
    assert.match(html, /Do not share\./);
    assert.match(html, new RegExp(`value="${docId}" checked`));
    const body = new URLSearchParams({
      name: "Vera Visitor",
      email: "Vera@Customer.test",
      company: "Customer Inc",
      documentIds: docId,
      ndaVersion: "1",
      acceptNda: "true",
      website: "",
    });
    const res = await ctx.call("POST", form, {
      body: body.toString(),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    assert.equal(res.status, 200);
    assert.match(await res.text(), /Request received/);
    const list =
      await (await ctx.call("GET", `/organizations/${orgId}/access-requests`, { token: owner }))
        .json();
    assert.equal(list.requests.length, 1);
    const [request] = list.requests;
    assert.equal(request.email, "vera@customer.test");
    assert.equal(request.status, "pending");
    assert.equal(request.nda.version, 1);
    assert.equal(request.nda.acceptedAt, ctx.clock.now().toISOString());
    assert.match(request.nda.sha256, /^[0-9a-f]{64}$/);
  });

  await t.step("the form without the NDA box ticked is shown again with the error", async () => {
    const body = new URLSearchParams({
      name: "V",
      email: "v@x.test",
      company: "X",
      documentIds: docId,
      ndaVersion: "1",
    });
    const res = await ctx.call("POST", form, {
      body: body.toString(),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    assert.equal(res.status, 400);
    assert.match(await res.text(), /role="alert"/);
  });

  await t.step("a filled honeypot gets the same answer and stores nothing", async () => {
    const before = await snapshotKv(ctx.kv);
    const body = new URLSearchParams({
      name: "Bot",
      email: "bot@spam.test",
      company: "Spam",
      documentIds: docId,
      ndaVersion: "1",
      acceptNda: "true",
      website: "https://spam.test",
    });
    const res = await ctx.call("POST", form, {
      body: body.toString(),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    assert.equal(res.status, 200);
    assert.match(await res.text(), /Request received/);
    assert.equal(await snapshotKv(ctx.kv), before);
  });

  await t.step("more than 5 requests an hour from one email are 429", async () => {
    const email = "many@customer.test";
    for (let i = 0; i < 5; i++) {
      const res = await ctx.call("POST", submit, { json: ask(docId, { email }) });
      assert.equal(res.status, 202);
      assert.equal((await res.json()).status, "pending");
    }
    const res = await ctx.call("POST", submit, { json: ask(docId, { email }) });
    assert.equal(res.status, 429);
    assert.ok(Number(res.headers.get("retry-after")) > 0);
    await res.body?.cancel();
    ctx.clock.advance(61 * 60 * 1000);
    const later = await ctx.call("POST", submit, { json: ask(docId, { email }) });
    assert.equal(later.status, 202);
    await later.body?.cancel();
  });
});

Deno.test("[http] access requests: owners decide, members read, links without mail", async (t) => {
  await using ctx = await createTestApp();
  const { owner, member, stranger, orgId, orgSlug, docId } = await setUp(ctx);
  await ctx.call("PUT", `/organizations/${orgId}/nda`, { token: owner, json: { text: "NDA" } });
  await ctx.call("PUT", `/organizations/${orgId}/document-settings`, {
    token: owner,
    json: { autoApproveDomains: ["customer.test"] },
  });
  const submit = `/public/trust/${orgSlug}/access-requests`;
  const first = await (await ctx.call("POST", submit, { json: ask(docId) })).json();
  const second =
    await (await ctx.call("POST", submit, { json: ask(docId, { email: "b@other.test" }) })).json();
  const base = `/organizations/${orgId}`;

  await t.step("without mail an auto-approved domain still waits for an owner", () => {
    assert.equal(first.status, "pending");
  });

  await t.step("refused decisions change nothing", async () => {
    const before = await snapshotKv(ctx.kv);
    const approve = `${base}/access-requests/${first.id}/approve`;
    const attempts: [string, string | undefined, unknown, number][] = [
      [approve, undefined, {}, 401],
      [approve, member, {}, 403],
      [approve, stranger, {}, 403],
      [approve, owner, { expiresInDays: 0 }, 400],
      [approve, owner, { expiresInDays: 91 }, 400],
      [`${base}/access-requests/${crypto.randomUUID()}/approve`, owner, {}, 404],
      [`${base}/access-requests/${first.id}/deny`, member, undefined, 403],
      [`${base}/access-links/${crypto.randomUUID()}/revoke`, owner, undefined, 404],
    ];
    for (const [url, token, json, status] of attempts) {
      const res = await ctx.call("POST", url, { token, json });
      assert.equal(res.status, status, `${url} ${status}`);
      await res.body?.cancel();
    }
    for (const token of [undefined, stranger]) {
      for (const list of ["access-requests", "access-links", "document-downloads"]) {
        const res = await ctx.call("GET", `${base}/${list}`, { token });
        assert.equal(res.status, token ? 403 : 401);
        await res.body?.cancel();
      }
    }
    assert.equal(await snapshotKv(ctx.kv), before);
  });

  await t.step("approval without mail gives the owner the link to copy", async () => {
    const res = await ctx.call("POST", `${base}/access-requests/${first.id}/approve`, {
      token: owner,
      json: { expiresInDays: 2 },
    });
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.equal(body.request.status, "approved");
    assert.equal(body.email.sent, false);
    assert.match(body.email.detail, /not configured/);
    assert.match(body.link.url, /^http:\/\/trust\.test\/documents\/access\/[A-Za-z0-9_-]{43}$/);
    assert.equal(Date.parse(body.link.expiresAt) - ctx.clock.now().getTime(), 2 * 86_400_000);
    const again = await ctx.call("POST", `${base}/access-requests/${first.id}/approve`, {
      token: owner,
      json: {},
    });
    assert.equal(again.status, 409);
    await again.body?.cancel();
    const token = body.link.url.split("/").pop();
    const stored = JSON.stringify(await Array.fromAsync(ctx.kv.list({ prefix: [] })));
    assert.ok(!stored.includes(token), "the token itself is never stored");
    const links = await (await ctx.call("GET", `${base}/access-links`, { token: member })).json();
    assert.equal(links.links.length, 1);
    assert.equal(links.links[0].url, undefined);
  });

  await t.step("an owner denies; a denied request cannot be approved", async () => {
    const res = await ctx.call("POST", `${base}/access-requests/${second.id}/deny`, {
      token: owner,
    });
    assert.equal(res.status, 200);
    assert.equal((await res.json()).request.status, "denied");
    const approve = await ctx.call("POST", `${base}/access-requests/${second.id}/approve`, {
      token: owner,
      json: {},
    });
    assert.equal(approve.status, 409);
    await approve.body?.cancel();
  });

  await t.step("unknown and malformed tokens are 404 pages", async () => {
    for (const token of ["x".repeat(43), "short"]) {
      const res = await ctx.call("GET", `/documents/access/${token}`);
      assert.equal(res.status, 404);
      assert.match(res.headers.get("content-type")!, /text\/html/);
      await res.body?.cancel();
    }
  });
});

/** A configured mailer whose next `failures` sends throw MailError; it keeps what it sent. */
function flakyMailer(failures: number) {
  const sent: MailMessage[] = [];
  let left = failures;
  const mailer: Mailer = {
    configured: true,
    describe: "smtp://mail.test:25",
    send(message) {
      if (left > 0) {
        left--;
        return Promise.reject(new MailError("Connection refused"));
      }
      sent.push(message);
      return Promise.resolve({ messageId: `<${sent.length}@mail.test>` });
    },
  };
  return { mailer, sent };
}

const LINK = /http:\/\/trust\.test\/documents\/access\/[A-Za-z0-9_-]{43}/;

Deno.test("[http] access requests: an auto-approval whose email fails stays pending for an owner", async (t) => {
  const mail = flakyMailer(2);
  await using ctx = await createTestApp({ mailer: mail.mailer });
  const { owner, member, orgId, orgSlug, docId } = await setUp(ctx);
  const base = `/organizations/${orgId}`;
  await ctx.call("PUT", `${base}/nda`, { token: owner, json: { text: "NDA" } });
  await ctx.call("PUT", `${base}/document-settings`, {
    token: owner,
    json: { autoApproveDomains: ["customer.test"] },
  });
  const submit = `/public/trust/${orgSlug}/access-requests`;
  let requestId = "";

  await t.step("the visitor gets the same answer; no link exists", async () => {
    const res = await ctx.call("POST", submit, { json: ask(docId) });
    assert.equal(res.status, 202);
    const receipt = await res.json();
    assert.match(receipt.message, /Your request was received/);
    assert.equal(receipt.status, "pending");
    requestId = receipt.id;
    const { requests } = await (await ctx.call("GET", `${base}/access-requests`, { token: member }))
      .json();
    assert.equal(requests.length, 1);
    const [request] = requests;
    assert.equal(request.status, "pending");
    assert.equal(request.autoApproved, false);
    assert.equal(request.linkId, null);
    assert.equal(request.decidedAt, null);
    assert.deepEqual(request.autoApproval, {
      failedAt: ctx.clock.now().toISOString(),
      detail: "The email could not be sent (MailError)",
    });
    const { links } = await (await ctx.call("GET", `${base}/access-links`, { token: owner }))
      .json();
    assert.deepEqual(links, [], "no link was committed");
    const stored = await Array.fromAsync(ctx.kv.list({ prefix: ["access_links_by_token"] }));
    assert.equal(stored.length, 0);
    assert.equal(mail.sent.length, 0);
  });

  await t.step("an owner approves by hand; the link is shown once though mail fails", async () => {
    const res = await ctx.call("POST", `${base}/access-requests/${requestId}/approve`, {
      token: owner,
      json: {},
    });
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.equal(body.request.status, "approved");
    assert.equal(body.request.autoApproved, false);
    assert.equal(body.request.decidedBy.email, "owner@acme.test");
    assert.equal(body.email.sent, false);
    assert.match(body.email.detail, /could not be sent \(MailError\)/);
    assert.match(body.link.url, LINK);
    const page = await ctx.call("GET", new URL(body.link.url).pathname);
    assert.equal(page.status, 200);
    await page.body?.cancel();
  });

  await t.step("once mail works again, an auto-approval emails a link that works", async () => {
    const res = await ctx.call("POST", submit, { json: ask(docId, { email: "bo@customer.test" }) });
    assert.equal(res.status, 202);
    const receipt = await res.json();
    assert.equal(receipt.status, "approved");
    assert.equal(mail.sent.length, 1);
    assert.equal(mail.sent[0].to, "bo@customer.test");
    const url = mail.sent[0].text.match(LINK)![0];
    const page = await ctx.call("GET", new URL(url).pathname);
    assert.equal(page.status, 200);
    await page.body?.cancel();
    const request = (await (await ctx.call("GET", `${base}/access-requests`, { token: owner }))
      .json()).requests.find((r: { id: string }) => r.id === receipt.id);
    assert.equal(request.autoApproved, true);
    assert.equal(request.autoApproval, null);
  });
});
