/**
 * The buyer's side (issue 35): buyer organizations founded by a verified address, colleagues
 * added by their admins who read granted documents without asking again, service tokens
 * scoped, revoked and expiring, access rules deciding at once with their reasons, one buyer
 * organization seeing nothing of another, every read in the summaries, the vendor's
 * inventory and revocation, and every key removed with the vendor's organization.
 */
import assert from "node:assert/strict";
import { createTestApp, snapshotKv, type TestApp } from "../support/app.ts";
import { documentsWorkspace, makePdf, upload } from "../support/documents.ts";
import type { MailMessage } from "../../src/mail/mod.ts";
import { recordingMailer } from "../support/recording_mailer.ts";
import { organizationKeys } from "../../src/store/tenant_keys.ts";
import { flushPageViews } from "../../src/http/page_views.ts";

const DAY = 24 * 60 * 60 * 1000;
const BUYER_COLLECTIONS = [
  "buyer_orgs",
  "buyer_members",
  "buyer_grants",
  "buyer_tokens",
  "buyer_sign_ins",
  "access_rules",
  "access_settings",
  "access_events",
  "access_summaries",
  "page_views",
];

async function setUp(ctx: TestApp) {
  const ws = await documentsWorkspace(ctx);
  const doc = async (title: string) =>
    (await (await upload(ctx, ws.orgId, {
      token: ws.owner,
      bytes: await makePdf(title),
      query: `title=${encodeURIComponent(title)}`,
    })).json()).document.id as string;
  const soc2 = await doc("SOC 2 report");
  const pentest = await doc("Pen test");
  const ssp = await doc("System security plan");
  await ctx.call("PUT", `/organizations/${ws.orgId}/nda`, {
    token: ws.owner,
    json: { text: "Keep it to yourselves." },
  });
  return { ...ws, soc2, pentest, ssp };
}

/** Signs `email` in through the emailed link; the session token and the answer. */
async function signIn(ctx: TestApp, sent: MailMessage[], slug: string, email: string) {
  const asked = await ctx.call("POST", `/public/trust/${slug}/buyer/sign-in`, { json: { email } });
  assert.equal(asked.status, 202, await asked.clone().text());
  await asked.body?.cancel();
  const mail = sent.at(-1)!;
  assert.equal(mail.to, email.toLowerCase());
  const url = mail.text.match(/http:\/\/trust\.test\/\S+#sign-in=([A-Za-z0-9_-]{43})/);
  assert.ok(url, mail.text);
  const res = await ctx.call("POST", `/public/trust/${slug}/buyer/sessions`, {
    json: { token: url[1] },
  });
  return { res, token: url[1] };
}

async function session(ctx: TestApp, sent: MailMessage[], slug: string, email: string) {
  const { res } = await signIn(ctx, sent, slug, email);
  assert.equal(res.status, 201);
  const body = await res.json();
  return { bearer: body.sessionToken as string, body };
}

Deno.test("[http] buyers: organizations, colleagues, service tokens, rules, summaries and revocation", async (t) => {
  const mail = recordingMailer();
  await using ctx = await createTestApp({ mailer: mail.mailer });
  const world = await setUp(ctx);
  const { orgId, orgSlug, soc2, pentest, ssp } = world;
  let owner = world.owner;
  const base = `/public/trust/${orgSlug}/buyer`;
  const as = (bearer: string) => ({ token: bearer });
  let admin = "";
  let colleague = "";

  await t.step("bad sign-ins are refused and store nothing", async () => {
    const before = await snapshotKv(ctx.kv);
    for (
      const json of [{ email: "x@gmail.com" }, { email: "nope" }, {}, { email: "a@b.test", x: 1 }]
    ) {
      const res = await ctx.call("POST", `${base}/sign-in`, { json });
      assert.equal(res.status, 400, JSON.stringify(json));
      assert.equal((await res.json()).error.code, "validation_failed");
    }
    const unknown = await ctx.call("POST", "/public/trust/nope/buyer/sign-in", {
      json: { email: "a@customer.test" },
    });
    assert.equal(unknown.status, 404);
    await unknown.body?.cancel();
    const badToken = await ctx.call("POST", `${base}/sessions`, {
      json: { token: "x".repeat(43) },
    });
    assert.equal(badToken.status, 401);
    await badToken.body?.cancel();
    for (const path of ["/me", "/documents", "/members", "/tokens", "/summary"]) {
      const res = await ctx.call("GET", `${base}${path}`, { token: "tpb_" + "a".repeat(43) });
      assert.equal(res.status, 401, path);
      await res.body?.cancel();
    }
    assert.equal(await snapshotKv(ctx.kv), before);
  });

  await t.step(
    "the first verified address of a domain founds its organization as admin",
    async () => {
      const { res, token } = await signIn(ctx, mail.sent, orgSlug, "Ada@Customer.test");
      assert.equal(res.status, 201);
      const body = await res.json();
      assert.equal(body.created, true);
      assert.equal(body.buyerOrganization.domain, "customer.test");
      assert.equal(body.member.role, "admin");
      assert.match(body.sessionToken, /^tpb_/);
      admin = body.sessionToken;
      // The link works once.
      const again = await ctx.call("POST", `${base}/sessions`, { json: { token } });
      assert.equal(again.status, 401);
      await again.body?.cancel();
      // The token is stored only as a hash.
      assert.ok(!(await snapshotKv(ctx.kv)).includes(admin.slice(4)));
    },
  );

  await t.step("a colleague not added is refused; added by the admin, they sign in", async () => {
    const { res } = await signIn(ctx, mail.sent, orgSlug, "bob@customer.test");
    assert.equal(res.status, 403);
    assert.match((await res.json()).error.message, /ask one of its admins to add you/);
    const wrongDomain = await ctx.call("POST", `${base}/members`, {
      ...as(admin),
      json: { email: "eve@other.test" },
    });
    assert.equal(wrongDomain.status, 400);
    await wrongDomain.body?.cancel();
    const added = await ctx.call("POST", `${base}/members`, {
      ...as(admin),
      json: { email: "bob@customer.test" },
    });
    assert.equal(added.status, 201);
    assert.equal((await added.json()).role, "member");
    colleague = (await session(ctx, mail.sent, orgSlug, "bob@customer.test")).bearer;
    // A member is not an admin.
    const notAdmin = await ctx.call("POST", `${base}/members`, {
      ...as(colleague),
      json: { email: "cy@customer.test" },
    });
    assert.equal(notAdmin.status, 403);
    await notAdmin.body?.cancel();
  });

  await t.step("rules decide at once, explained; a manual one is filed for an owner", async () => {
    const rule = (documentId: string, json: unknown) =>
      ctx.call("PUT", `/organizations/${orgId}/access-rules/${documentId}`, { token: owner, json });
    assert.equal((await rule(soc2, { mode: "click-through" })).status, 200);
    assert.equal((await rule(pentest, { mode: "manual" })).status, 200);
    assert.equal(
      (await rule(ssp, { mode: "verified", denyDomains: ["rival.test"], expiresInDays: 10 }))
        .status,
      200,
    );
    const res = await ctx.call("POST", `${base}/access`, {
      ...as(admin),
      json: { documentIds: [soc2, pentest, ssp], ndaVersion: 1, acceptNda: true },
    });
    assert.equal(res.status, 200);
    const body = await res.json();
    const byId = Object.fromEntries(
      body.decisions.map((d: { documentId: string }) => [d.documentId, d]),
    );
    assert.equal(byId[soc2].outcome, "granted");
    assert.match(byId[soc2].explanation, /You accepted the NDA/);
    assert.match(byId[soc2].explanation, /Everyone in customer\.test's buyer organization/);
    assert.equal(byId[pentest].outcome, "pending");
    assert.match(byId[pentest].explanation, /reviews requests .* by hand/);
    assert.equal(byId[ssp].outcome, "pending");
    assert.ok(body.requestId);
    const requests = await (await ctx.call("GET", `/organizations/${orgId}/access-requests`, {
      token: owner,
    })).json();
    assert.deepEqual(requests.requests[0].documentIds.sort(), [pentest, ssp].sort());
    // An owner approves: the whole buyer organization reads the pen test from now on.
    const approved = await ctx.call(
      "POST",
      `/organizations/${orgId}/access-requests/${body.requestId}/approve`,
      { token: owner, json: { expiresInDays: 20 } },
    );
    assert.equal(approved.status, 200);
    await approved.body?.cancel();
  });

  await t.step("the colleague reads granted documents without a new approval", async () => {
    const list = await (await ctx.call("GET", `${base}/documents`, as(colleague))).json();
    assert.deepEqual(
      list.documents.map((d: { title: string }) => d.title),
      ["Pen test", "SOC 2 report", "System security plan"],
    );
    const res = await ctx.call("GET", `${base}/documents/${soc2}`, as(colleague));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/pdf");
    assert.ok((await res.arrayBuffer()).byteLength > 100);
    const members = await (await ctx.call("GET", `${base}/members`, as(admin))).json();
    assert.deepEqual(members.members.map((m: { email: string }) => m.email), [
      "ada@customer.test",
      "bob@customer.test",
    ]);
    assert.equal(members.members[1].canRead.length, 3);
  });

  let toolSecret = "";
  await t.step(
    "a service token reads within its scope; refused outside it, revoked or expired",
    async () => {
      const outside = await ctx.call("POST", `${base}/tokens`, {
        ...as(admin),
        json: { name: "GRC", documentIds: [crypto.randomUUID()] },
      });
      assert.equal(outside.status, 400);
      await outside.body?.cancel();
      const byMember = await ctx.call("POST", `${base}/tokens`, {
        ...as(colleague),
        json: { name: "GRC" },
      });
      assert.equal(byMember.status, 403);
      await byMember.body?.cancel();
      const created = await ctx.call("POST", `${base}/tokens`, {
        ...as(admin),
        json: { name: "GRC platform", documentIds: [soc2], expiresInDays: 5 },
      });
      assert.equal(created.status, 201);
      const { secret, token } = await created.json();
      toolSecret = secret;
      assert.equal(token.kind, "service");
      const list = await (await ctx.call("GET", `${base}/documents`, as(secret))).json();
      assert.deepEqual(list.documents.map((d: { id: string }) => d.id), [soc2]);
      const ok = await ctx.call("GET", `${base}/documents/${soc2}`, as(secret));
      assert.equal(ok.status, 200);
      await ok.body?.cancel();
      const refused = await ctx.call("GET", `${base}/documents/${pentest}`, as(secret));
      assert.equal(refused.status, 404);
      await refused.body?.cancel();
      // A service token reads; it cannot ask or manage.
      for (
        const [method, path, json] of [
          ["POST", "/access", { documentIds: [pentest], ndaVersion: 1, acceptNda: true }],
          ["POST", "/tokens", { name: "more" }],
          ["GET", "/members", undefined],
        ] as const
      ) {
        const res = await ctx.call(method, `${base}${path}`, { ...as(secret), json });
        assert.equal(res.status, 403, path);
        await res.body?.cancel();
      }
      const tokens = await (await ctx.call("GET", `${base}/tokens`, as(admin))).json();
      assert.equal(tokens.tokens.length, 1);
      assert.ok(!JSON.stringify(tokens).includes(secret.slice(4)));
      // Revoked: refused at once.
      const second = await (await ctx.call("POST", `${base}/tokens`, {
        ...as(admin),
        json: { name: "Second" },
      })).json();
      const revoked = await ctx.call("DELETE", `${base}/tokens/${second.token.id}`, as(admin));
      assert.equal(revoked.status, 204);
      const after = await ctx.call("GET", `${base}/documents`, as(second.secret));
      assert.equal(after.status, 401);
      assert.match((await after.json()).error.message, /revoked/);
    },
  );

  await t.step("another buyer organization sees nothing of the first", async () => {
    const other = await session(ctx, mail.sent, orgSlug, "olga@other.test");
    assert.equal(other.body.created, true);
    assert.deepEqual(other.body.grants, []);
    const list = await (await ctx.call("GET", `${base}/documents`, as(other.bearer))).json();
    assert.deepEqual(list.documents, []);
    const res = await ctx.call("GET", `${base}/documents/${soc2}`, as(other.bearer));
    assert.equal(res.status, 404);
    await res.body?.cancel();
    const members = await (await ctx.call("GET", `${base}/members`, as(other.bearer))).json();
    assert.deepEqual(members.members.map((m: { email: string }) => m.email), ["olga@other.test"]);
    const removal = await ctx.call(
      "DELETE",
      `${base}/members/bob%40customer.test`,
      as(other.bearer),
    );
    assert.equal(removal.status, 404);
    await removal.body?.cancel();
    const revoke = await ctx.call(
      "DELETE",
      `${base}/tokens/${crypto.randomUUID()}`,
      as(other.bearer),
    );
    assert.equal(revoke.status, 404);
    await revoke.body?.cancel();
    const summary = await (await ctx.call("GET", `${base}/summary`, as(other.bearer))).json();
    assert.deepEqual(summary.rows, []);
    // Its own summary holds its own reads only.
    const own = await (await ctx.call("GET", `${base}/summary`, as(admin))).json();
    assert.ok(own.rows.length > 0);
    assert.ok(own.rows.every((r: { domain: string }) => r.domain === "customer.test"));
  });

  await t.step(
    "deny lists and verified domains and buyer organizations decide as stated",
    async () => {
      const rival = await session(ctx, mail.sent, orgSlug, "ron@rival.test");
      const ask = (bearer: string, documentIds: string[]) =>
        ctx.call("POST", `${base}/access`, {
          ...as(bearer),
          json: { documentIds, ndaVersion: 1, acceptNda: true },
        }).then((r) => r.json());
      const denied = await ask(rival.bearer, [ssp]);
      assert.equal(denied.decisions[0].outcome, "denied");
      assert.match(
        denied.decisions[0].explanation,
        /does not share "System security plan" with addresses at rival\.test/,
      );
      assert.equal(denied.requestId, null);
      // The organization-wide deny list refuses even a click-through document.
      await ctx.call("PUT", `/organizations/${orgId}/access-settings`, {
        token: owner,
        json: { denyDomains: ["rival.test"], summaryMonths: 12 },
      });
      assert.equal((await ask(rival.bearer, [soc2])).decisions[0].outcome, "denied");
      // The trust center's rule for every document without its own: a new document follows it.
      const newDoc = (await (await upload(ctx, orgId, {
        token: owner,
        bytes: await makePdf("Bridge letter"),
        query: "title=Bridge%20letter",
      })).json()).document.id as string;
      await ctx.call("PUT", `/organizations/${orgId}/access-settings`, {
        token: owner,
        json: {
          denyDomains: ["rival.test"],
          summaryMonths: 12,
          defaultRule: { mode: "verified", buyerOrganizations: true, expiresInDays: 3 },
        },
      });
      const other0 = await session(ctx, mail.sent, orgSlug, "olga@other.test");
      const byGroup = await ask(other0.bearer, [newDoc]);
      assert.equal(byGroup.decisions[0].outcome, "granted");
      assert.match(byGroup.decisions[0].explanation, /every buyer organization at once/);
      const rules = await (await ctx.call("GET", `/organizations/${orgId}/access-rules`, {
        token: owner,
      })).json();
      const bridge = rules.rules.find((r: { title: string }) => r.title === "Bridge letter");
      assert.equal(bridge.mode, "verified");
      assert.equal(bridge.buyerOrganizations, true);
      await ctx.call("PUT", `/organizations/${orgId}/access-settings`, {
        token: owner,
        json: { denyDomains: ["rival.test"], summaryMonths: 12, defaultRule: null },
      });
      // Verified domain: granted at once; buyer organizations: every existing one.
      const other = await session(ctx, mail.sent, orgSlug, "olga@other.test");
      await ctx.call("PUT", `/organizations/${orgId}/access-rules/${pentest}`, {
        token: owner,
        json: { mode: "verified", autoApproveDomains: ["other.test"] },
      });
      const verified = await ask(other.bearer, [pentest]);
      assert.equal(verified.decisions[0].outcome, "granted");
      assert.match(verified.decisions[0].explanation, /Your address at other\.test is verified/);
      await ctx.call("PUT", `/organizations/${orgId}/access-rules/${ssp}`, {
        token: owner,
        json: { mode: "verified", buyerOrganizations: true, expiresInDays: 3 },
      });
      const asBuyer = await ask(other.bearer, [ssp]);
      assert.equal(asBuyer.decisions[0].outcome, "granted");
      assert.match(asBuyer.decisions[0].explanation, /is a buyer organization of Acme/);
      // Expiry and renewal: after 3 days the grant is gone; asking again renews it.
      ctx.clock.advance(4 * DAY);
      const fresh = await session(ctx, mail.sent, orgSlug, "olga@other.test");
      const listed = await (await ctx.call("GET", `${base}/documents`, as(fresh.bearer))).json();
      assert.deepEqual(listed.documents.map((d: { id: string }) => d.id), [pentest]);
      const renewed = await ask(fresh.bearer, [ssp]);
      assert.equal(renewed.decisions[0].outcome, "granted");
      assert.equal(
        renewed.decisions[0].expiresAt,
        new Date(ctx.clock.now().getTime() + 3 * DAY).toISOString(),
      );
      // The service token of customer.test expired (5 days); the owner's access token too.
      ctx.clock.advance(2 * DAY);
      owner = await ctx.tokenFor("owner", { email: "owner@acme.test" });
      const expired = await ctx.call("GET", `${base}/documents`, as(toolSecret));
      assert.equal(expired.status, 401);
      await expired.body?.cancel();
    },
  );

  await t.step(
    "every read lands in the vendor's summaries, by month, organization, person and document",
    async () => {
      const summary = await (await ctx.call("GET", `/organizations/${orgId}/access-summaries`, {
        token: owner,
      })).json();
      const bob = summary.rows.find((r: { person: string; documentId: string }) =>
        r.person === "bob@customer.test" && r.documentId === soc2
      );
      assert.equal(bob.views, 1);
      assert.equal(bob.downloads, 1);
      assert.equal(bob.month, "2026-11");
      const tool = summary.rows.find((r: { person: string }) => r.person === "token:GRC platform");
      assert.equal(tool.downloads, 1);
      assert.ok(summary.byOrganization.some((t: { key: string }) => t.key === "other.test"));
      assert.ok(summary.byDocument.some((t: { key: string }) => t.key === "SOC 2 report"));
      assert.equal(summary.keptMonths, 12);
      const csv = await ctx.call("GET", `/organizations/${orgId}/access-summaries?format=csv`, {
        token: owner,
      });
      assert.equal(csv.status, 200);
      assert.match(csv.headers.get("content-type")!, /text\/csv/);
      const text = await csv.text();
      assert.match(text, /^month,organization,person,document_id,document,views,downloads\r\n/);
      assert.match(
        text,
        /2026-11,customer\.test,bob@customer\.test,[0-9a-f-]{36},SOC 2 report,1,1/,
      );
      const chart = await ctx.call("GET", `/organizations/${orgId}/access-summaries/chart.svg`, {
        token: owner,
      });
      assert.equal(chart.status, 200);
      assert.match(await chart.text(), /<title>2026-11: \d+ downloads<\/title>/);
      const events = await (await ctx.call("GET", `/organizations/${orgId}/access-events`, {
        token: owner,
      })).json();
      assert.ok(
        events.events.some((e: { kind: string; via: string }) =>
          e.kind === "download" && e.via === "service"
        ),
      );
      // Members read it; a stranger does not; retention below six months is refused.
      const short = await ctx.call("PUT", `/organizations/${orgId}/access-settings`, {
        token: owner,
        json: { denyDomains: [], summaryMonths: 5 },
      });
      assert.equal(short.status, 400);
      await short.body?.cancel();
    },
  );

  await t.step(
    "the vendor's inventory lists each organization; revoking ends its access",
    async () => {
      const inventory =
        await (await ctx.call("GET", `/organizations/${orgId}/buyer-organizations`, {
          token: owner,
        })).json();
      const customer = inventory.buyerOrganizations.find((
        b: { buyerOrganization: { domain: string } },
      ) => b.buyerOrganization.domain === "customer.test");
      assert.equal(customer.members.length, 2);
      assert.equal(customer.serviceTokens.length, 2);
      assert.ok(customer.grants.length >= 2);
      const revoked = await ctx.call(
        "POST",
        `/organizations/${orgId}/buyer-organizations/customer.test/revoke`,
        { token: owner },
      );
      assert.equal(revoked.status, 200);
      await revoked.body?.cancel();
      const after = await ctx.call("GET", `${base}/documents`, as(colleague));
      assert.equal(after.status, 401);
      await after.body?.cancel();
      const { res } = await signIn(ctx, mail.sent, orgSlug, "ada@customer.test");
      assert.equal(res.status, 403);
      assert.match((await res.json()).error.message, /revoked the access of customer\.test/);
      const byMember = await ctx.call(
        "POST",
        `/organizations/${orgId}/buyer-organizations/other.test/revoke`,
        { token: await ctx.tokenFor("member", { email: "member@acme.test" }) },
      );
      assert.equal(byMember.status, 403);
      await byMember.body?.cancel();
    },
  );

  await t.step(
    "every buyer key belongs to the vendor's organization (removed with it)",
    async () => {
      const owned = new Set<string>();
      for await (const key of organizationKeys(ctx.kv, orgId)) owned.add(JSON.stringify(key));
      let count = 0;
      for (const collection of BUYER_COLLECTIONS) {
        for await (const entry of ctx.kv.list({ prefix: [collection] })) {
          count++;
          assert.ok(owned.has(JSON.stringify(entry.key)), JSON.stringify(entry.key));
        }
      }
      assert.ok(count > 20, `only ${count} buyer keys`);
    },
  );
});

Deno.test("[http] buyers: without email no address can be verified", async () => {
  await using ctx = await createTestApp();
  const { orgSlug } = await documentsWorkspace(ctx);
  const res = await ctx.call("POST", `/public/trust/${orgSlug}/buyer/sign-in`, {
    json: { email: "ada@customer.test" },
  });
  assert.equal(res.status, 409);
  assert.match((await res.json()).error.message, /cannot send email/);
});

Deno.test("[http] buyers: anonymous page views are counted per page and day, nothing else kept", async () => {
  await using ctx = await createTestApp();
  const { owner, orgId, orgSlug } = await documentsWorkspace(ctx);
  const html = { headers: { accept: "text/html" } };
  for (const path of ["", "", "/documents", "/buyer/me"]) {
    const res = await ctx.call("GET", `/public/trust/${orgSlug}${path}`, {
      ...html,
      headers: { ...html.headers, "x-forwarded-for": "203.0.113.9", cookie: "a=b" },
    });
    assert.equal(res.headers.get("set-cookie"), null);
    await res.body?.cancel();
  }
  await flushPageViews(ctx.services);
  const views = await (await ctx.call("GET", `/organizations/${orgId}/page-views`, {
    token: owner,
  })).json();
  assert.deepEqual(views.views, [
    { day: "2026-11-01", path: `/public/trust/${orgSlug}`, views: 2 },
    { day: "2026-11-01", path: `/public/trust/${orgSlug}/documents`, views: 1 },
  ]);
  // A counter is a number under its path and day: no address, agent or cookie stored.
  for await (const entry of ctx.kv.list({ prefix: ["page_views"] })) {
    assert.equal(entry.key.length, 4);
    assert.ok(entry.value instanceof Deno.KvU64);
  }
  assert.ok(!(await snapshotKv(ctx.kv)).includes("203.0.113.9"));
  const stranger = await ctx.tokenFor("stranger", { email: "stranger@else.test" });
  const refused = await ctx.call("GET", `/organizations/${orgId}/page-views`, { token: stranger });
  assert.equal(refused.status, 403);
  await refused.body?.cancel();
});

Deno.test("[http] buyers: a project's withdrawal takes its documents off grants and access links at once (410, no-store)", async () => {
  const mail = recordingMailer();
  await using ctx = await createTestApp({ mailer: mail.mailer });
  const { owner, orgId, orgSlug, projectId, soc2 } = await setUp(ctx);
  const uploaded = await upload(ctx, orgId, {
    token: owner,
    bytes: await makePdf("Project pen test"),
    query: `title=Project%20pen%20test&projectId=${projectId}`,
  });
  assert.equal(uploaded.status, 201, await uploaded.clone().text());
  const projectDoc: string = (await uploaded.json()).document.id;
  for (const documentId of [soc2, projectDoc]) {
    const rule = await ctx.call("PUT", `/organizations/${orgId}/access-rules/${documentId}`, {
      token: owner,
      json: { mode: "click-through" },
    });
    assert.equal(rule.status, 200);
    await rule.body?.cancel();
  }
  const base = `/public/trust/${orgSlug}/buyer`;
  const { bearer } = await session(ctx, mail.sent, orgSlug, "ada@customer.test");
  const asked = await ctx.call("POST", `${base}/access`, {
    token: bearer,
    json: { documentIds: [soc2, projectDoc], ndaVersion: 1, acceptNda: true },
  });
  assert.equal(asked.status, 200);
  await asked.body?.cancel();
  // A visitor's access link to the project's document, approved by an owner.
  const request = await (await ctx.call("POST", `/public/trust/${orgSlug}/access-requests`, {
    json: {
      name: "Vera Visitor",
      email: "vera@other.test",
      company: "Other Inc",
      documentIds: [projectDoc],
      ndaVersion: 1,
      acceptNda: true,
    },
  })).json();
  const approved = await (await ctx.call(
    "POST",
    `/organizations/${orgId}/access-requests/${request.id}/approve`,
    { token: owner, json: {} },
  )).json();
  const link = new URL(approved.link.url).pathname;
  const titles = async () =>
    (await (await ctx.call("GET", `${base}/documents`, { token: bearer })).json()).documents
      .map((d: { title: string }) => d.title);
  const status = async (path: string, token?: string) => {
    const res = await ctx.call("GET", path, { token });
    await res.body?.cancel();
    return res.status;
  };
  assert.deepEqual(await titles(), ["Project pen test", "SOC 2 report"]);
  assert.equal(await status(`${base}/documents/${projectDoc}`, bearer), 200);
  assert.equal(await status(`${link}/${projectDoc}`), 200);

  const project = await (await ctx.call("GET", `/projects/${projectId}`, { token: owner })).json();
  const scheduled = await ctx.call("POST", `/projects/${projectId}/deletion`, {
    token: owner,
    json: { confirm: project.project?.slug ?? project.slug },
  });
  assert.equal(scheduled.status, 202, await scheduled.clone().text());
  await scheduled.body?.cancel();

  assert.deepEqual(
    await titles(),
    ["SOC 2 report"],
    "the withdrawn project's document is not listed",
  );
  const byToken = await ctx.call("GET", `${base}/documents/${projectDoc}`, { token: bearer });
  assert.equal(byToken.status, 410);
  assert.equal(byToken.headers.get("cache-control"), "no-store");
  const envelope = await byToken.json();
  assert.equal(envelope.error.code, "gone");
  assert.match(envelope.error.message, /scheduled/i);
  assert.equal(await status(`${base}/documents/${soc2}`, bearer), 200, "the rest still reads");
  const byLink = await ctx.call("GET", `${link}/${projectDoc}`);
  assert.equal(byLink.status, 410);
  assert.match(byLink.headers.get("cache-control") ?? "", /no-store/);
  assert.match(await byLink.text(), /Scheduled for deletion/);
  const page = await (await ctx.call("GET", link)).text();
  assert.doesNotMatch(page, /Project pen test/, "the link's page no longer offers it");
});
