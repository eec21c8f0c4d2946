/**
 * Requests that real clients send, checked against /openapi.json as a validating proxy reads
 * them (no request drift) and answered as documented: an owner approving an access request
 * with no body, and a mail client's RFC 8058 one-click unsubscribe, a form.
 */
import assert from "node:assert/strict";
import type { Subscription } from "../../src/domain/subscriptions.ts";
import { linkToken } from "../../src/push/links.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { documentsWorkspace, makePdf, upload } from "../support/documents.ts";
import {
  createRequestValidator,
  type OpenApiDocument,
  operations,
} from "../support/openapi_validator.ts";

const BASE = "http://trust.test";

async function contract(ctx: TestApp) {
  const doc: OpenApiDocument = await (await ctx.call("GET", "/openapi.json")).json();
  const ops = operations(doc);
  const check = createRequestValidator(doc);
  /** The request's drift from the document, then the app's answer to it. */
  return async (operationId: string, request: Request) => {
    const op = ops.get(operationId);
    assert.ok(op, operationId);
    const problems = await check(op, request);
    const res = await ctx.app.request(request);
    return { problems, res };
  };
}

Deno.test("[http] approving an access request needs no body, as /openapi.json says", async () => {
  await using ctx = await createTestApp();
  const send = await contract(ctx);
  const ws = await documentsWorkspace(ctx);
  const doc = (await (await upload(ctx, ws.orgId, {
    token: ws.owner,
    bytes: await makePdf("Restricted"),
    query: "title=Report",
  })).json()).document;
  await ctx.call("PUT", `/organizations/${ws.orgId}/nda`, {
    token: ws.owner,
    json: { text: "Do not share." },
  });
  const asked = async () => {
    const res = await ctx.call("POST", `/public/trust/${ws.orgSlug}/access-requests`, {
      json: {
        name: "Vera Visitor",
        email: `vera.${crypto.randomUUID().slice(0, 8)}@customer.test`,
        company: "Customer Inc",
        documentIds: [doc.id],
        ndaVersion: 1,
        acceptNda: true,
      },
    });
    assert.ok(res.ok, await res.clone().text());
    return (await res.json()).id as string;
  };
  const approve = (id: string, init: RequestInit = {}) =>
    new Request(`${BASE}/organizations/${ws.orgId}/access-requests/${id}/approve`, {
      method: "POST",
      ...init,
      headers: { authorization: `Bearer ${ws.owner}`, ...init.headers },
    });

  // No body at all: the link lasts the default 7 days.
  const bare = await send("approveAccessRequest", approve(await asked()));
  assert.deepEqual(bare.problems, []);
  assert.equal(bare.res.status, 200, await bare.res.clone().text());
  const approved = await bare.res.json();
  assert.equal(approved.request.status, "approved");
  assert.equal(Date.parse(approved.link.expiresAt) - ctx.clock.now().getTime(), 7 * 86_400_000);

  // A JSON body still chooses the lifetime, and a bad one is still refused.
  const chosen = await send(
    "approveAccessRequest",
    approve(await asked(), {
      body: JSON.stringify({ expiresInDays: 3 }),
      headers: { "content-type": "application/json" },
    }),
  );
  assert.deepEqual(chosen.problems, []);
  assert.equal(chosen.res.status, 200);
  const link = (await chosen.res.json()).link;
  assert.equal(Date.parse(link.expiresAt) - ctx.clock.now().getTime(), 3 * 86_400_000);
  const pending = await asked();
  const bad = await send(
    "approveAccessRequest",
    approve(pending, {
      body: JSON.stringify({ expiresInDays: 91 }),
      headers: { "content-type": "application/json" },
    }),
  );
  assert.notDeepEqual(bad.problems, [], "the document refuses it too");
  assert.equal(bad.res.status, 400);
  await bad.res.body?.cancel();
  const text = await send(
    "approveAccessRequest",
    approve(pending, { body: "7", headers: { "content-type": "text/plain" } }),
  );
  assert.notDeepEqual(text.problems, []);
  assert.equal(text.res.status, 415);
  await text.res.body?.cancel();
});

Deno.test("[http] a one-click unsubscribe is a form /openapi.json describes", async () => {
  await using ctx = await createTestApp();
  const send = await contract(ctx);
  // A link for a subscription that no longer exists: unsubscribing answers the same page.
  const token = await linkToken(ctx.kv, "unsubscribe", {
    id: crypto.randomUUID(),
    nonce: "",
  } as Subscription);
  const url = `${BASE}/unsubscribe/${token}`;
  const multipart = new FormData();
  multipart.set("List-Unsubscribe", "One-Click");
  const requests: [string, RequestInit][] = [
    ["RFC 8058 form-urlencoded", {
      body: "List-Unsubscribe=One-Click",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    }],
    ["RFC 8058 multipart/form-data", { body: multipart }],
    ["the page's button (an empty form)", {
      body: "",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    }],
    ["no body", {}],
  ];
  for (const [label, init] of requests) {
    const { problems, res } = await send(
      "unsubscribe",
      new Request(url, { method: "POST", ...init }),
    );
    assert.deepEqual(problems, [], label);
    assert.equal(res.status, 200, label);
    assert.match(await res.text(), /You are unsubscribed/, label);
  }
  const other = await send(
    "unsubscribe",
    new Request(url, {
      method: "POST",
      body: "{}",
      headers: { "content-type": "application/json" },
    }),
  );
  assert.notDeepEqual(other.problems, []);
  assert.equal(other.res.status, 415, "an undocumented media type is refused as documented");
  await other.res.body?.cancel();
});
