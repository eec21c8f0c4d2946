import assert from "node:assert/strict";
import { trustEvent } from "../../src/domain/events.ts";
import { createTestApp, snapshotKv, type TestApp } from "../support/app.ts";
import { publishVersion, type Workspace, workspace } from "../support/fixtures.ts";
import { startSmtpServer, type TestSmtp } from "../support/smtp.ts";

const FORM = { "content-type": "application/x-www-form-urlencoded" };

function linkIn(text: string | undefined, path: string): string {
  const match = (text ?? "").match(new RegExp(`http://trust\\.test${path}/[A-Za-z0-9._-]+`));
  assert.ok(match, `no ${path} link in ${text}`);
  return match[0].slice("http://trust.test".length);
}

/** Waits a little, so an email that was wrongly sent would have arrived. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

async function setUp(ctx: TestApp) {
  const ws = await workspace(ctx, "owner", { projectSlug: "acme", visibility: "public" });
  await publishVersion(ctx, ws);
  return ws;
}

function updatePosted(ws: Workspace, title: string) {
  return trustEvent({
    type: "update.posted",
    timestamp: new Date("2026-11-01T12:00:00Z"),
    organizationId: ws.organization.id,
    projectId: ws.project.id,
    data: {
      project: { id: ws.project.id, slug: "acme", name: "owner project" },
      update: {
        id: crypto.randomUUID(),
        kind: "incident",
        title,
        url: "http://trust.test/trust/acme/updates/1",
        postedAt: "2026-11-01T12:00:00Z",
      },
    },
  });
}

async function subscribeAndConfirm(ctx: TestApp, smtp: TestSmtp, email: string) {
  const res = await ctx.call("POST", "/trust/acme/subscriptions", { json: { email } });
  assert.equal(res.status, 202);
  const mail = await smtp.next((m) => m.to !== undefined && JSON.stringify(m.to).includes(email));
  const confirm = linkIn(mail.text, "/subscriptions/confirm");
  assert.equal((await ctx.call("POST", confirm)).status, 200);
}

Deno.test("[http] subscriptions: double opt-in, no enumeration, one-click unsubscribe", async (t) => {
  await using smtp = await startSmtpServer();
  await using ctx = await createTestApp({ env: { SMTP_URL: smtp.url }, worker: true });
  const ws = await setUp(ctx);
  const list = () =>
    ctx.call("GET", `/organizations/${ws.organization.id}/subscribers`, { token: ws.token });
  let confirmPath = "";
  let unsubscribePath = "";
  let unsubscribedHtml = "";

  await t.step(
    "subscribing stores a pending subscription and emails a confirmation link",
    async () => {
      const res = await ctx.call("POST", "/trust/acme/subscriptions", {
        json: { email: "  Buyer@Customer.Test " },
      });
      assert.equal(res.status, 202);
      assert.match(res.headers.get("content-type") ?? "", /json/);
      const body = await res.json();
      assert.equal(body.status, "confirmation_sent");
      const mail = await smtp.next();
      assert.deepEqual(smtp.recipients.at(-1), ["buyer@customer.test"]);
      assert.match(mail.subject ?? "", /Confirm your subscription to owner project/);
      confirmPath = linkIn(mail.text, "/subscriptions/confirm");
      assert.ok(mail.html && String(mail.html).includes(`href="http://trust.test${confirmPath}"`));
      const { subscribers } = await (await list()).json();
      assert.equal(subscribers.length, 1);
      assert.equal(subscribers[0].status, "pending");
      assert.equal(subscribers[0].email, "buyer@customer.test");
    },
  );

  await t.step("the link opens a page with a button; only the POST confirms", async () => {
    const page = await ctx.call("GET", confirmPath);
    assert.equal(page.status, 200);
    assert.match(page.headers.get("content-type") ?? "", /text\/html/);
    assert.match(
      page.headers.get("content-security-policy") ?? "",
      /form-action http:\/\/trust\.test;/,
    );
    assert.match(await page.text(), /<form class="action" method="post"/);
    assert.equal((await (await list()).json()).subscribers[0].status, "pending");
    const confirmed = await ctx.call("POST", confirmPath);
    assert.equal(confirmed.status, 200);
    assert.match(await confirmed.text(), /Subscription confirmed/);
    assert.equal((await (await list()).json()).subscribers[0].status, "confirmed");
  });

  await t.step("a forged or truncated link is a 404 page and changes nothing", async () => {
    // The confirmation email's handler records its delivery after the server accepted it.
    await ctx.services.jobs.settled();
    const before = await snapshotKv(ctx.kv);
    for (
      const path of [
        confirmPath.slice(0, -2) + "xx",
        "/subscriptions/confirm/nope",
        "/unsubscribe/x",
      ]
    ) {
      const res = await ctx.call("POST", path);
      assert.equal(res.status, 404, path);
      assert.match(res.headers.get("content-type") ?? "", /text\/html/);
      await res.body?.cancel();
    }
    assert.equal(await snapshotKv(ctx.kv), before);
  });

  await t.step(
    "asking again answers the same and sends nothing to a confirmed address",
    async () => {
      const count = smtp.messages.length;
      const again = await ctx.call("POST", "/trust/acme/subscriptions", {
        json: { email: "buyer@customer.test" },
      });
      const fresh = await ctx.call("POST", "/trust/acme/subscriptions", {
        json: { email: "new@customer.test" },
      });
      assert.equal(again.status, 202);
      assert.equal(fresh.status, 202);
      assert.deepEqual(await again.json(), await fresh.json());
      await smtp.next((m) => JSON.stringify(m.to).includes("new@customer.test"));
      await settle();
      assert.equal(smtp.messages.length, count + 1);
    },
  );

  await t.step("the HTML form answers a page", async () => {
    const res = await ctx.call("POST", "/trust/acme/subscriptions", {
      body: "email=form%40customer.test",
      headers: FORM,
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /text\/html/);
    assert.match(await res.text(), /Check your inbox/);
    const bad = await ctx.call("POST", "/trust/acme/subscriptions", {
      body: "email=nope",
      headers: FORM,
    });
    assert.equal(bad.status, 400);
    assert.match(bad.headers.get("content-type") ?? "", /text\/html/);
    await bad.body?.cancel();
  });

  await t.step("notifications carry List-Unsubscribe; one POST unsubscribes", async () => {
    await ctx.services.events.publish(updatePosted(ws, "Login outage"));
    const mail = await smtp.next((m) => /Incident: Login outage/.test(m.subject ?? ""));
    assert.equal(mail.subject, "[owner project] Incident: Login outage");
    assert.deepEqual(smtp.recipients.at(-1), ["buyer@customer.test"]);
    const header = mail.headerLines.find((h) => h.key === "list-unsubscribe")?.line
      .replace(/\r?\n\s+/g, " ") ?? "";
    const url = header.match(/^List-Unsubscribe: ?<(http:\/\/trust\.test\/unsubscribe\/[^>]+)>$/)
      ?.[1];
    assert.ok(url, header);
    const post = mail.headerLines.find((h) => h.key === "list-unsubscribe-post")?.line;
    assert.equal(post, "List-Unsubscribe-Post: List-Unsubscribe=One-Click");
    const path = url.slice("http://trust.test".length);
    const page = await ctx.call("GET", path);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<button type="submit">Unsubscribe<\/button>/);
    const res = await ctx.call("POST", path, { body: "List-Unsubscribe=One-Click", headers: FORM });
    assert.equal(res.status, 200);
    const first = await res.text();
    assert.match(first, /<h1 id="title">You are unsubscribed<\/h1>/);
    const emails = (await (await list()).json()).subscribers.map((s: { email: string }) => s.email);
    assert.ok(!emails.includes("buyer@customer.test"));
    unsubscribePath = path;
    unsubscribedHtml = first;
  });

  await t.step("unsubscribing again answers the same page and changes nothing", async () => {
    await settle(); // the notification's delivery record is written just after it is sent
    await ctx.services.jobs.settled();
    const before = await snapshotKv(ctx.kv);
    const again = await ctx.call("POST", unsubscribePath, {
      body: "List-Unsubscribe=One-Click",
      headers: FORM,
    });
    assert.equal(again.status, 200);
    assert.match(again.headers.get("content-type") ?? "", /text\/html/);
    assert.equal(await again.text(), unsubscribedHtml);
    const page = await ctx.call("GET", unsubscribePath);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.equal(html, unsubscribedHtml);
    assert.doesNotMatch(html, /<form/);
    assert.equal(page.headers.get("content-security-policy")?.includes("form-action 'none'"), true);
    assert.equal(await snapshotKv(ctx.kv), before);
  });

  await t.step("forged unsubscribe tokens stay a 404 that changes nothing", async () => {
    const token = unsubscribePath.slice("/unsubscribe/".length);
    const [id, mac] = token.split(".");
    const otherId = crypto.randomUUID();
    const confirmToken = confirmPath.slice("/subscriptions/confirm/".length);
    await ctx.services.jobs.settled();
    const before = await snapshotKv(ctx.kv);
    for (
      const forged of [
        `${id}.${mac.slice(0, -2)}${mac.endsWith("AA") ? "BB" : "AA"}`,
        `${otherId}.${mac}`,
        `${id}.${confirmToken.split(".")[1]}`,
        `${id}.`,
        id,
      ]
    ) {
      for (const method of ["GET", "POST"] as const) {
        const res = await ctx.call(method, `/unsubscribe/${forged}`);
        assert.equal(res.status, 404, `${method} ${forged}`);
        await res.body?.cancel();
      }
    }
    assert.equal(await snapshotKv(ctx.kv), before);
  });

  await t.step("an old unsubscribe link never ends a later subscription", async () => {
    await subscribeAndConfirm(ctx, smtp, "buyer@customer.test");
    const res = await ctx.call("POST", unsubscribePath);
    assert.equal(res.status, 200);
    await res.body?.cancel();
    const emails = (await (await list()).json()).subscribers
      .filter((s: { status: string }) => s.status === "confirmed")
      .map((s: { email: string }) => s.email);
    assert.ok(emails.includes("buyer@customer.test"));
  });
});

Deno.test("[http] subscriptions: bad input, private projects and throttling", async (t) => {
  await using smtp = await startSmtpServer();
  await using ctx = await createTestApp({ env: { SMTP_URL: smtp.url }, worker: true });
  const ws = await setUp(ctx);
  const hidden = await workspace(ctx, "other", { projectSlug: "hidden", visibility: "private" });

  await t.step("bad addresses, private projects and unknown names change nothing", async () => {
    await ctx.services.jobs.settled();
    const before = await snapshotKv(ctx.kv);
    const cases: [string, unknown, number][] = [
      ["/trust/acme/subscriptions", { email: "not an address" }, 400],
      ["/trust/acme/subscriptions", {}, 400],
      ["/trust/hidden/subscriptions", { email: "a@b.test" }, 404],
      ["/trust/nope/subscriptions", { email: "a@b.test" }, 404],
      ["/public/trust/nope/subscriptions", { email: "a@b.test" }, 404],
    ];
    for (const [path, json, status] of cases) {
      const res = await ctx.call("POST", path, { json });
      assert.equal(res.status, status, `${path} ${JSON.stringify(json)}`);
      assert.ok((await res.json()).error.message);
    }
    const text = await ctx.call("POST", "/trust/acme/subscriptions", {
      body: "a@b.test",
      headers: { "content-type": "text/plain" },
    });
    assert.equal(text.status, 415);
    await text.body?.cancel();
    assert.equal(await snapshotKv(ctx.kv), before);
    assert.ok(hidden.project.id);
  });

  await t.step("an organization takes subscriptions too", async () => {
    const res = await ctx.call("POST", `/public/trust/${ws.organization.slug}/subscriptions`, {
      json: { email: "org@customer.test" },
    });
    assert.equal(res.status, 202);
    const mail = await smtp.next((m) => JSON.stringify(m.to).includes("org@customer.test"));
    assert.match(mail.subject ?? "", /owner workspace/);
  });

  await t.step("one address gets at most 3 confirmation emails a day", async () => {
    for (let i = 0; i < 5; i++) {
      const res = await ctx.call("POST", "/trust/acme/subscriptions", {
        json: { email: "victim@x.test" },
      });
      assert.equal(res.status, 202);
      await res.body?.cancel();
    }
    const toVictim = (m: { to?: unknown }) => JSON.stringify(m.to).includes("victim@x.test");
    for (let i = 0; i < 3; i++) await smtp.next(toVictim);
    await settle();
    assert.equal(smtp.messages.filter(toVictim).length, 3);
  });

  await t.step("one client address makes at most 20 requests an hour", async () => {
    let status = 0;
    let retryAfter: string | null = null;
    for (let i = 0; i < 25 && status !== 429; i++) {
      const res = await ctx.call("POST", "/trust/acme/subscriptions", {
        json: { email: `u${i}@x.test` },
      });
      status = res.status;
      retryAfter = res.headers.get("retry-after");
      await res.body?.cancel();
    }
    assert.equal(status, 429);
    assert.ok(Number(retryAfter) > 0);
    ctx.clock.advance(61 * 60_000);
    const later = await ctx.call("POST", "/trust/acme/subscriptions", {
      json: { email: "late@x.test" },
    });
    assert.equal(later.status, 202);
    await later.body?.cancel();
    await settle();
  });
});

Deno.test("[http] subscribers: members count, owners list and remove; 401/403 change nothing", async (t) => {
  await using smtp = await startSmtpServer();
  await using ctx = await createTestApp({ env: { SMTP_URL: smtp.url }, worker: true });
  const ws = await setUp(ctx);
  const member = await ctx.tokenFor("member", { email: "member@example.com" });
  const stranger = await ctx.tokenFor("stranger");
  assert.equal((await ctx.call("GET", "/me", { token: stranger })).status, 200);
  const invited = await ctx.call("POST", `/organizations/${ws.organization.id}/invitations`, {
    token: ws.token,
    json: { email: "member@example.com", role: "member" },
  });
  const invitation = new URL((await invited.json()).acceptUrl).hash.slice("#invitation=".length);
  assert.equal(
    (await ctx.call("POST", `/invitations/${invitation}/accept`, { token: member })).status,
    200,
  );
  await subscribeAndConfirm(ctx, smtp, "one@customer.test");
  const path = `/organizations/${ws.organization.id}/subscribers`;

  await t.step("members see counts; owners also see addresses", async () => {
    const asMember = await (await ctx.call("GET", path, { token: member })).json();
    assert.equal(asMember.subscribers, null);
    assert.deepEqual(asMember.mail, { configured: true });
    assert.deepEqual(
      asMember.counts.find((c: { projectId: string | null }) => c.projectId === ws.project.id),
      { projectId: ws.project.id, confirmed: 1, pending: 0 },
    );
    const asOwner = await (await ctx.call("GET", path, { token: ws.token })).json();
    assert.equal(asOwner.subscribers[0].email, "one@customer.test");
  });

  await t.step("refusals change nothing", async () => {
    const { subscribers } = await (await ctx.call("GET", path, { token: ws.token })).json();
    const item = `${path}/${subscribers[0].id}`;
    await ctx.services.jobs.settled();
    const before = await snapshotKv(ctx.kv);
    const attempts: [string, string, string | undefined, number][] = [
      ["GET", path, undefined, 401],
      ["GET", path, stranger, 403],
      ["DELETE", item, undefined, 401],
      ["DELETE", item, stranger, 403],
      ["DELETE", item, member, 403],
      ["DELETE", `${path}/${crypto.randomUUID()}`, ws.token, 404],
      ["DELETE", `${path}/not-a-uuid`, ws.token, 400],
      ["GET", "/service/status", undefined, 401],
    ];
    for (const [method, url, token, status] of attempts) {
      const res = await ctx.call(method, url, { token });
      assert.equal(res.status, status, `${method} ${url}`);
      assert.ok((await res.json()).error.code);
    }
    assert.equal(await snapshotKv(ctx.kv), before);
  });

  await t.step("an owner removes a subscriber", async () => {
    const { subscribers } = await (await ctx.call("GET", path, { token: ws.token })).json();
    const res = await ctx.call("DELETE", `${path}/${subscribers[0].id}`, { token: ws.token });
    assert.equal(res.status, 200);
    assert.equal((await res.json()).subscriber.email, "one@customer.test");
    const after = await (await ctx.call("GET", path, { token: ws.token })).json();
    assert.deepEqual(after.subscribers, []);
  });

  await t.step("the service status says email is configured, not where", async () => {
    const res = await ctx.call("GET", "/service/status", { token: member });
    assert.equal(res.status, 200);
    const text = await res.text();
    assert.deepEqual(JSON.parse(text).mail, { configured: true });
    assert.ok(!text.includes("127.0.0.1"));
  });
});

Deno.test("[http] subscriptions without SMTP: refused with 409, and the status says so", async () => {
  await using ctx = await createTestApp();
  const ws = await setUp(ctx);
  await ctx.services.jobs.settled();
  const before = await snapshotKv(ctx.kv);
  const res = await ctx.call("POST", "/trust/acme/subscriptions", { json: { email: "a@b.test" } });
  assert.equal(res.status, 409);
  assert.match((await res.json()).error.message, /no email configured/);
  assert.equal(await snapshotKv(ctx.kv), before);
  const status = await ctx.call("GET", "/service/status", { token: ws.token });
  assert.deepEqual((await status.json()).mail, { configured: false });
  const page = await (await ctx.call("GET", "/trust/acme", { headers: { accept: "text/html" } }))
    .text();
  assert.ok(!page.includes('class="subscribe"'));
});
