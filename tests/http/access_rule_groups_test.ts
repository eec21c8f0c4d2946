/**
 * Rule groups (issue 35, docs/ads.md): a rule for one project's restricted documents decides
 * them; a document's own rule goes before it and it goes before the trust center's rule for
 * every restricted document; the buyer's explanation names the rule that decided; bad input is
 * a 4xx in the envelope and changes nothing; the rule goes with its project.
 */
import assert from "node:assert/strict";
import { createTestApp, snapshotKv, type TestApp } from "../support/app.ts";
import { documentsWorkspace, makePdf, upload } from "../support/documents.ts";
import { tokenHash } from "../../src/serve/buyers.ts";
import { saveBuyerSignIn } from "../../src/store/buyers.ts";
import { projectKeys } from "../../src/store/tenant_keys.ts";

interface Decision {
  documentId: string;
  outcome: string;
  explanation: string;
}

async function setUp(ctx: TestApp) {
  const ws = await documentsWorkspace(ctx);
  const doc = async (title: string, projectId?: string) =>
    (await (await upload(ctx, ws.orgId, {
      token: ws.owner,
      bytes: await makePdf(title),
      query: `title=${encodeURIComponent(title)}${projectId ? `&projectId=${projectId}` : ""}`,
    })).json()).document.id as string;
  const soc2 = await doc("SOC 2 report", ws.projectId);
  const pentest = await doc("Pen test", ws.projectId);
  const policy = await doc("Security policy");
  const nda = await ctx.call("PUT", `/organizations/${ws.orgId}/nda`, {
    token: ws.owner,
    json: { text: "Keep it to yourselves." },
  });
  assert.equal(nda.status, 200);
  await nda.body?.cancel();
  return { ...ws, soc2, pentest, policy };
}

let n = 0;
/** A buyer session of `email`: its sign-in link stored as the emailed one would be. */
async function buyer(ctx: TestApp, orgId: string, orgSlug: string, email: string) {
  const token = String(n++).padStart(43, "g");
  await saveBuyerSignIn(ctx.kv, orgId, tokenHash(token), {
    email,
    createdAt: ctx.clock.now().toISOString(),
  }, 600_000);
  const res = await ctx.call("POST", `/public/trust/${orgSlug}/buyer/sessions`, {
    json: { token },
  });
  assert.equal(res.status, 201, await res.clone().text());
  const bearer = (await res.json()).sessionToken as string;
  return async (documentIds: string[]) => {
    const asked = await ctx.call("POST", `/public/trust/${orgSlug}/buyer/access`, {
      token: bearer,
      json: { documentIds, ndaVersion: 1, acceptNda: true },
    });
    assert.equal(asked.status, 200, await asked.clone().text());
    const { decisions } = await asked.json() as { decisions: Decision[] };
    return new Map(decisions.map((d) => [d.documentId, d]));
  };
}

Deno.test("[http] rule groups: a project's rule decides its documents, below a document's own and above the trust center's", async (t) => {
  await using ctx = await createTestApp();
  const { owner, orgId, orgSlug, projectId, soc2, pentest, policy } = await setUp(ctx);
  const path = `/organizations/${orgId}/project-access-rules/${projectId}`;
  const put = (url: string, json: unknown) => ctx.call("PUT", url, { token: owner, json });

  await t.step("a project's click-through rule grants its documents at once, named", async () => {
    const set = await put(path, { mode: "click-through", expiresInDays: 7 });
    assert.equal(set.status, 200);
    const { rule } = await set.json();
    assert.equal(rule.projectId, projectId);
    assert.equal(rule.mode, "click-through");
    assert.equal(rule.expiresInDays, 7);
    const ask = await buyer(ctx, orgId, orgSlug, "ada@customer.test");
    const decided = await ask([soc2, policy]);
    assert.equal(decided.get(soc2)!.outcome, "granted");
    assert.match(
      decided.get(soc2)!.explanation,
      /^Allowed by the rule for project Acme Cloud's documents: You accepted the NDA/,
    );
    // Outside the project, the built-in default: auto-approved domains, else an owner decides.
    assert.equal(decided.get(policy)!.outcome, "pending");
    assert.match(decided.get(policy)!.explanation, /^Acme reviews requests/);
    const listed = await (await ctx.call("GET", `/organizations/${orgId}/project-access-rules`, {
      token: owner,
    })).json();
    assert.deepEqual(listed.rules.map((r: { projectName: string }) => r.projectName), [
      "Acme Cloud",
    ]);
  });

  await t.step("precedence: document > project > every restricted document", async () => {
    assert.equal(
      (await put(`/organizations/${orgId}/access-rules/${pentest}`, { mode: "manual" })).status,
      200,
    );
    const settings = await put(`/organizations/${orgId}/access-settings`, {
      denyDomains: [],
      summaryMonths: 12,
      defaultRule: { mode: "verified", buyerOrganizations: true },
    });
    assert.equal(settings.status, 200);
    await settings.body?.cancel();
    const ask = await buyer(ctx, orgId, orgSlug, "bo@second.test");
    const decided = await ask([soc2, pentest, policy]);
    // The document's own rule (manual) beats the project's click-through.
    assert.equal(decided.get(pentest)!.outcome, "pending");
    assert.match(decided.get(pentest)!.explanation, /^Under the rule for "Pen test": /);
    // The project's rule beats the trust center's.
    assert.equal(decided.get(soc2)!.outcome, "granted");
    assert.match(decided.get(soc2)!.explanation, /^Allowed by the rule for project Acme Cloud's/);
    // Outside any project rule, the trust center's rule for every restricted document.
    assert.equal(decided.get(policy)!.outcome, "granted");
    assert.match(
      decided.get(policy)!.explanation,
      /^Allowed by Acme's rule for every restricted document: second\.test is a buyer organization/,
    );
    const { rules } = await (await ctx.call("GET", `/organizations/${orgId}/access-rules`, {
      token: owner,
    })).json();
    const byTitle = Object.fromEntries(
      rules.map((r: { title: string; source: string; projectName: string | null }) => [
        r.title,
        [r.source, r.projectName],
      ]),
    );
    assert.deepEqual(byTitle, {
      "Pen test": ["document", null],
      "SOC 2 report": ["project", "Acme Cloud"],
      "Security policy": ["organization", null],
    });
    // Without its own rule, a document falls back to its project's.
    const back = await ctx.call("DELETE", `/organizations/${orgId}/access-rules/${pentest}`, {
      token: owner,
    });
    assert.equal(back.status, 200);
    assert.equal((await back.json()).rule.mode, "click-through");
    // Without the project's rule, its documents follow the trust center's.
    const removed = await ctx.call("DELETE", path, { token: owner });
    assert.equal(removed.status, 204);
    const after = await (await buyer(ctx, orgId, orgSlug, "cy@third.test"))([soc2]);
    assert.match(after.get(soc2)!.explanation, /^Allowed by Acme's rule for every restricted/);
  });

  await t.step(
    "deny lists: the project's names its rule, the trust center's its list",
    async () => {
      assert.equal(
        (await put(path, { mode: "click-through", denyDomains: ["rival.test"] })).status,
        200,
      );
      const ask = await buyer(ctx, orgId, orgSlug, "ron@rival.test");
      const decided = await ask([soc2]);
      assert.equal(decided.get(soc2)!.outcome, "denied");
      assert.match(
        decided.get(soc2)!.explanation,
        /^Refused by the rule for project Acme Cloud's documents: Acme does not share "SOC 2 report" with addresses at rival\.test/,
      );
      const settings = await put(`/organizations/${orgId}/access-settings`, {
        denyDomains: ["rival2.test"],
        summaryMonths: 12,
        defaultRule: null,
      });
      await settings.body?.cancel();
      const other = await (await buyer(ctx, orgId, orgSlug, "ro@rival2.test"))([soc2]);
      assert.equal(other.get(soc2)!.outcome, "denied");
      assert.match(
        other.get(soc2)!.explanation,
        /^Refused by Acme's deny list for every document:/,
      );
    },
  );

  await t.step("the rule goes with its project", async () => {
    const keys = [];
    for await (const key of projectKeys(ctx.kv, projectId)) keys.push(JSON.stringify(key));
    assert.ok(keys.includes(JSON.stringify(["access_project_rules", orgId, projectId])));
  });
});

Deno.test("[http] rule groups: bad input is refused in the envelope and changes nothing", async () => {
  await using ctx = await createTestApp();
  const { owner, member, stranger, orgId, projectId } = await setUp(ctx);
  // A project of another organization.
  const elsewhere = await ctx.tokenFor("elsewhere", { email: "e@else.test" });
  const boot = await (await ctx.call("POST", "/onboarding/bootstrap", {
    token: elsewhere,
    json: { workspaceName: "Else", projectName: "Else Cloud", projectVisibility: "public" },
  })).json();
  const foreign = boot.project.id as string;
  const before = await snapshotKv(ctx.kv);
  const url = (id: string) => `/organizations/${orgId}/project-access-rules/${id}`;
  const cases: [string, string, { token: string; json?: unknown }, number, string][] = [
    ["PUT", url(projectId), { token: owner, json: { mode: "public" } }, 400, "validation_failed"],
    ["PUT", url(projectId), { token: owner, json: {} }, 400, "validation_failed"],
    [
      "PUT",
      url(projectId),
      { token: owner, json: { mode: "manual", extra: 1 } },
      400,
      "validation_failed",
    ],
    [
      "PUT",
      url(projectId),
      { token: owner, json: { mode: "verified", expiresInDays: 0 } },
      400,
      "validation_failed",
    ],
    [
      "PUT",
      url(projectId),
      { token: owner, json: { mode: "verified", autoApproveDomains: ["not a domain"] } },
      400,
      "validation_failed",
    ],
    ["PUT", url("nope"), { token: owner, json: { mode: "manual" } }, 400, "validation_failed"],
    [
      "PUT",
      url(crypto.randomUUID()),
      { token: owner, json: { mode: "manual" } },
      404,
      "not_found",
    ],
    ["PUT", url(foreign), { token: owner, json: { mode: "manual" } }, 404, "not_found"],
    ["PUT", url(projectId), { token: member, json: { mode: "manual" } }, 403, "forbidden"],
    ["PUT", url(projectId), { token: stranger, json: { mode: "manual" } }, 403, "forbidden"],
    ["DELETE", url(projectId), { token: owner }, 404, "not_found"],
    ["DELETE", url(projectId), { token: member }, 403, "forbidden"],
    ["GET", `/organizations/${orgId}/project-access-rules`, { token: stranger }, 403, "forbidden"],
  ];
  for (const [method, path, options, status, code] of cases) {
    const res = await ctx.call(method, path, options);
    const label = `${method} ${path} ${JSON.stringify(options.json)}`;
    assert.equal(res.status, status, label);
    assert.equal((await res.json()).error.code, code, label);
  }
  const unauthenticated = await ctx.call("PUT", url(projectId), { json: { mode: "manual" } });
  assert.equal(unauthenticated.status, 401);
  await unauthenticated.body?.cancel();
  assert.equal(await snapshotKv(ctx.kv), before);
  // A member reads the (empty) list.
  const listed = await ctx.call("GET", `/organizations/${orgId}/project-access-rules`, {
    token: member,
  });
  assert.equal(listed.status, 200);
  assert.deepEqual((await listed.json()).rules, []);
});
