/**
 * Certifications over HTTP: the authorization of every write (owner, member, another
 * organization, anonymous), bad input answered 4xx with nothing stored, the public list and
 * its statuses, and the signed `declaredByVendor` section of a published version.
 */
import assert from "node:assert/strict";
import { compactVerify, createLocalJWKSet } from "jose";
import { createTestApp, snapshotKv, TEST_BASE_URL } from "../support/app.ts";
import { makePdf, upload } from "../support/documents.ts";
import { team } from "../support/fixtures.ts";

const SOC2 = {
  framework: "soc2-type2",
  status: "achieved",
  auditor: "Example Assurance LLP",
  auditPeriod: { start: "2025-10-01T00:00:00Z", end: "2026-09-30T00:00:00Z" },
  issuedAt: "2026-10-15T00:00:00Z",
  expiresAt: "2027-10-15T00:00:00Z",
  scope: "The Acme Cloud platform",
  registryUrl: "https://registry.example/acme",
};

Deno.test("[http] certifications: owners write, members read; refusals and bad input store nothing", async (t) => {
  await using ctx = await createTestApp();
  const { owner, member, stranger, orgId, project } = await team(ctx);
  const other = await ctx.tokenFor("other-owner", { email: "owner@other.test" });
  const otherBoot = await ctx.call("POST", "/onboarding/bootstrap", {
    token: other,
    json: { workspaceName: "Other", projectName: "Other App" },
  });
  const { organization: otherOrg, project: otherProject } = await otherBoot.json();
  const path = `/organizations/${orgId}/certifications`;
  let soc2Id = "";

  await t.step("the built-in frameworks are public, with stable ids", async () => {
    const res = await ctx.call("GET", "/public/certification-frameworks");
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    const { frameworks } = await res.json();
    const ids = frameworks.map((f: { id: string }) => f.id);
    for (
      const id of [
        "soc2-type1",
        "soc2-type2",
        "iso27001-2022",
        "iso27017",
        "iso27018",
        "iso27701",
        "pci-dss-4.0",
        "hipaa",
        "gdpr",
        "csa-star-level1",
        "csa-star-level2",
        "cyber-essentials",
        "cyber-essentials-plus",
        "fedramp",
        "tisax",
        "bsi-c5",
        "other",
      ]
    ) assert.ok(ids.includes(id), id);
  });

  await t.step("members and owners read an empty list; others are refused", async () => {
    for (const token of [owner, member]) {
      const res = await ctx.call("GET", path, { token });
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { certifications: [] });
    }
    assert.equal((await ctx.call("GET", path)).status, 401);
    assert.equal((await ctx.call("GET", path, { token: stranger })).status, 403);
    assert.equal((await ctx.call("GET", path, { token: other })).status, 403);
  });

  await t.step("an owner records one, with a report and dates", async () => {
    const uploaded = await upload(ctx, orgId, {
      token: owner,
      bytes: await makePdf("SOC 2 report"),
      query: "title=SOC%202%20report&visibility=restricted",
    });
    assert.equal(uploaded.status, 201);
    const { document } = await uploaded.json();
    const res = await ctx.call("POST", path, {
      token: owner,
      json: { ...SOC2, documentId: document.id, issuedAt: "2026-10-15T02:00:00+02:00" },
    });
    assert.equal(res.status, 201);
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
    const { certification } = await res.json();
    assert.equal(certification.frameworkName, "SOC 2 Type II");
    assert.equal(certification.status, "achieved");
    assert.equal(certification.issuedAt, "2026-10-15T00:00:00.000Z", "normalized to UTC");
    assert.equal(certification.documentId, document.id);
    assert.equal(certification.projectId, null);
    assert.equal(certification.updatedBy.email, "owner@acme.test");
    soc2Id = certification.id;
    const otherName = await ctx.call("POST", path, {
      token: owner,
      json: {
        framework: "other",
        frameworkName: "ISO/IEC 42001:2023",
        status: "in_progress",
        projectId: project.id,
      },
    });
    assert.equal(otherName.status, 201);
    assert.equal((await otherName.json()).certification.frameworkName, "ISO/IEC 42001:2023");
  });

  await t.step("refusals and bad input answer 4xx and change nothing", async () => {
    const item = `${path}/${soc2Id}`;
    const before = await snapshotKv(ctx.kv);
    const minimal = { framework: "iso27001-2022", status: "achieved" };
    const attempts: [string, string, string, unknown, number][] = [
      ["POST", path, "", minimal, 401],
      ["POST", path, member, minimal, 403],
      ["POST", path, stranger, minimal, 403],
      ["POST", path, other, minimal, 403],
      ["POST", `/organizations/${otherOrg.id}/certifications`, owner, minimal, 403],
      ["POST", `/organizations/${crypto.randomUUID()}/certifications`, owner, minimal, 403],
      ["POST", path, owner, { ...minimal, framework: "iso9001" }, 400],
      ["POST", path, owner, { ...minimal, framework: "SOC2" }, 400],
      ["POST", path, owner, { ...minimal, framework: "other" }, 400],
      ["POST", path, owner, { ...minimal, frameworkName: "Mine" }, 400],
      ["POST", path, owner, { ...minimal, status: "expired" }, 400],
      ["POST", path, owner, { ...minimal, status: "done" }, 400],
      [
        "POST",
        path,
        owner,
        { ...SOC2, auditPeriod: { start: "2026-10-01T00:00:00Z", end: "2026-01-01T00:00:00Z" } },
        400,
      ],
      ["POST", path, owner, { ...SOC2, expiresAt: "2026-10-01T00:00:00Z" }, 400],
      ["POST", path, owner, { ...SOC2, issuedAt: "2025-01-01T00:00:00Z" }, 400],
      ["POST", path, owner, {
        ...minimal,
        issuedAt: "2026-01-02T00:00:00Z",
        expiresAt: "2026-01-01T00:00:00Z",
      }, 400],
      ["POST", path, owner, { ...minimal, expiresAt: "1850-01-01T00:00:00Z" }, 400],
      ["POST", path, owner, { ...minimal, expiresAt: "next year" }, 400],
      ["POST", path, owner, { ...minimal, issuedAt: "2026-02-30T00:00:00Z" }, 400],
      ["POST", path, owner, { ...minimal, scope: "x".repeat(1001) }, 400],
      ["POST", path, owner, { ...minimal, auditor: "x".repeat(201) }, 400],
      ["POST", path, owner, { ...minimal, auditor: "two\nlines" }, 400],
      ["POST", path, owner, {
        framework: "other",
        frameworkName: "x".repeat(201),
        status: "achieved",
      }, 400],
      ["POST", path, owner, { ...minimal, scope: "bell\u0007" }, 400],
      ["POST", path, owner, { ...minimal, registryUrl: "http://registry.example/acme" }, 400],
      ["POST", path, owner, { ...minimal, registryUrl: "javascript:alert(1)" }, 400],
      ["POST", path, owner, { ...minimal, documentId: crypto.randomUUID() }, 400],
      ["POST", path, owner, { ...minimal, projectId: crypto.randomUUID() }, 400],
      ["POST", path, owner, { ...minimal, projectId: otherProject.id }, 400],
      ["POST", path, owner, { ...minimal, extra: true }, 400],
      ["POST", path, owner, [minimal], 400],
      ["POST", path, owner, { status: "achieved" }, 400],
      ["PATCH", item, "", { scope: "x" }, 401],
      ["PATCH", item, member, { scope: "x" }, 403],
      ["PATCH", item, stranger, { scope: "x" }, 403],
      ["PATCH", item, other, { scope: "x" }, 403],
      ["PATCH", item, owner, {}, 400],
      ["PATCH", item, owner, { expiresAt: "2026-01-01T00:00:00Z" }, 400],
      ["PATCH", item, owner, { issuedAt: "2028-01-01T00:00:00Z" }, 400],
      ["PATCH", item, owner, { framework: "other" }, 400],
      ["PATCH", item, owner, { frameworkName: "Renamed" }, 400],
      ["PATCH", item, owner, { scope: "x".repeat(1001) }, 400],
      ["PATCH", item, owner, { framework: "nope" }, 400],
      ["PATCH", item, owner, { projectId: otherProject.id }, 400],
      ["PATCH", `${path}/${crypto.randomUUID()}`, owner, { scope: "x" }, 404],
      ["PATCH", `${path}/not-a-uuid`, owner, { scope: "x" }, 400],
      ["DELETE", item, "", undefined, 401],
      ["DELETE", item, member, undefined, 403],
      ["DELETE", item, stranger, undefined, 403],
      ["DELETE", item, other, undefined, 403],
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

  await t.step("an owner changes and removes; members see the result", async () => {
    const changed = await ctx.call("PATCH", `${path}/${soc2Id}`, {
      token: owner,
      json: { scope: "The Acme Cloud platform and its APIs", registryUrl: null },
    });
    assert.equal(changed.status, 200);
    const { certification } = await changed.json();
    assert.equal(certification.scope, "The Acme Cloud platform and its APIs");
    assert.equal(certification.registryUrl, null);
    assert.equal(certification.auditor, SOC2.auditor, "fields left out are kept");
    const { certifications } = await (await ctx.call("GET", path, { token: member })).json();
    assert.deepEqual(
      certifications.map((c: { frameworkName: string }) => c.frameworkName),
      ["SOC 2 Type II", "ISO/IEC 42001:2023"],
      "in the built-in list's order, other last",
    );
    const removed = await ctx.call("DELETE", `${path}/${certifications[1].id}`, { token: owner });
    assert.equal(removed.status, 200);
    assert.equal((await removed.json()).certification.frameworkName, "ISO/IEC 42001:2023");
    const after = await (await ctx.call("GET", path, { token: owner })).json();
    assert.equal(after.certifications.length, 1);
  });

  await t.step("at most 50 per organization; one more is 409 and stores nothing", async () => {
    for (let i = 1; i < 50; i++) {
      const res = await ctx.call("POST", path, {
        token: owner,
        json: { framework: "other", frameworkName: `Scheme ${i}`, status: "in_progress" },
      });
      assert.equal(res.status, 201);
    }
    const before = await snapshotKv(ctx.kv);
    const full = await ctx.call("POST", path, {
      token: owner,
      json: { framework: "gdpr", status: "achieved" },
    });
    assert.equal(full.status, 409);
    assert.equal((await full.json()).error.code, "conflict");
    assert.equal(await snapshotKv(ctx.kv), before);
  });
});

Deno.test("[http] certifications: an achieved claim past its expiry reads as expired", async () => {
  await using ctx = await createTestApp();
  const { owner, orgId, orgSlug } = await team(ctx);
  const res = await ctx.call("POST", `/organizations/${orgId}/certifications`, {
    token: owner,
    json: { framework: "iso27001-2022", status: "achieved", expiresAt: "2026-11-01T13:00:00Z" },
  });
  assert.equal(res.status, 201);
  const { certification } = await res.json();
  assert.equal(certification.status, "achieved");
  const publicPath = `/public/trust/${orgSlug}/certifications`;
  assert.equal(
    (await (await ctx.call("GET", publicPath)).json()).certifications[0].status,
    "achieved",
  );
  ctx.clock.advance(60 * 60 * 1000);
  const later = await ctx.tokenFor("owner", { email: "owner@acme.test" });
  const list =
    await (await ctx.call("GET", `/organizations/${orgId}/certifications`, { token: later }))
      .json();
  assert.equal(list.certifications[0].status, "expired");
  assert.equal(
    (await (await ctx.call("GET", publicPath)).json()).certifications[0].status,
    "expired",
  );
  const renewed = await ctx.call(
    "PATCH",
    `/organizations/${orgId}/certifications/${certification.id}`,
    {
      token: later,
      json: { expiresAt: "2027-11-01T13:00:00Z" },
    },
  );
  assert.equal((await renewed.json()).certification.status, "achieved", "a later expiry renews it");
});

Deno.test("[http] certifications: public list, trust pages and the signed section of a version", async (t) => {
  await using ctx = await createTestApp();
  const { owner, orgId, orgSlug, project } = await team(ctx);
  const privateBoot = await ctx.call("POST", "/projects", {
    token: owner,
    json: { organizationId: orgId, name: "Internal", visibility: "private" },
  });
  const privateProject = (await privateBoot.json()).project;
  const pdf = await makePdf("SOC 2 Type II report");
  const uploaded = await upload(ctx, orgId, {
    token: owner,
    bytes: pdf,
    query: "title=SOC%202%20Type%20II%20report&visibility=restricted",
  });
  const { document } = await uploaded.json();
  const base = `/organizations/${orgId}/certifications`;
  for (
    const json of [
      { ...SOC2, documentId: document.id },
      { framework: "pci-dss-4.0", status: "in_progress", projectId: project.id },
      { framework: "hipaa", status: "achieved", projectId: privateProject.id },
      { framework: "other", frameworkName: "<b>Evil</b> *scheme*", status: "achieved" },
    ]
  ) assert.equal((await ctx.call("POST", base, { token: owner, json })).status, 201);

  await t.step("the public list shows the organization's and public projects' claims", async () => {
    const res = await ctx.call("GET", `/public/trust/${orgSlug}/certifications`);
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.match(body.notice, /^Declared by the vendor, not verified by this service/);
    assert.equal(body.url, `${TEST_BASE_URL}/public/trust/${orgSlug}/certifications`);
    assert.deepEqual(
      body.certifications.map((c: { frameworkName: string }) => c.frameworkName),
      ["SOC 2 Type II", "PCI DSS 4.0", "<b>Evil</b> *scheme*"],
      "the private project's claim is left out",
    );
    const [soc2, pci] = body.certifications;
    assert.deepEqual(pci.project, { slug: project.slug, name: "Acme Cloud" });
    assert.equal(soc2.document.title, "SOC 2 Type II report");
    assert.equal(soc2.document.visibility, "restricted");
    assert.equal(soc2.document.downloadUrl, null);
    assert.equal(soc2.document.requestAccessUrl, null, "no NDA: no request form");
    const nda = await ctx.call("PUT", `/organizations/${orgId}/nda`, {
      token: owner,
      json: { text: "Keep it confidential." },
    });
    assert.equal(nda.status, 200);
    const withNda = await (await ctx.call("GET", `/public/trust/${orgSlug}/certifications`)).json();
    assert.equal(
      withNda.certifications[0].document.requestAccessUrl,
      `${TEST_BASE_URL}/public/trust/${orgSlug}/documents/request?document=${document.id}`,
    );
    assert.equal((await ctx.call("GET", "/public/trust/nobody/certifications")).status, 404);
  });

  await t.step("the published version declares them in its signed trust.json", async () => {
    const published = await ctx.call("POST", `/projects/${project.id}/publish`, { token: owner });
    assert.equal(published.status, 201);
    const jws = await (await ctx.call("GET", `/trust/${project.slug}/trust.json.jws`)).text();
    const jwks = await (await ctx.call("GET", "/.well-known/jwks.json")).json();
    const { payload } = await compactVerify(jws, createLocalJWKSet(jwks), {
      algorithms: ["EdDSA"],
    });
    const stored = await (await ctx.call("GET", `/trust/${project.slug}/trust.json`)).arrayBuffer();
    assert.deepEqual(payload, new Uint8Array(stored), "the JWS signs the served bytes");
    const profile = JSON.parse(new TextDecoder().decode(payload));
    assert.deepEqual(
      Object.keys(profile).slice(-2),
      ["vendor", "declaredByVendor"],
      "after the specification's fields",
    );
    const section = profile.declaredByVendor;
    assert.match(section.notice, /^Declared by the vendor, not verified by this service/);
    assert.deepEqual(
      section.certifications.map((c: { framework: string }) => c.framework),
      ["soc2-type2", "pci-dss-4.0", "other"],
      "the organization's and this project's; not the private project's",
    );
    const soc2 = section.certifications[0];
    assert.equal(soc2.status, "achieved");
    assert.equal(soc2.auditor, SOC2.auditor);
    assert.equal(soc2.expiresAt, "2027-10-15T00:00:00.000Z");
    const digest = new Uint8Array(
      await crypto.subtle.digest("SHA-256", pdf as Uint8Array<ArrayBuffer>),
    );
    assert.equal(
      soc2.document.digest,
      `sha256:${Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("")}`,
    );
    assert.equal(soc2.document.title, "SOC 2 Type II report");
  });

  await t.step("the latest page, its Markdown and the JSON envelope show the cards", async () => {
    const html = await (await ctx.call("GET", `/trust/${project.slug}.html`)).text();
    assert.match(html, /<h2 id="live-certifications-title">Certifications and attestations<\/h2>/);
    assert.match(html, /Declared by the vendor/);
    assert.match(html, /SOC 2 Type II/);
    assert.match(html, /&lt;b&gt;Evil&lt;\/b&gt; \*scheme\*/);
    assert.doesNotMatch(html, /<b>Evil/);
    assert.ok(
      html.indexOf("live-certifications-title") < html.indexOf('id="summary-title"'),
      "on the first screen, before the summary and the controls",
    );
    const md = await (await ctx.call("GET", `/trust/${project.slug}.md`)).text();
    assert.match(md, /## Certifications and attestations/);
    assert.match(md, /\*\*SOC 2 Type II\*\*: achieved/);
    assert.match(md, /&lt;b&gt;Evil&lt;\/b&gt; \\\*scheme\\\*/);
    assert.ok(md.indexOf("## Certifications") < md.indexOf("## Summary"));
    const envelope = await (await ctx.call("GET", `/trust/${project.slug}`)).json();
    assert.deepEqual(
      envelope.certifications.map((c: { framework: string }) => c.framework),
      ["soc2-type2", "pci-dss-4.0", "other"],
    );
    assert.equal(envelope.profile.declaredByVendor.certifications.length, 3);
  });

  await t.step("the organization trust center shows them in HTML, Markdown and JSON", async () => {
    const json = await (await ctx.call("GET", `/public/trust/${orgSlug}`)).json();
    assert.equal(json.certifications.length, 3);
    const html = await (await ctx.call("GET", `/public/trust/${orgSlug}.html`)).text();
    assert.match(html, /Certifications and attestations/);
    assert.match(html, /PCI DSS 4\.0/);
    const md = await (await ctx.call("GET", `/public/trust/${orgSlug}.md`)).text();
    assert.match(md, /\*\*PCI DSS 4\.0\*\* \(Acme Cloud\): in progress/);
  });
});
