/**
 * Requests that reach someone: an access request emails every owner through a job of the
 * job store (never a direct send), once; a restricted document stored while no NDA is set
 * answers with a warning saying what buyers see; search finds vendors by organization name
 * and description.
 */
import assert from "node:assert/strict";
import type { Job } from "../../src/domain/jobs.ts";
import type { OwnerNotice } from "../../src/domain/access_requests.ts";
import { createTestApp } from "../support/app.ts";
import { documentsWorkspace, makePdf, upload } from "../support/documents.ts";
import { startSmtpServer } from "../support/smtp.ts";

async function listJobs(kv: Deno.Kv): Promise<Job[]> {
  const jobs: Job[] = [];
  for await (const entry of kv.list<Job>({ prefix: ["jobs"] })) jobs.push(entry.value);
  return jobs;
}

async function listNotices(kv: Deno.Kv): Promise<OwnerNotice[]> {
  const notices: OwnerNotice[] = [];
  for await (const entry of kv.list<OwnerNotice>({ prefix: ["owner_notices"] })) {
    notices.push(entry.value);
  }
  return notices;
}

Deno.test("[http] an access request emails each owner through a job, once", async (t) => {
  await using smtp = await startSmtpServer();
  await using ctx = await createTestApp({ env: { SMTP_URL: smtp.url } });
  const ws = await documentsWorkspace(ctx);
  const second = await ctx.tokenFor("second", { email: "second-owner@acme.test" });
  const invited = await ctx.call("POST", `/organizations/${ws.orgId}/invitations`, {
    token: ws.owner,
    json: { email: "second-owner@acme.test", role: "owner" },
  });
  const token = new URL((await invited.json()).acceptUrl).hash.slice("#invitation=".length);
  assert.equal(
    (await ctx.call("POST", `/invitations/${token}/accept`, { token: second })).status,
    200,
  );
  const uploaded = await upload(ctx, ws.orgId, {
    token: ws.owner,
    bytes: await makePdf("Pen test"),
    query: "title=Pen%20test%202026&visibility=restricted",
  });
  const { document } = await uploaded.json();
  await ctx.call("PUT", `/organizations/${ws.orgId}/nda`, {
    token: ws.owner,
    json: { text: "NDA" },
  });
  for (const job of await listJobs(ctx.kv)) {
    await ctx.services.jobs.dispatch(job.message);
    await ctx.kv.delete(["jobs", job.id]);
  }
  const before = smtp.messages.length;

  await t.step(
    "the request is stored with one owner-mail job per owner, nothing sent yet",
    async () => {
      const res = await ctx.call("POST", `/public/trust/${ws.orgSlug}/access-requests`, {
        json: {
          name: "Vera Visitor",
          email: "vera@customer.test",
          company: "Customer Inc",
          documentIds: [document.id],
          ndaVersion: 1,
          acceptNda: true,
        },
      });
      assert.equal(res.status, 202);
      const jobs = (await listJobs(ctx.kv)).filter((j) => j.kind === "owner-mail");
      assert.equal(jobs.length, 2, "one per owner, not the member");
      const notices = await listNotices(ctx.kv);
      assert.deepEqual(notices.map((n) => n.status), ["queued", "queued"]);
      assert.equal(smtp.messages.length, before, "no email is sent by the request itself");
    },
  );

  await t.step("the worker sends them; each owner gets one email", async () => {
    assert.equal(await ctx.services.jobs.runDue(), 2);
    await ctx.services.jobs.settled();
    const first = await smtp.next((m) => /Access request/.test(m.subject ?? ""));
    const secondMail = await smtp.next((m) =>
      /Access request/.test(m.subject ?? "") && m !== first
    );
    const to = [first, secondMail].map((m) => m.to && "text" in m.to ? m.to.text : "").sort();
    assert.deepEqual(to, ["owner@acme.test", "second-owner@acme.test"]);
    assert.equal(first.subject, "[Acme] Access request from Vera Visitor, Customer Inc");
    assert.match(first.text ?? "", /Vera Visitor <vera@customer\.test> of Customer Inc asked/);
    assert.match(first.text ?? "", /- Pen test 2026/);
    assert.match(first.text ?? "", /It waits for an owner's decision/);
    assert.match(first.text ?? "", new RegExp(`/dashboard/#/orgs/${ws.orgId}/documents`));
    const notices = await listNotices(ctx.kv);
    assert.deepEqual(notices.map((n) => n.status), ["sent", "sent"]);
    assert.equal((await listJobs(ctx.kv)).length, 0, "the jobs are done");
  });

  await t.step("running a job again sends nothing more", async () => {
    const count = smtp.messages.length;
    const [notice] = await listNotices(ctx.kv);
    await ctx.services.jobs.dispatch({
      kind: "owner-mail",
      organizationId: ws.orgId,
      noticeId: notice.id,
    });
    assert.equal(smtp.messages.length, count);
  });
});

Deno.test("[http] without email, an owner's notice is recorded as skipped", async () => {
  await using ctx = await createTestApp({ worker: true });
  const ws = await documentsWorkspace(ctx);
  const uploaded = await upload(ctx, ws.orgId, {
    token: ws.owner,
    bytes: await makePdf("Pen test"),
    query: "title=Pen%20test&visibility=restricted",
  });
  const { document } = await uploaded.json();
  await ctx.call("PUT", `/organizations/${ws.orgId}/nda`, {
    token: ws.owner,
    json: { text: "NDA" },
  });
  const res = await ctx.call("POST", `/public/trust/${ws.orgSlug}/access-requests`, {
    json: {
      name: "Vera",
      email: "vera@customer.test",
      company: "Customer Inc",
      documentIds: [document.id],
      ndaVersion: 1,
      acceptNda: true,
    },
  });
  assert.equal(res.status, 202);
  await ctx.services.jobs.settled();
  const notices = await listNotices(ctx.kv);
  assert.deepEqual(notices.map((n) => [n.status, n.reason]), [["skipped", "email not configured"]]);
});

Deno.test("[http] a restricted document without an NDA warns the owner what buyers see", async (t) => {
  await using ctx = await createTestApp();
  const ws = await documentsWorkspace(ctx);
  const bytes = await makePdf("Report");
  let restrictedId = "";

  await t.step("uploading one restricted answers 201 with the warning", async () => {
    const res = await upload(ctx, ws.orgId, {
      token: ws.owner,
      bytes,
      query: "title=SOC%202%20report&visibility=restricted",
    });
    assert.equal(res.status, 201);
    const body = await res.json();
    restrictedId = body.document.id;
    assert.match(body.warning, /^No NDA is set, so buyers cannot request "SOC 2 report"/);
    assert.match(body.warning, /Available on request \(requests are not open yet\)/);
  });

  await t.step("a public one, or one while an NDA is set, has none", async () => {
    const open = await upload(ctx, ws.orgId, {
      token: ws.owner,
      bytes: await makePdf("Policy"),
      query: "title=Policy&visibility=public",
    });
    const openBody = await open.json();
    assert.equal(openBody.warning, undefined);
    const made = await ctx.call(
      "PATCH",
      `/organizations/${ws.orgId}/documents/${openBody.document.id}`,
      {
        token: ws.owner,
        json: { visibility: "restricted" },
      },
    );
    assert.match((await made.json()).warning, /^No NDA is set/, "making one restricted warns too");
    await ctx.call("PUT", `/organizations/${ws.orgId}/nda`, {
      token: ws.owner,
      json: { text: "NDA" },
    });
    const later = await upload(ctx, ws.orgId, {
      token: ws.owner,
      bytes: await makePdf("Later"),
      query: "title=Later&visibility=restricted",
    });
    assert.equal((await later.json()).warning, undefined);
    const renamed = await ctx.call(
      "PATCH",
      `/organizations/${ws.orgId}/documents/${restrictedId}`,
      {
        token: ws.owner,
        json: { title: "SOC 2 Type II report" },
      },
    );
    assert.equal((await renamed.json()).warning, undefined);
  });
});

Deno.test("[http] search finds vendors by organization name and description", async () => {
  await using ctx = await createTestApp();
  const ws = await documentsWorkspace(ctx);
  const profile = await ctx.call("PATCH", `/organizations/${ws.orgId}/profile`, {
    token: ws.owner,
    json: { displayName: "Acme Corporation", description: "Payroll software for dentists" },
  });
  assert.equal(profile.status, 200);
  assert.equal(
    (await ctx.call("POST", `/projects/${ws.projectId}/publish`, { token: ws.owner })).status,
    201,
  );
  const search = async (query: string) =>
    await (await ctx.call("GET", `/public/trust-profiles?query=${encodeURIComponent(query)}`))
      .json();
  for (const query of ["acme corporation", "ACME", "payroll", "dentists"]) {
    const body = await search(query);
    assert.deepEqual(body.profiles.map((p: { slug: string }) => p.slug), ["acme-cloud"], query);
    assert.deepEqual(body.profiles[0].organization, { name: "Acme Corporation", slug: ws.orgSlug });
  }
  assert.deepEqual((await search("bakery")).profiles, []);
});
