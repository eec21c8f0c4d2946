/**
 * A project's own documents page, /trust/{projectSlug}/documents: the project's documents
 * and the organization-wide ones (never another project's), in JSON, HTML and Markdown,
 * linked from the live Documents section; private and unknown projects are the same 404.
 */
import assert from "node:assert/strict";
import { trustPageCsp } from "../../src/publish/render/_style.ts";
import { DOCUMENTS_STYLE } from "../../src/publish/render/documents.ts";
import { createTestApp } from "../support/app.ts";
import { makePdf, upload } from "../support/documents.ts";
import { publishVersion, workspace } from "../support/fixtures.ts";

Deno.test("[http] project documents: the project's and the organization's, in three formats", async (t) => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "owner", { projectSlug: "acme", visibility: "public" });
  const orgId = ws.organization.id;
  const pdf = await makePdf();
  const put = async (query: string) => {
    const res = await upload(ctx, orgId, { token: ws.token, bytes: pdf, query });
    assert.equal(res.status, 201, query);
    return (await res.json()).document;
  };
  const project = async (name: string, visibility: string) => {
    const res = await ctx.call("POST", "/projects", {
      token: ws.token,
      json: { organizationId: orgId, name, visibility },
    });
    assert.equal(res.status, 201);
    return (await res.json()).project;
  };
  const other = await project("Other", "public");
  const hidden = await project("Hidden", "private");
  const policy = await put("title=Policy&visibility=public");
  const soc2 = await put(`title=%3Cb%3ESOC%202%3C%2Fb%3E&projectId=${ws.project.id}`);
  await put(`title=Other%20report&visibility=public&projectId=${other.id}`);
  await put(`title=Hidden%20report&visibility=public&projectId=${hidden.id}`);

  await t.step("JSON lists the organization's and this project's, by title", async () => {
    const res = await ctx.call("GET", "/trust/acme/documents");
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    const body = await res.json();
    assert.deepEqual(body.project, { name: "owner project", slug: "acme" });
    assert.equal(body.organization.slug, ws.organization.slug);
    assert.deepEqual(body.documents.map((d: { title: string }) => d.title), [
      "<b>SOC 2</b>",
      "Policy",
    ]);
    const [restricted, open] = body.documents;
    assert.equal(open.id, policy.id);
    assert.equal(open.project, null);
    assert.match(open.downloadUrl, new RegExp(`/documents/${policy.id}/download$`));
    assert.equal(open.size, pdf.length);
    assert.equal(restricted.id, soc2.id);
    assert.deepEqual(restricted.project, { name: "owner project", slug: "acme" });
    assert.equal(restricted.downloadUrl, null);
    assert.equal(restricted.size, null);
    assert.match(
      restricted.requestAccessUrl,
      new RegExp(`/documents/request\\?document=${soc2.id}$`),
    );
    assert.equal(body.acceptingRequests, false);
    assert.equal(body.url, "http://trust.test/trust/acme/documents");
    assert.equal(
      body.organizationDocumentsUrl,
      `http://trust.test/public/trust/${ws.organization.slug}/documents`,
    );
  });

  await ctx.call("PUT", `/organizations/${orgId}/nda`, { token: ws.token, json: { text: "NDA" } });

  await t.step("HTML is escaped, under the trust pages' strict CSP", async () => {
    const res = await ctx.call("GET", "/trust/acme/documents", {
      headers: { accept: "text/html" },
    });
    assert.equal(res.status, 200);
    assert.equal(
      res.headers.get("content-security-policy"),
      trustPageCsp({ styles: [DOCUMENTS_STYLE] }),
    );
    assert.match(res.headers.get("vary") ?? "", /Accept/);
    const text = await res.text();
    assert.match(text, /^<!doctype html>/i);
    assert.match(text, /<h1 id="title">[^<]*: documents<\/h1>/);
    assert.match(text, /Request access<span class="vh"> to &lt;b&gt;SOC 2&lt;\/b&gt;/);
    assert.ok(!text.includes("<b>SOC 2</b>"));
    assert.ok(!text.includes("Other report") && !text.includes("Hidden report"));
    assert.match(text, /href="http:\/\/trust\.test\/trust\/acme">Back to the trust page/);
    assert.ok(!/<script/.test(text));
  });

  await t.step("Markdown at .md and for Accept: text/markdown", async () => {
    const md = await ctx.call("GET", "/trust/acme/documents.md");
    assert.equal(md.status, 200);
    assert.match(md.headers.get("content-type")!, /^text\/markdown/);
    const text = await md.text();
    assert.match(text, /^# .*: documents\n/);
    assert.match(text, /- \*\*Policy\*\* \(PDF · \d+ KB\): \[Download\]/);
    assert.match(text, /- \*\*&lt;b&gt;SOC 2.*\*\* .*\[Request access\]/);
    const negotiated = await ctx.call("GET", "/trust/acme/documents", {
      headers: { accept: "text/markdown" },
    });
    assert.equal(await negotiated.text(), text);
  });

  await t.step("private and unknown projects are the same 404", async () => {
    const slug = (await (await ctx.call("GET", `/projects/${hidden.id}`, { token: ws.token }))
      .json()).project.slug;
    for (const path of [`/trust/${slug}/documents`, "/trust/nope/documents"]) {
      for (const suffix of ["", ".md"]) {
        const res = await ctx.call("GET", `${path}${suffix}`);
        assert.equal(res.status, 404, path);
        assert.equal((await res.json()).error.code, "not_found");
      }
    }
  });

  await t.step("the live Documents section links the project's page", async () => {
    await publishVersion(ctx, ws);
    const html = await (await ctx.call("GET", "/trust/acme", { headers: { accept: "text/html" } }))
      .text();
    assert.match(
      html,
      /<a href="http:\/\/trust\.test\/trust\/acme\/documents">All documents for [^<]+<\/a>/,
    );
    const md = await (await ctx.call("GET", "/trust/acme.md")).text();
    assert.match(
      md,
      /\[All documents for [^\]]+\]\(<?http:\/\/trust\.test\/trust\/acme\/documents\.md>?\)/,
    );
  });
});
