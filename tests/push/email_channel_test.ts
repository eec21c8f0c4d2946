import assert from "node:assert/strict";
import { type TrustEvent, trustEvent } from "../../src/domain/events.ts";
import { MAIL_BACKOFF_MS, type MailDelivery } from "../../src/domain/subscriptions.ts";
import { linkToken } from "../../src/push/links.ts";
import {
  confirmSubscription,
  listSubscriptions,
  requestSubscription,
} from "../../src/store/subscriptions.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import {
  collector,
  evidenceItem,
  publishVersion,
  sbomPayload,
  type Workspace,
  workspace,
} from "../support/fixtures.ts";
import { startSmtpServer, type TestSmtp } from "../support/smtp.ts";

const settle = (ms = 400) => new Promise((resolve) => setTimeout(resolve, ms));
const to = (email: string) => (m: { to?: unknown }) => JSON.stringify(m.to).includes(email);

async function subscribe(ctx: TestApp, smtp: TestSmtp, path: string, email: string) {
  const res = await ctx.call("POST", path, { json: { email } });
  assert.equal(res.status, 202);
  await res.body?.cancel();
  const mail = await smtp.next(to(email));
  return mail.text!.match(/\/subscriptions\/confirm\/[A-Za-z0-9._-]+/)![0];
}

async function confirmed(ctx: TestApp, smtp: TestSmtp, path: string, email: string) {
  const res = await ctx.call("POST", await subscribe(ctx, smtp, path, email));
  assert.equal(res.status, 200);
  await res.body?.cancel();
}

async function deliveries(ctx: TestApp): Promise<MailDelivery[]> {
  const found: MailDelivery[] = [];
  for await (const e of ctx.kv.list<MailDelivery>({ prefix: ["mail_deliveries"] })) {
    found.push(e.value);
  }
  return found.filter((d) => d.purpose === "notification");
}

function updatePosted(ws: Workspace, title: string): TrustEvent {
  return trustEvent({
    type: "update.posted",
    timestamp: "2026-11-01T12:00:00.000Z",
    organizationId: ws.organization.id,
    projectId: ws.project.id,
    data: {
      project: { id: ws.project.id, slug: ws.project.slug, name: "owner project" },
      update: { id: crypto.randomUUID(), kind: "advisory", title, url: "http://trust.test/u/1" },
    },
  });
}

Deno.test("[push] a regression published by itself emails confirmed subscribers only", async () => {
  await using smtp = await startSmtpServer();
  await using ctx = await createTestApp({ env: { SMTP_URL: smtp.url }, worker: true });
  const ws = await workspace(ctx, "owner", { projectSlug: "acme", visibility: "public" });
  const patched = await ctx.call("PATCH", `/projects/${ws.project.id}`, {
    token: ws.token,
    json: { autoPublish: true },
  });
  assert.equal(patched.status, 200);
  await patched.body?.cancel();
  const c = await collector(ctx, ws);
  await publishVersion(ctx, ws);
  const ingest = async (payload: Record<string, unknown>) => {
    const res = await ctx.call("POST", "/ingest/evidence", {
      json: { projectId: ws.project.id, ...evidenceItem(ctx, payload) },
      headers: { authorization: `Bearer ${c.secret}` },
    });
    assert.equal(res.status, 201);
    await res.body?.cancel();
    ctx.clock.advance(60_000);
    await ctx.services.scheduler.recompute(ws.project.id);
  };
  await ingest(sbomPayload(1));

  await confirmed(ctx, smtp, "/trust/acme/subscriptions", "confirmed@x.test");
  await subscribe(ctx, smtp, "/trust/acme/subscriptions", "pending@x.test");
  await confirmed(ctx, smtp, "/trust/acme/subscriptions", "gone@x.test");
  const gone = (await listSubscriptions(ctx.kv, ws.organization.id, { now: ctx.clock.now() }))
    .find((s) => s.email === "gone@x.test")!;
  const unsubscribed = await ctx.call(
    "POST",
    `/unsubscribe/${await linkToken(ctx.kv, "unsubscribe", gone)}`,
  );
  assert.equal(unsubscribed.status, 200);
  await unsubscribed.body?.cancel();
  const before = smtp.messages.length;

  await ingest({ ...sbomPayload(2), specVersion: "9.9" });
  const mail = await smtp.next((m) => /Control regressed/.test(m.subject ?? ""));
  assert.match(mail.subject!, /^\[owner project\] Control regressed: .+ \(pass → fail\)/);
  assert.match(mail.text!, /specVersion is "9\.9"/);
  assert.match(String(mail.html), /<p>/);
  await settle();
  assert.deepEqual(smtp.recipients.slice(before), [["confirmed@x.test"]]);
});

Deno.test("[push] subprocessor changes reach organization and project subscribers, once each", async () => {
  await using smtp = await startSmtpServer();
  await using ctx = await createTestApp({ env: { SMTP_URL: smtp.url }, worker: true });
  const ws = await workspace(ctx, "owner", { projectSlug: "acme", visibility: "public" });
  await publishVersion(ctx, ws);
  const org = `/public/trust/${ws.organization.slug}/subscriptions`;
  await confirmed(ctx, smtp, org, "org@x.test");
  await confirmed(ctx, smtp, "/trust/acme/subscriptions", "project@x.test");
  await confirmed(ctx, smtp, org, "both@x.test");
  await confirmed(ctx, smtp, "/trust/acme/subscriptions", "both@x.test");
  const before = smtp.messages.length;
  const added = await ctx.call("POST", `/organizations/${ws.organization.id}/subprocessors`, {
    token: ws.token,
    json: {
      name: "<b>Postmark</b>",
      purpose: "Email",
      location: "US",
      website: "https://p.example",
    },
  });
  assert.equal(added.status, 201);
  await added.body?.cancel();
  for (const email of ["org@x.test", "project@x.test", "both@x.test"]) {
    const mail = await smtp.next(to(email));
    assert.equal(mail.subject, "[owner workspace] Subprocessor added: <b>Postmark</b>");
    assert.ok(String(mail.html).includes("&lt;b&gt;Postmark&lt;/b&gt;"));
    assert.ok(!String(mail.html).includes("<b>Postmark"));
  }
  await settle();
  assert.equal(smtp.messages.length - before, 3);
});

Deno.test("[push] a refused email is tried again and arrives once; events handed out twice mail once", async () => {
  await using smtp = await startSmtpServer();
  await using ctx = await createTestApp({ env: { SMTP_URL: smtp.url }, worker: true });
  const ws = await workspace(ctx, "owner", { projectSlug: "acme", visibility: "public" });
  await publishVersion(ctx, ws);
  await confirmed(ctx, smtp, "/trust/acme/subscriptions", "reader@x.test");
  const before = smtp.messages.length;
  smtp.refuseNext(1);
  const event = updatePosted(ws, "TLS change");
  await ctx.services.events.publish(event);
  await ctx.services.events.publish(event);
  // The refused attempt schedules the next one a second later on the app's (fake) clock.
  for (let i = 0; i < 100 && !ctx.log.lines.some((l) => l.includes("trying again")); i++) {
    await settle(50);
  }
  ctx.clock.advance(MAIL_BACKOFF_MS[0]);
  const mail = await smtp.next((m) => /Advisory: TLS change/.test(m.subject ?? ""), 15_000);
  assert.equal(mail.subject, "[owner project] Advisory: TLS change");
  await settle(1500);
  assert.equal(smtp.messages.length - before, 1);
  const [delivery] = await deliveries(ctx);
  assert.equal(delivery.status, "sent");
  assert.equal(delivery.attempts, 2);
  assert.ok(ctx.log.lines.some((l) => l.includes("trying again")));

  await privateProjectNotifiesNobody(ctx, ws, smtp);
});

/** A project made private notifies nobody. */
async function privateProjectNotifiesNobody(ctx: TestApp, ws: Workspace, smtp: TestSmtp) {
  const res = await ctx.call("PATCH", `/projects/${ws.project.id}`, {
    token: ws.token,
    json: { visibility: "private" },
  });
  assert.equal(res.status, 200);
  await res.body?.cancel();
  const before = smtp.messages.length;
  await ctx.services.events.publish(updatePosted(ws, "Hidden"));
  await settle();
  assert.equal(smtp.messages.length, before);
}

Deno.test("[push] without SMTP nothing is sent: notifications are recorded as skipped", async () => {
  await using ctx = await createTestApp({ worker: true });
  const ws = await workspace(ctx, "owner", { projectSlug: "acme", visibility: "public" });
  const now = ctx.clock.now();
  const target = { organizationId: ws.organization.id, projectId: ws.project.id };
  await requestSubscription(ctx.kv, { ...target, email: "reader@x.test" }, now);
  const [pending] = await listSubscriptions(ctx.kv, ws.organization.id, { now });
  assert.ok(await confirmSubscription(ctx.kv, pending.id, now));
  await ctx.services.events.publish(updatePosted(ws, "Outage"));
  await settle();
  const notifications = await deliveries(ctx);
  assert.equal(notifications.length, 1);
  assert.equal(notifications[0].status, "skipped");
  assert.equal(notifications[0].reason, "email not configured");
  assert.ok(ctx.log.lines.some((l) => l.includes("Email is not configured")));
  const status = await ctx.call("GET", "/service/status", { token: ws.token });
  assert.deepEqual((await status.json()).mail, { configured: false });
});

Deno.test("[push] an update posted through the API reaches the project's subscribers", async () => {
  await using smtp = await startSmtpServer();
  await using ctx = await createTestApp({ env: { SMTP_URL: smtp.url }, worker: true });
  const ws = await workspace(ctx, "owner", { projectSlug: "acme", visibility: "public" });
  await publishVersion(ctx, ws);
  await confirmed(ctx, smtp, "/trust/acme/subscriptions", "reader@x.test");
  const posted = await ctx.call("POST", `/projects/${ws.project.id}/updates`, {
    token: ws.token,
    json: { kind: "incident", title: "API errors", body: "We are investigating." },
  });
  assert.equal(posted.status, 201);
  await posted.body?.cancel();
  const mail = await smtp.next((m) => /API errors/.test(m.subject ?? ""));
  assert.equal(mail.subject, "[owner project] Incident: API errors");
  assert.match(mail.text!, /http:\/\/trust\.test\/trust\/acme\/updates\//);
  await settle();
});
