import assert from "node:assert/strict";
import { PDFDocument } from "@cantoo/pdf-lib";
import { fakeClock } from "../../src/lib/clock.ts";
import { documentsWorkspace, makePdf, upload } from "../support/documents.ts";
import { startTestServer } from "../support/server.ts";
import { startSmtpServer } from "../support/smtp.ts";

Deno.test("[e2e] documents: upload, request, approve, emailed link, logged download, expiry and revocation", async (t) => {
  await using smtp = await startSmtpServer();
  const clock = fakeClock(new Date("2026-11-01T12:00:00Z"));
  await using server = await startTestServer({ env: { SMTP_URL: smtp.url }, clock });
  const call = async (
    method: string,
    path: string,
    options: { token?: string; json?: unknown; body?: BodyInit; headers?: Record<string, string> } =
      {},
  ) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.json !== undefined) headers["content-type"] = "application/json";
    const body = options.json !== undefined ? JSON.stringify(options.json) : options.body;
    return await fetch(`${server.baseUrl}${path}`, { method, headers, body });
  };
  const tokenFor = (sub: string) => server.tokenFor(sub);
  const ws = await documentsWorkspace({ call, tokenFor }, { memberEmail: "member@example.com" });
  const base = `/organizations/${ws.orgId}`;
  const pdf = await makePdf("Penetration test summary");
  let docId = "";
  let linkUrl = "";

  await t.step("an owner uploads a restricted PDF and sets the NDA", async () => {
    const res = await upload({ call }, ws.orgId, {
      token: ws.owner,
      bytes: pdf,
      query: "title=Pentest%202026",
    });
    assert.equal(res.status, 201);
    docId = (await res.json()).document.id;
    const nda = await call("PUT", `${base}/nda`, {
      token: ws.owner,
      json: { text: "Confidential." },
    });
    assert.equal(nda.status, 200);
    await nda.body?.cancel();
  });

  const request = async (email: string) => {
    const res = await call("POST", `/public/trust/${ws.orgSlug}/documents/request`, {
      body: new URLSearchParams({
        name: "Vera Visitor",
        email,
        company: "Customer Inc",
        documentIds: docId,
        ndaVersion: "1",
        acceptNda: "true",
      }).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
    const list = await (await call("GET", `${base}/access-requests`, { token: ws.owner })).json();
    return list.requests.find((r: { email: string }) => r.email === email);
  };

  await t.step(
    "a visitor requests it; the owner approves; the email carries the link",
    async () => {
      const pending = await request("vera@customer.test");
      assert.equal(pending.status, "pending");
      const res = await call("POST", `${base}/access-requests/${pending.id}/approve`, {
        token: ws.owner,
        json: {},
      });
      assert.equal(res.status, 200);
      const approval = await res.json();
      assert.equal(approval.email.sent, true);
      const mail = await smtp.next((m) => m.subject === "Documents from Acme");
      // This message's own envelope: the owner's notice of the request may arrive after it.
      assert.deepEqual(smtp.recipients[smtp.messages.indexOf(mail)], ["vera@customer.test"]);
      const found = mail.text?.match(/https?:\/\/\S+\/documents\/access\/[A-Za-z0-9_-]{43}/);
      assert.ok(found, mail.text ?? "");
      linkUrl = found[0];
      assert.equal(linkUrl, approval.link.url);
      assert.match(mail.text!, /Pentest 2026/);
    },
  );

  await t.step(
    "the link's page lists the document; the download is stamped and logged",
    async () => {
      const page = await fetch(linkUrl);
      assert.equal(page.status, 200);
      const html = await page.text();
      const download = html.match(/href="([^"]+\/documents\/access\/[^"]+\/[0-9a-f-]{36})"/)?.[1];
      assert.ok(download, "the page links the download");
      const res = await fetch(download.replaceAll("&amp;", "&"));
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), "application/pdf");
      assert.match(
        res.headers.get("content-disposition")!,
        /^attachment; filename="Pentest-2026\.pdf"$/,
      );
      assert.equal(res.headers.get("content-security-policy"), "default-src 'none'; sandbox");
      const bytes = new Uint8Array(await res.arrayBuffer());
      const stamped = await PDFDocument.load(bytes);
      assert.equal(stamped.getSubject(), "Provided to vera@customer.test on 2026-11-01");
      assert.equal(stamped.getPageCount(), 1);
      const log = await (await call("GET", `${base}/document-downloads`, { token: ws.member }))
        .json();
      assert.equal(log.downloads.length, 1);
      const [entry] = log.downloads;
      assert.equal(entry.email, "vera@customer.test");
      assert.equal(entry.documentId, docId);
      assert.equal(entry.at, "2026-11-01T12:00:00.000Z");
      assert.equal(entry.watermarked, true);
      assert.equal(entry.ip, "127.0.0.1");
    },
  );

  await t.step("after 7 days the link is refused with 410", async () => {
    clock.advance(7 * 24 * 60 * 60 * 1000 + 1000);
    const res = await fetch(linkUrl);
    assert.equal(res.status, 410);
    assert.match(await res.text(), /expired/);
    const download = await fetch(`${linkUrl}/${docId}`);
    assert.equal(download.status, 410);
    await download.body?.cancel();
  });

  await t.step(
    "an auto-approved domain gets the link at once; revoking it refuses it",
    async () => {
      // A week passed: the owner signs in again.
      ws.owner = await tokenFor("owner");
      const settings = await call("PUT", `${base}/document-settings`, {
        token: ws.owner,
        json: { autoApproveDomains: ["partner.test"] },
      });
      assert.equal(settings.status, 200);
      await settings.body?.cancel();
      const approved = await request("pat@partner.test");
      assert.equal(approved.status, "approved");
      assert.equal(approved.autoApproved, true);
      const mail = await smtp.next((m) => JSON.stringify(m.to).includes("pat@partner.test"));
      const url = mail.text!.match(/https?:\/\/\S+\/documents\/access\/[A-Za-z0-9_-]{43}/)![0];
      assert.equal(await fetch(url).then(async (r) => (await r.body?.cancel(), r.status)), 200);
      const revoke = await call("POST", `${base}/access-links/${approved.linkId}/revoke`, {
        token: ws.owner,
      });
      assert.equal(revoke.status, 200);
      assert.ok((await revoke.json()).link.revokedAt);
      const refused = await fetch(url);
      assert.equal(refused.status, 410);
      assert.match(await refused.text(), /revoked/);
      const download = await fetch(`${url}/${docId}`);
      assert.equal(download.status, 410);
      await download.body?.cancel();
      const log = await (await call("GET", `${base}/document-downloads`, { token: ws.owner }))
        .json();
      assert.equal(log.downloads.length, 1, "refused downloads are not served nor logged");
    },
  );
  await t.step(
    "an auto-approval the SMTP server refuses stays pending, with no working link",
    async () => {
      smtp.refuseNext(1);
      const pending = await request("sam@partner.test");
      assert.equal(pending.status, "pending");
      assert.equal(pending.autoApproved, false);
      assert.equal(pending.linkId, null);
      assert.match(pending.autoApproval.detail, /could not be sent/);
      const { links } = await (await call("GET", `${base}/access-links`, { token: ws.owner }))
        .json();
      assert.equal(links.some((l: { email: string }) => l.email === "sam@partner.test"), false);
    },
  );
});
