import assert from "node:assert/strict";
import { addSubprocessor } from "../../src/store/subprocessors.ts";
import { Html } from "../../src/lib/html.ts";
import {
  insertLiveBlock,
  liveCsp,
  type LiveSection,
  renderLiveBlock,
} from "../../src/serve/live_sections.ts";
import { trustPageCsp } from "../../src/publish/render/_style.ts";
import { createTestApp } from "../support/app.ts";
import { makePdf, upload } from "../support/documents.ts";
import { publishVersion, workspace } from "../support/fixtures.ts";

const HTML = { accept: "text/html" };

Deno.test("[serve] the latest trust page carries the live block; versioned pages stay as published", async () => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "owner", { projectSlug: "acme", visibility: "public" });
  await publishVersion(ctx, ws);
  const before = await ctx.call("GET", "/trust/acme", { headers: HTML });
  const beforeText = await before.text();
  assert.equal(beforeText.includes("live-subprocessors-title"), false);

  const added = await ctx.call("POST", `/organizations/${ws.organization.id}/subprocessors`, {
    token: ws.token,
    json: {
      name: "<b>Mail</b> & Co",
      purpose: "Email",
      location: "EU",
      website: "https://mail.example",
    },
  });
  assert.equal(added.status, 201);
  const after = await ctx.call("GET", "/trust/acme", { headers: HTML });
  const text = await after.text();
  assert.match(text, /id="live-subprocessors-title"/);
  assert.match(text, /lists 1 subprocessor: &lt;b&gt;Mail&lt;\/b&gt; &amp; Co\./);
  assert.ok(text.indexOf("live-subprocessors-title") < text.lastIndexOf("</main>"));
  assert.notEqual(after.headers.get("etag"), before.headers.get("etag"));
  assert.equal(after.headers.get("content-security-policy"), trustPageCsp());

  const again = await ctx.call("GET", "/trust/acme", {
    headers: { ...HTML, "if-none-match": after.headers.get("etag")! },
  });
  assert.equal(again.status, 304);

  const md = await (await ctx.call("GET", "/trust/acme.md")).text();
  assert.match(md, /## Subprocessors\n\n.*lists 1 subprocessor/);

  const versioned = await ctx.call("GET", "/trust/acme/versions/1/index.html");
  assert.equal(versioned.status, 200);
  // Before the subprocessor, the live block held only the framework summary: the versioned
  // page is the latest page without that block.
  const start = beforeText.lastIndexOf("\n", beforeText.indexOf('<div class="live"'));
  const block = beforeText.slice(start, beforeText.lastIndexOf("</main>"));
  assert.match(block, /id="live-frameworks-title"/);
  // The latest page's footer says what is signed and when its live sections were current; the
  // version's own page keeps the published sentence.
  const versionText = await versioned.text();
  const footer =
    /Version 1 is immutable: its trust\.json, signature and this page never\s+change once published\./
      .exec(versionText)![0];
  const label = /This page is version 1, signed and immutable at[\s\S]*?<\/time>\./;
  assert.match(beforeText, label);
  assert.equal(versionText, beforeText.replace(block, "").replace(label, footer));
});

Deno.test("[serve] a section's styles and forms widen the CSP by exactly what they need", async () => {
  const section: LiveSection = {
    id: "form",
    render: () =>
      Promise.resolve({
        html: new Html(`<form method="post" action="https://trust.example/x"></form>`),
        markdown: "## Form",
        styles: [".live form{display:grid}"],
        formActions: ["https://trust.example/x", "https://trust.example/y"],
      }),
  };
  const empty: LiveSection = { id: "empty", render: () => Promise.resolve(null) };
  const block = await renderLiveBlock({} as never, [section, empty]);
  const csp = liveCsp(trustPageCsp(), block);
  assert.match(csp, /form-action https:\/\/trust\.example(;|$)/);
  assert.equal(csp.split("'sha256-").length - 1, 2);
  assert.match(block.html, /<style>\.live form\{display:grid\}<\/style>/);
  const page = new TextEncoder().encode("<main>published</main><footer></footer>");
  const joined = new TextDecoder().decode(insertLiveBlock(page, block));
  assert.match(joined, /^<main>published\s*<div class="live"[\s\S]*<\/main><footer><\/footer>$/);

  const none = await renderLiveBlock({} as never, [empty]);
  assert.equal(none.html, "");
  assert.equal(liveCsp(trustPageCsp(), none), trustPageCsp());
});

Deno.test("[serve] the documents section lists public downloads and restricted titles with a request link", async () => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "owner", { projectSlug: "acme", visibility: "public" });
  await publishVersion(ctx, ws);
  const orgId = ws.organization.id;
  const put = (query: string, bytes: Uint8Array) =>
    upload(ctx, orgId, { token: ws.token, bytes, query });
  const pdf = await makePdf();
  const open = (await (await put("title=Policy&visibility=public", pdf)).json()).document;
  const other = await ctx.call("POST", "/projects", {
    token: ws.token,
    json: { organizationId: orgId, name: "Second", visibility: "public" },
  });
  const second = (await other.json()).project.id;
  await put(`title=Other%20project&projectId=${second}`, pdf);
  await put("title=%3Cb%3ESOC%202%3C%2Fb%3E", pdf);
  await ctx.call("PUT", `/organizations/${orgId}/nda`, { token: ws.token, json: { text: "NDA" } });

  const res = await ctx.call("GET", "/trust/acme", { headers: HTML });
  const text = await res.text();
  assert.match(text, /id="live-documents-title"/);
  assert.match(text, new RegExp(`/public/trust/[^/]+/documents/${open.id}/download`));
  assert.match(text, /&lt;b&gt;SOC 2&lt;\/b&gt;/);
  assert.match(text, /Request access<span class="vh"> to &lt;b&gt;SOC 2/);
  assert.equal(text.includes("Other project"), false, "another project's documents stay off");
  assert.match(res.headers.get("content-security-policy")!, /style-src 'sha256-[^']+' 'sha256-/);
  const md = await (await ctx.call("GET", "/trust/acme.md")).text();
  assert.match(md, /## Documents\n\n[^#]*- \*\*Policy\*\*: \[Download\]/);
});

Deno.test("[serve] with email configured, the latest page carries the subscribe form under its CSP", async () => {
  await using ctx = await createTestApp({ env: { SMTP_URL: "smtp://127.0.0.1:9" } });
  const ws = await workspace(ctx, "owner", { projectSlug: "acme", visibility: "public" });
  await publishVersion(ctx, ws);
  const res = await ctx.call("GET", "/trust/acme", { headers: HTML });
  const text = await res.text();
  assert.match(
    text,
    /<form class="subscribe" method="post" action="http:\/\/trust\.test\/trust\/acme\/subscriptions">/,
  );
  assert.match(text, /<label for="live-subscribe-email">Email address<\/label>/);
  assert.ok(!/ style=/.test(text) && !/<script/.test(text));
  const csp = res.headers.get("content-security-policy") ?? "";
  assert.match(csp, /form-action http:\/\/trust\.test;/);
  assert.equal(csp.match(/'sha256-/g)?.length, 2, "the page's stylesheet and the form's");
  const md = await (await ctx.call("GET", "/trust/acme.md")).text();
  assert.match(md, /## Email updates\n\n.*<http:\/\/trust\.test\/trust\/acme\/subscriptions>/);
  const versioned = await (await ctx.call("GET", "/trust/acme/versions/1/index.html")).text();
  assert.ok(!versioned.includes('class="subscribe"'));
});

Deno.test("[serve] the organization trust center carries the subscribe form only with email", async () => {
  const center = async (env: Record<string, string>) => {
    await using ctx = await createTestApp({ env });
    const ws = await workspace(ctx, "owner", { projectSlug: "acme", visibility: "public" });
    await publishVersion(ctx, ws);
    const path = `/public/trust/${ws.organization.slug}`;
    const res = await ctx.call("GET", path, { headers: HTML });
    assert.equal(res.status, 200);
    const md = await (await ctx.call("GET", `${path}.md`)).text();
    return {
      path,
      text: await res.text(),
      csp: res.headers.get("content-security-policy") ?? "",
      md,
    };
  };
  const without = await center({});
  assert.ok(!without.text.includes("<form"), "no form without email");
  assert.ok(!without.md.includes("Email updates"));
  assert.match(without.csp, /form-action 'none'/);

  const withMail = await center({ SMTP_URL: "smtp://127.0.0.1:9" });
  const action = `http://trust.test${withMail.path}/subscriptions`;
  assert.ok(
    withMail.text.includes(`<form class="subscribe" method="post" action="${action}">`),
    withMail.text,
  );
  assert.match(withMail.text, /<label for="subscribe-email">Email address<\/label>/);
  assert.match(withMail.text, /<h2 id="subscribe-title">Email updates<\/h2>/);
  assert.ok(withMail.text.indexOf('class="subscribe"') < withMail.text.lastIndexOf("</main>"));
  assert.ok(!/ style=/.test(withMail.text) && !/<script/.test(withMail.text));
  assert.ok(withMail.md.includes(`<${action}>`), withMail.md);
  // Exactly the form's target and its stylesheet's hash are added to the CSP.
  const formHash = withMail.csp.split(" ").find((s) =>
    s.startsWith("'sha256-") && !without.csp.includes(s)
  );
  assert.ok(formHash, withMail.csp);
  assert.equal(
    withMail.csp,
    without.csp
      .replace("form-action 'none'", "form-action http://trust.test")
      .replace(/(style-src [^;]*)/, `$1 ${formHash.replace(/;$/, "")}`),
  );
});

Deno.test("[serve] a write from any instance shows on the latest page at once: nothing public is held in memory", async () => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "owner", { projectSlug: "acme", visibility: "public" });
  await publishVersion(ctx, ws);
  const page = async () => await (await ctx.call("GET", "/trust/acme.html")).text();
  assert.equal((await page()).includes("live-subprocessors-title"), false);
  const added = await ctx.call("POST", `/organizations/${ws.organization.id}/subprocessors`, {
    token: ws.token,
    json: { name: "Mailer", purpose: "Email", location: "EU", website: "https://mail.example" },
  });
  assert.equal(added.status, 201);
  assert.match(await page(), /lists 1 subprocessor: Mailer\./);
  // Another instance's write (straight to the store): a render job on any instance must read
  // it, so no instance keeps public reads in memory (src/edge, docs/edge.md).
  await addSubprocessor(ctx.kv, ws.organization.id, {
    request: { name: "Zeta", purpose: "Support", location: "US", website: "https://zeta.example" },
    actor: { userId: crypto.randomUUID(), email: null },
    now: ctx.clock.now(),
  });
  assert.match(await page(), /lists 2 subprocessors: Mailer, Zeta\./);
});
