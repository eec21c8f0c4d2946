/**
 * A certification's linked report and its removal: removing a document a certification links
 * is refused (409 naming the certification) until the link is changed or cleared; a link left
 * dangling by a removal made before that rule is shown to members as missing (documentMissing,
 * and the public list shows no report), and the store refuses to commit a link to a document
 * that is gone, so a removal racing a link cannot leave one.
 */
import assert from "node:assert/strict";
import type { StoredCertification } from "../../src/domain/certifications.ts";
import { addCertification } from "../../src/store/certifications.ts";
import { documentKey } from "../../src/store/keys.ts";
import { createTestApp } from "../support/app.ts";
import { makePdf } from "../support/documents.ts";
import { workspace } from "../support/fixtures.ts";

Deno.test("[http] a certification's report cannot be removed from under it", async (t) => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "owner", { projectSlug: "acme", visibility: "public" });
  const org = `/organizations/${ws.organization.id}`;
  const call = async (method: string, path: string, json?: unknown) => {
    const res = await ctx.call(method, path, { token: ws.token, json });
    return { status: res.status, body: await res.json() };
  };
  const uploaded = await ctx.call(
    "POST",
    `${org}/documents?title=SOC%202%20report&visibility=public`,
    {
      token: ws.token,
      body: await makePdf() as Uint8Array<ArrayBuffer>,
      headers: { "content-type": "application/pdf" },
    },
  );
  assert.equal(uploaded.status, 201);
  const documentId = (await uploaded.json()).document.id;
  const created = await call("POST", `${org}/certifications`, {
    framework: "soc2-type2",
    status: "achieved",
    documentId,
  });
  assert.equal(created.status, 201);
  const certification = created.body.certification;
  assert.equal(certification.documentMissing, false);

  await t.step("removing the linked document is 409, naming the certification", async () => {
    const res = await call("DELETE", `${org}/documents/${documentId}`);
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, "conflict");
    assert.match(res.body.error.message, /SOC 2 Type II/);
    assert.ok(res.body.error.message.includes(certification.id));
    const { body } = await call("GET", `${org}/documents`);
    assert.ok(body.documents.some((d: { id: string }) => d.id === documentId), "still there");
  });

  await t.step("once the link is cleared, the document can be removed", async () => {
    const cleared = await call("PATCH", `${org}/certifications/${certification.id}`, {
      documentId: null,
    });
    assert.equal(cleared.status, 200);
    assert.equal((await call("DELETE", `${org}/documents/${documentId}`)).status, 200);
  });

  await t.step("a link left dangling by an earlier removal is shown as missing", async () => {
    const second = await ctx.call("POST", `${org}/documents?title=ISO%20cert&visibility=public`, {
      token: ws.token,
      body: await makePdf() as Uint8Array<ArrayBuffer>,
      headers: { "content-type": "application/pdf" },
    });
    const secondId = (await second.json()).document.id;
    assert.equal(
      (await call("PATCH", `${org}/certifications/${certification.id}`, { documentId: secondId }))
        .status,
      200,
    );
    // As a removal made before removals of linked reports were refused left it.
    await ctx.kv.delete(documentKey(ws.organization.id, secondId));
    const { body } = await call("GET", `${org}/certifications`);
    const [listed] = body.certifications;
    assert.equal(listed.documentId, secondId);
    assert.equal(listed.documentMissing, true);
    const shown =
      await (await ctx.call("GET", `/public/trust/${ws.organization.slug}/certifications`))
        .json();
    assert.equal(shown.certifications[0].document, null, "the pages show no report");
    const edit = await call("PATCH", `${org}/certifications/${certification.id}`, {
      scope: "The platform",
    });
    assert.equal(edit.status, 400);
    assert.equal(edit.body.error.code, "validation_failed");
    assert.match(edit.body.error.message, /documentId/);
    const fixed = await call("PATCH", `${org}/certifications/${certification.id}`, {
      documentId: null,
      scope: "The platform",
    });
    assert.equal(fixed.status, 200);
    assert.equal(fixed.body.certification.documentMissing, false);
  });

  await t.step("the store refuses to commit a link to a document that is gone", async () => {
    const now = new Date();
    const stored: StoredCertification = {
      id: crypto.randomUUID(),
      framework: "iso27001-2022",
      otherName: null,
      status: "achieved",
      projectId: null,
      auditor: null,
      auditPeriod: null,
      issuedAt: null,
      expiresAt: null,
      scope: null,
      documentId: crypto.randomUUID(),
      registryUrl: null,
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
      updatedBy: { userId: crypto.randomUUID(), email: null },
    };
    await assert.rejects(
      () => addCertification(ctx.kv, ws.organization.id, { certification: stored, now }),
      { code: "validation_failed" },
    );
  });
});
