/**
 * Required controls (issue 35) over HTTP: the vendor marks a control required through the
 * control API (bad input is a 400 that changes nothing); a control that never reported and is
 * not required leaves the headline's verdict with what reported; a required one makes it
 * "Not reported: <name> (required)", recorded at the next publication, in trust.json, the HTML
 * and Markdown pages and the trust center; a published version keeps what it recorded.
 */
import assert from "node:assert/strict";
import { auditCommits } from "../support/commit_audit.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import {
  collector,
  evidenceItem,
  publishVersion,
  type Workspace,
  workspace,
} from "../support/fixtures.ts";

interface Control {
  id: string;
  key: string;
  publicName: string;
  required: boolean;
}

async function controls(ctx: TestApp, ws: Workspace): Promise<Control[]> {
  const res = await ctx.call("GET", `/projects/${ws.project.id}/controls`, { token: ws.token });
  assert.equal(res.status, 200);
  return (await res.json()).controls;
}

async function patch(ctx: TestApp, ws: Workspace, id: string, json: unknown): Promise<Response> {
  return await ctx.call("PATCH", `/projects/${ws.project.id}/controls/${id}`, {
    token: ws.token,
    json,
  });
}

/** The latest page's headline (state class and title) and the Markdown's first line. */
async function headlines(ctx: TestApp, path: string) {
  const html = await (await ctx.call("GET", `${path}.html`)).text();
  const m = /<div class="overall s-([a-z]+)">[\s\S]*?<p class="state">([^<]*)<\/p>/.exec(html);
  assert.ok(m, "the page has a headline");
  const md = await (await ctx.call("GET", `${path}.md`)).text();
  return { state: m[1], title: m[2], md: md.split("\n")[2], html };
}

Deno.test("[http] required controls: set through the control API, counted in the headline's verdict", async () => {
  let audit: ReturnType<typeof auditCommits> | undefined;
  await using ctx = await createTestApp({ wrapKv: (kv) => (audit = auditCommits(kv)).kv });
  const ws = await workspace(ctx, "alice", { projectSlug: "acme", visibility: "public" });
  const { secret } = await collector(ctx, ws);
  const res = await ctx.call("POST", "/ingest/evidence", {
    headers: { authorization: `Bearer ${secret}` },
    json: {
      projectId: ws.project.id,
      ...evidenceItem(ctx, { summary: { critical: 0, high: 0, medium: 1 } }, {
        evidenceType: "vulnerability_scan",
        minutesAgo: 5,
      }),
    },
  });
  assert.ok(res.status === 200 || res.status === 201, await res.clone().text());
  await res.body?.cancel();

  const catalog = await controls(ctx, ws);
  assert.ok(catalog.every((c) => c.required === false), "no control is required by default");
  const policy = catalog.find((c) => c.key === "evidence.policy_result")!;

  // Bad input: a 400 in the error envelope, and nothing changes.
  for (const body of [{ required: "yes" }, { required: null }, { required: 1 }]) {
    const bad = await patch(ctx, ws, policy.id, body);
    assert.equal(bad.status, 400, JSON.stringify(body));
    const error = (await bad.json()).error;
    assert.equal(typeof error.code, "string");
    assert.equal(typeof error.message, "string");
  }
  const missing = await patch(ctx, ws, crypto.randomUUID(), { required: true });
  assert.equal(missing.status, 404);
  await missing.body?.cancel();
  assert.ok((await controls(ctx, ws)).every((c) => c.required === false), "unchanged");

  // Version 1: four controls never reported, none required: the verdict is what reported.
  assert.equal(await publishVersion(ctx, ws), 1);
  const v1 = await (await ctx.call("GET", "/trust/acme/trust.json")).json();
  const reported = v1.summary.totalControls - v1.summary.unknownCount;
  assert.ok(v1.summary.unknownCount > 0 && reported > 0);
  assert.equal(v1.summary.passCount, reported, "every reported control passes");
  assert.equal(v1.summary.overallState, "unknown", "trust.json keeps the evaluator's rule");
  assert.equal(v1.summary.verdict, "pass");
  assert.equal(v1.summary.requiredUnknownCount, 0);
  const first = await headlines(ctx, "/trust/acme");
  assert.equal(first.state, "pass");
  assert.equal(first.title, `All ${reported} reported controls pass`);
  assert.equal(first.md.startsWith(`**All ${reported} reported controls pass.**`), true, first.md);
  const v1Bytes = await (await ctx.call("GET", "/trust/acme/versions/1/trust.json")).text();

  // Marking it required: the control API answers it, and the commit carries its public touch.
  const touched = audit!.touched;
  const marked = await patch(ctx, ws, policy.id, { required: true });
  assert.equal(marked.status, 200);
  assert.equal((await marked.json()).control.required, true);
  assert.deepEqual(audit!.missing, []);
  assert.ok(audit!.touched > touched, "the change is a public write with its touch");
  assert.equal((await controls(ctx, ws)).find((c) => c.id === policy.id)!.required, true);

  // Version 2 records the mark: the headline names the required control not reported.
  assert.equal(await publishVersion(ctx, ws), 2);
  const v2 = await (await ctx.call("GET", "/trust/acme/trust.json")).json();
  assert.equal(v2.summary.verdict, "unknown");
  assert.equal(v2.summary.requiredUnknownCount, 1);
  const required = v2.controls.filter((c: { required?: boolean }) => c.required === true);
  assert.deepEqual(required.map((c: { key: string }) => c.key), [policy.key]);
  assert.equal(required[0].state, "unknown");
  const second = await headlines(ctx, "/trust/acme");
  assert.equal(second.state, "unknown");
  assert.equal(second.title, `Not reported: ${policy.publicName} (required)`);
  assert.ok(second.md.startsWith(`**Not reported: ${policy.publicName} \\(required\\).**`));
  assert.ok(second.md.includes(`${v2.summary.unknownCount} not reported, 1 required`));
  assert.ok(second.html.includes("Required by the vendor"));

  // The trust center's line follows the latest version's verdict (JSON, HTML, Markdown).
  const slug = ws.organization.slug;
  const center = await (await ctx.call("GET", `/public/trust/${slug}`, {
    headers: { accept: "application/json" },
  })).json();
  assert.equal(center.projects[0].summary.verdict, "unknown");
  const centerHtml = await (await ctx.call("GET", `/public/trust/${slug}`, {
    headers: { accept: "text/html" },
  })).text();
  assert.match(centerHtml, /<span class="pill s-unknown">/);
  assert.ok(centerHtml.includes("not reported, 1 required"));
  const centerMd = await (await ctx.call("GET", `/public/trust/${slug}`, {
    headers: { accept: "text/markdown" },
  })).text();
  assert.ok(centerMd.includes("| unknown |"), centerMd);

  // Version 1 keeps what it recorded, byte for byte.
  assert.equal(await (await ctx.call("GET", "/trust/acme/versions/1/trust.json")).text(), v1Bytes);

  // Unmarked again: the next version's verdict is what reported.
  const unmarked = await patch(ctx, ws, policy.id, { required: false });
  assert.equal(unmarked.status, 200);
  await unmarked.body?.cancel();
  assert.equal(await publishVersion(ctx, ws), 3);
  const v3 = await (await ctx.call("GET", "/trust/acme/trust.json")).json();
  assert.equal(v3.summary.verdict, "pass");
  assert.ok(v3.controls.every((c: object) => !("required" in c)));
  const third = await headlines(ctx, "/trust/acme");
  assert.equal(third.state, "pass");
  const centerAgain = await (await ctx.call("GET", `/public/trust/${slug}`, {
    headers: { accept: "application/json" },
  })).json();
  assert.equal(centerAgain.projects[0].summary.verdict, "pass");
  assert.deepEqual(audit!.missing, []);
});

Deno.test("[http] a custom control can be created required; a bad value is refused", async () => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "bob", { projectSlug: "bobco", visibility: "public" });
  const body = {
    key: "custom.sbom_signed",
    publicName: "Signed SBOM",
    evidenceType: "sbom",
  };
  const bad = await ctx.call("POST", `/projects/${ws.project.id}/controls`, {
    token: ws.token,
    json: { ...body, required: "true" },
  });
  assert.equal(bad.status, 400);
  await bad.body?.cancel();
  assert.ok(!(await controls(ctx, ws)).some((c) => c.key === body.key), "nothing was created");
  const created = await ctx.call("POST", `/projects/${ws.project.id}/controls`, {
    token: ws.token,
    json: { ...body, required: true },
  });
  assert.equal(created.status, 201);
  assert.equal((await created.json()).control.required, true);
  const plain = await ctx.call("POST", `/projects/${ws.project.id}/controls`, {
    token: ws.token,
    json: { ...body, key: "custom.other", publicName: "Other" },
  });
  assert.equal((await plain.json()).control.required, false);

  // Nothing reported at all, one control required: the headline names it.
  assert.equal(await publishVersion(ctx, ws), 1);
  const profile = await (await ctx.call("GET", "/trust/bobco/trust.json")).json();
  assert.equal(profile.summary.requiredUnknownCount, 1);
  const page = await headlines(ctx, "/trust/bobco");
  assert.equal(page.state, "unknown");
  assert.equal(page.title, "Not reported: Signed SBOM (required)");
});
