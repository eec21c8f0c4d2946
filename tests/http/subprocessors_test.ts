import assert from "node:assert/strict";
import { createTestApp, snapshotKv, TEST_BASE_URL } from "../support/app.ts";
import { team } from "../support/fixtures.ts";

const AWS = {
  name: "Amazon Web Services",
  purpose: "Cloud hosting",
  location: "Ireland",
  website: "https://aws.amazon.com",
};
const EVIL = {
  name: "<script>alert(1)</script> Mail",
  purpose: "Email *delivery* | [x](javascript:alert(1))",
  location: "United States",
  website: "https://mail.example",
};

Deno.test("[http] subprocessors: owners change, members read, history and public list", async (t) => {
  await using ctx = await createTestApp();
  const { owner, member, stranger, orgId, orgSlug } = await team(ctx);
  const path = `/organizations/${orgId}/subprocessors`;
  const publicPath = `/public/trust/${orgSlug}/subprocessors`;
  let awsId = "";

  await t.step("an empty list reads for members; 401 and 403 otherwise", async () => {
    for (const token of [owner, member]) {
      const res = await ctx.call("GET", path, { token });
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { subprocessors: [], history: [] });
    }
    assert.equal((await ctx.call("GET", path)).status, 401);
    assert.equal((await ctx.call("GET", path, { token: stranger })).status, 403);
    const unknown = `/organizations/${crypto.randomUUID()}/subprocessors`;
    assert.equal((await ctx.call("GET", unknown, { token: owner })).status, 403);
  });

  await t.step("an owner adds them", async () => {
    const res = await ctx.call("POST", path, { token: owner, json: { ...AWS, name: "  AWS  " } });
    assert.equal(res.status, 201);
    const { subprocessor } = await res.json();
    assert.equal(subprocessor.name, "AWS");
    assert.equal(subprocessor.website, AWS.website);
    assert.equal(subprocessor.addedAt, subprocessor.updatedAt);
    awsId = subprocessor.id;
    assert.equal((await ctx.call("POST", path, { token: owner, json: EVIL })).status, 201);
  });

  await t.step("refusals and bad input change nothing", async () => {
    const item = `${path}/${awsId}`;
    const before = await snapshotKv(ctx.kv);
    const attempts: [string, string, string, unknown, number][] = [
      ["POST", path, "", AWS, 401],
      ["POST", path, stranger, AWS, 403],
      ["POST", path, member, AWS, 403],
      ["POST", `/organizations/${crypto.randomUUID()}/subprocessors`, owner, AWS, 403],
      ["POST", path, owner, { ...AWS, website: "http://aws.example" }, 400],
      ["POST", path, owner, { ...AWS, website: "javascript:alert(1)" }, 400],
      ["POST", path, owner, { ...AWS, name: "" }, 400],
      ["POST", path, owner, { ...AWS, name: "x".repeat(201) }, 400],
      ["POST", path, owner, { ...AWS, name: "two\nlines" }, 400],
      ["POST", path, owner, { ...AWS, purpose: "x".repeat(501) }, 400],
      ["POST", path, owner, { ...AWS, location: "bell\u0007" }, 400],
      ["POST", path, owner, { ...AWS, extra: true }, 400],
      ["POST", path, owner, { name: "Only a name" }, 400],
      ["POST", path, owner, [AWS], 400],
      ["PATCH", item, "", { purpose: "x" }, 401],
      ["PATCH", item, stranger, { purpose: "x" }, 403],
      ["PATCH", item, member, { purpose: "x" }, 403],
      ["PATCH", item, owner, {}, 400],
      ["PATCH", item, owner, { website: "ftp://aws.example" }, 400],
      ["PATCH", `${path}/${crypto.randomUUID()}`, owner, { purpose: "x" }, 404],
      ["PATCH", `${path}/not-a-uuid`, owner, { purpose: "x" }, 400],
      ["DELETE", item, "", undefined, 401],
      ["DELETE", item, stranger, undefined, 403],
      ["DELETE", item, member, undefined, 403],
      ["DELETE", `${path}/${crypto.randomUUID()}`, owner, undefined, 404],
    ];
    for (const [method, url, token, json, status] of attempts) {
      const res = await ctx.call(method, url, { token: token || undefined, json });
      assert.equal(res.status, status, `${method} ${url} ${JSON.stringify(json)}`);
      assert.ok((await res.json()).error.message);
    }
    const malformed = await ctx.call("POST", path, {
      token: owner,
      body: "{not json",
      headers: { "content-type": "application/json" },
    });
    assert.equal(malformed.status, 400);
    assert.equal(await snapshotKv(ctx.kv), before);
  });

  await t.step("an owner changes and removes; the history says who, when and what", async () => {
    const changed = await ctx.call("PATCH", `${path}/${awsId}`, {
      token: owner,
      json: { location: "Ireland, Germany" },
    });
    assert.equal(changed.status, 200);
    assert.equal((await changed.json()).subprocessor.location, "Ireland, Germany");
    const same = await ctx.call("PATCH", `${path}/${awsId}`, {
      token: owner,
      json: { location: "Ireland, Germany" },
    });
    assert.equal(same.status, 200);
    const removed = await ctx.call("DELETE", `${path}/${awsId}`, { token: owner });
    assert.equal(removed.status, 200);
    assert.equal((await removed.json()).subprocessor.name, "AWS");
    assert.equal((await ctx.call("DELETE", `${path}/${awsId}`, { token: owner })).status, 404);

    const { subprocessors, history } = await (await ctx.call("GET", path, { token: member }))
      .json();
    assert.deepEqual(subprocessors.map((s: { name: string }) => s.name), [EVIL.name]);
    assert.deepEqual(
      history.map((e: { action: string; name: string }) => `${e.action} ${e.name}`),
      ["removed AWS", "changed AWS", `added ${EVIL.name}`, "added AWS"],
      "newest first; a change that changes nothing is not recorded",
    );
    const [gone, change] = history;
    assert.equal(gone.after, null);
    assert.equal(gone.before.location, "Ireland, Germany");
    assert.equal(change.before.location, "Ireland");
    assert.equal(change.after.location, "Ireland, Germany");
    for (const event of history) {
      assert.equal(event.actor.email, "owner@acme.test");
      assert.equal(event.at, "2026-11-01T12:00:00.000Z");
    }
  });

  await t.step("the public JSON lists them and the history, without who", async () => {
    const res = await ctx.call("GET", publicPath);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    const body = await res.json();
    assert.equal(body.organization.slug, orgSlug);
    assert.equal(body.url, `${TEST_BASE_URL}${publicPath}`);
    assert.deepEqual(body.subprocessors.map((s: { name: string }) => s.name), [EVIL.name]);
    assert.equal(body.history.length, 4);
    assert.ok(!JSON.stringify(body).includes("owner@acme.test"), "who is not public");
    const member = await (await ctx.call("GET", path, { token: owner })).json();
    assert.deepEqual(
      body.history,
      member.history.map(({ actor: _, ...event }: Record<string, unknown>) => event),
    );
  });

  await t.step("Markdown by .md and by Accept, escaped", async () => {
    const md = await ctx.call("GET", `${publicPath}.md`);
    assert.equal(md.status, 200);
    assert.match(md.headers.get("content-type") ?? "", /^text\/markdown/);
    const text = await md.text();
    assert.match(text, /^# Acme: subprocessors/);
    assert.ok(text.includes("removed") || text.includes("Removed"));
    assert.ok(!text.includes("<script>"), "vendor text is escaped");
    assert.ok(!text.includes("](javascript:"), "no live link from vendor text");
    const negotiated = await ctx.call("GET", publicPath, { headers: { accept: "text/markdown" } });
    assert.equal(await negotiated.text(), text);
    assert.equal(negotiated.headers.get("vary"), "Accept, Accept-Encoding");
  });

  await t.step("HTML for browsers under the trust pages' CSP, escaped", async () => {
    const res = await ctx.call("GET", publicPath, {
      headers: { accept: "text/html,application/xhtml+xml,*/*;q=0.8" },
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^text\/html/);
    const csp = res.headers.get("content-security-policy") ?? "";
    assert.match(csp, /^default-src 'none'/);
    assert.ok(!csp.includes("script-src"));
    const html = await res.text();
    assert.ok(!html.includes("<script>alert(1)"), "vendor text is escaped");
    assert.ok(html.includes("&lt;script&gt;alert(1)&lt;/script&gt; Mail"));
    assert.ok(html.includes('href="https://mail.example"'));
    assert.match(html, /Changed location: Ireland → Ireland, Germany/);
  });

  await t.step("the trust center links the list; unknown organizations are 404", async () => {
    const center = await (await ctx.call("GET", `/public/trust/${orgSlug}`)).json();
    assert.match(center.subprocessorsUrl, new RegExp(`${publicPath}$`));
    const html = await (await ctx.call("GET", `/public/trust/${orgSlug}.html`)).text();
    assert.ok(html.includes(`${publicPath}"`), "the HTML links it");
    const md = await (await ctx.call("GET", `/public/trust/${orgSlug}.md`)).text();
    assert.ok(md.includes(`${publicPath}>)`), "the Markdown links it");
    for (const suffix of ["", ".md"]) {
      const res = await ctx.call("GET", `/public/trust/no-such-org/subprocessors${suffix}`);
      assert.equal(res.status, 404);
      assert.equal((await res.json()).error.code, "not_found");
    }
  });
});
