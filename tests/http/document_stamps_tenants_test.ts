/**
 * A recipient's stamped copy of a PDF belongs to the organization whose document it is. The
 * stamp was keyed by the document's digest alone, so an organization that uploaded the same
 * bytes (a public report is easy to copy) found another's recipients' copies among its own keys:
 * in its export (each copy names its recipient on every page) and in its deletion.
 */
import assert from "node:assert/strict";
import { createTestApp } from "../support/app.ts";
import { documentsWorkspace, makePdf, upload } from "../support/documents.ts";
import { organizationKeys } from "../../src/store/tenant_keys.ts";
import { dropUnscopedStamps } from "../../src/store/documents.ts";

Deno.test("[http] documents: stamped copies are the organization's own, even of bytes another holds", async (t) => {
  await using ctx = await createTestApp();
  const bytes = await makePdf("Shared report");
  const victim = await documentsWorkspace(ctx);
  const uploaded = await upload(ctx, victim.orgId, { token: victim.owner, bytes });
  assert.equal(uploaded.status, 201);
  const docId = (await uploaded.json()).document.id as string;
  await (await ctx.call("PUT", `/organizations/${victim.orgId}/nda`, {
    token: victim.owner,
    json: { text: "NDA" },
  })).body?.cancel();
  const asked = await ctx.call("POST", `/public/trust/${victim.orgSlug}/access-requests`, {
    json: {
      name: "Vera Visitor",
      email: "vera@customer.test",
      company: "Customer Inc",
      documentIds: [docId],
      ndaVersion: 1,
      acceptNda: true,
    },
  });
  assert.equal(asked.status, 202);
  const approved = await ctx.call(
    "POST",
    `/organizations/${victim.orgId}/access-requests/${(await asked.json()).id}/approve`,
    { token: victim.owner, json: {} },
  );
  assert.equal(approved.status, 200);
  const link = new URL((await approved.json()).link.url).pathname;
  const download = await ctx.call("GET", `${link}/${docId}`);
  assert.equal(download.status, 200);
  await download.body?.cancel();

  const mallory = await ctx.tokenFor("mallory", { email: "mallory@rival.test" });
  const created = await ctx.call("POST", "/onboarding/bootstrap", {
    token: mallory,
    json: { workspaceName: "Rival", projectName: "Rival Cloud", projectVisibility: "public" },
  });
  assert.equal(created.status, 201);
  const rivalId = (await created.json()).organization.id as string;
  const copy = await upload(ctx, rivalId, { token: mallory, bytes });
  assert.equal(copy.status, 201);
  await copy.body?.cancel();

  await t.step("the victim's stamp is keyed by the victim", async () => {
    const stamps = await Array.fromAsync(ctx.kv.list({ prefix: ["document_stamps"] }));
    assert.equal(stamps.length, 1);
    assert.equal(stamps[0].key[1], victim.orgId);
  });

  await t.step("the rival's keys (export, deletion) hold no stamp of the victim", async () => {
    const rivalKeys = await Array.fromAsync(organizationKeys(ctx.kv, rivalId));
    const stamps = rivalKeys.filter((key) => key[0] === "document_stamps");
    assert.deepEqual(stamps, []);
    const victimKeys = await Array.fromAsync(organizationKeys(ctx.kv, victim.orgId));
    assert.equal(victimKeys.filter((key) => key[0] === "document_stamps").length, 1);
  });

  await t.step("stamps kept before they were keyed by organization go once", async () => {
    const legacy = ["document_stamps", "a".repeat(64), "b".repeat(64)];
    await ctx.kv.delete(["upgrades", "document_stamps_by_organization"]);
    await ctx.kv.set(legacy, { stampedSha256: null, at: ctx.clock.now().toISOString() });
    assert.equal(await dropUnscopedStamps(ctx.kv, ctx.clock.now()), 1);
    assert.equal((await ctx.kv.get(legacy)).versionstamp, null);
    const kept = await Array.fromAsync(ctx.kv.list({ prefix: ["document_stamps"] }));
    assert.equal(kept.length, 1, "the organization's own stamp stays");
    await ctx.kv.set(legacy, { stampedSha256: null, at: ctx.clock.now().toISOString() });
    assert.equal(await dropUnscopedStamps(ctx.kv, ctx.clock.now()), 0, "once per database");
  });
});
