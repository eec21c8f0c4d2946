/**
 * Published controls explain themselves: trust.json carries each control's reason, the
 * evidence it was decided from, its buyer group and what it checks, after SPEC.md's fields;
 * the pages show them with the signals at publication; and a browser asking for a trust
 * page that does not exist gets an HTML 404 while API clients keep the envelope.
 */
import assert from "node:assert/strict";
import { PublishedTrustProfile } from "../../src/domain/publish.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { collector, evidenceItem, publishVersion, workspace } from "../support/fixtures.ts";

const SPEC_CONTROL_FIELDS = [
  "key",
  "category",
  "name",
  "state",
  "confidence",
  "latestEvidenceAt",
  "freshUntil",
  "nextCheckAt",
];
const BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

async function send(ctx: TestApp, secret: string, path: string, body: unknown) {
  const res = await ctx.call("POST", path, {
    headers: { authorization: `Bearer ${secret}` },
    json: body,
  });
  const text = await res.text();
  assert.ok(res.status === 200 || res.status === 201, `${path}: ${text}`);
  return JSON.parse(text);
}

/** A public project with a failing Trivy-style scan, a passing SBOM and a signal detection. */
async function publishedWithReasons(ctx: TestApp) {
  const ws = await workspace(ctx, "alice", { projectSlug: "acme", visibility: "public" });
  const { secret } = await collector(ctx, ws);
  const projectId = ws.project.id;
  const scan = evidenceItem(ctx, { summary: { critical: 2, high: 0, medium: 1 } }, {
    evidenceType: "vulnerability_scan",
    minutesAgo: 30,
  });
  const scanned = await send(ctx, secret, "/ingest/evidence", { projectId, ...scan });
  await send(ctx, secret, "/ingest/evidence", {
    projectId,
    ...evidenceItem(ctx, { bomFormat: "CycloneDX", specVersion: "1.5", components: [] }),
  });
  await send(ctx, secret, "/ingest/signals", {
    projectId,
    detection: {
      detectedAt: "2026-10-30T08:00:00.000Z",
      commitSha: "3f2a9c1d0e4b5a6978877665544332211aabbccd",
      ciCd: { detected: true, tools: ["GitHub Actions"] },
      monitoring: { detected: true, tools: ["<b>Datadog</b>"] },
      authProvider: { detected: false },
      cloudProvider: { detected: true, providers: ["AWS"] },
      securityContact: { detected: true, email: "security@acme.example" },
    },
  });
  await publishVersion(ctx, ws);
  return { ws, scanRecord: scanned.record ?? scanned.records?.[0] };
}

Deno.test("[http] trust.json carries reasons, evidence, groups and descriptions after SPEC's fields", async () => {
  await using ctx = await createTestApp();
  const { scanRecord } = await publishedWithReasons(ctx);
  const profile = await (await ctx.call("GET", "/trust/acme/trust.json")).json();
  PublishedTrustProfile.parse(profile);
  for (const control of profile.controls) {
    assert.deepEqual(
      Object.keys(control),
      [...SPEC_CONTROL_FIELDS, "reason", "evidence", "group", "description"],
    );
    assert.ok(control.reason.length > 0, control.key);
    assert.ok(control.description.length > 0, control.key);
  }
  const byKey = new Map(profile.controls.map((c: { key: string }) => [c.key, c]));
  // deno-lint-ignore no-explicit-any
  const scan = byKey.get("evidence.vulnerability_scan") as any;
  assert.equal(scan.state, "fail");
  assert.match(scan.reason, /2 critical/);
  assert.equal(scan.group, "vulnerability_management");
  assert.equal(scan.evidence.digest, scanRecord.checksum);
  assert.match(scan.evidence.digest, /^sha256:[0-9a-f]{64}$/);
  assert.equal(scan.evidence.observedAt, scanRecord.observedAt);
  // deno-lint-ignore no-explicit-any
  const groups = Object.fromEntries(profile.controls.map((c: any) => [c.key, c.group]));
  assert.deepEqual(groups, {
    "collector.heartbeat": "liveness",
    "evidence.sbom": "supply_chain",
    "evidence.vulnerability_scan": "vulnerability_management",
    "evidence.build_provenance": "supply_chain",
    "evidence.dependency_inventory": "supply_chain",
    "evidence.deployment_snapshot": "runtime",
    "evidence.policy_result": "policy",
  });
  // deno-lint-ignore no-explicit-any
  const policy = byKey.get("evidence.policy_result") as any;
  assert.deepEqual(policy.evidence, { digest: null, observedAt: null });
  const controls = await (await ctx.call("GET", "/trust/acme/controls")).json();
  assert.deepEqual(controls.controls, profile.controls, "the controls body carries the reasons");
});

Deno.test("[http] a custom control takes the group of its evidence type and describes its rule", async () => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "bob", { projectSlug: "bobco", visibility: "public" });
  const created = await ctx.call("POST", `/projects/${ws.project.id}/controls`, {
    token: ws.token,
    json: {
      key: "custom.no_criticals",
      publicName: "No critical findings",
      evidenceType: "vulnerability_scan",
      rule: { path: "summary.critical", op: "eq", value: 0 },
    },
  });
  assert.equal(created.status, 201, await created.text());
  await publishVersion(ctx, ws);
  const profile = await (await ctx.call("GET", "/trust/bobco/trust.json")).json();
  // deno-lint-ignore no-explicit-any
  const custom = profile.controls.find((c: any) => c.key === "custom.no_criticals");
  assert.equal(custom.group, "vulnerability_management");
  assert.equal(
    custom.description,
    "Custom rule on the latest vulnerability scan evidence: summary.critical eq 0",
  );
});

Deno.test("[http] a version without the additions still validates (readers treat them as optional)", () => {
  const old = {
    schemaVersion: 1,
    project: { slug: "acme", name: "Acme", hostedSubdomain: null },
    version: 1,
    publishedAt: "2026-01-01T00:00:00.000Z",
    summary: {
      overallState: "unknown",
      totalControls: 1,
      passCount: 0,
      failCount: 0,
      staleCount: 0,
      degradedCount: 0,
      unknownCount: 1,
    },
    controls: [{
      key: "evidence.sbom",
      category: "evidence",
      name: "SBOM",
      state: "unknown",
      confidence: 0,
      latestEvidenceAt: null,
      freshUntil: null,
      nextCheckAt: null,
    }],
  };
  assert.deepEqual(PublishedTrustProfile.parse(old), old);
});

Deno.test("[http] the published pages show reasons, groups, digests and signals as of publication", async () => {
  await using ctx = await createTestApp();
  const { scanRecord } = await publishedWithReasons(ctx);
  const page = await (await ctx.call("GET", "/trust/acme.html")).text();
  assert.match(page, /<h3 id="group-vulnerability_management">Vulnerability management<\/h3>/);
  assert.match(page, /2 critical/);
  assert.ok(page.includes(`title="${scanRecord.checksum}"`), "full digest on the short one");
  assert.match(page, /As detected on <time datetime="2026-10-30T08:00:00Z">/);
  assert.ok(page.includes("&lt;b&gt;Datadog&lt;/b&gt;"), "signal names are escaped");
  assert.ok(!page.includes("<b>Datadog"));
  assert.match(page, /href="mailto:security@acme.example"/);
  assert.match(page, /download="acme-trust.json" type="application\/json"/);
  const md = await (await ctx.call("GET", "/trust/acme.md")).text();
  assert.match(md, /^### Vulnerability management$/m);
  assert.ok(md.includes(`\`${scanRecord.checksum}\``), "full digest in Markdown");
  assert.match(md, /^- CI\/CD: GitHub Actions$/m);
  assert.match(md, /^- Security contact: security@acme.example$/m);
  assert.match(md, /As detected on 2026-10-30T08:00:00Z from commit `3f2a9c1`/);
});

Deno.test("[http] a missing trust page is an HTML 404 for browsers and the envelope for API clients", async (t) => {
  await using ctx = await createTestApp();
  await workspace(ctx, "carol", { projectSlug: "private-co" });
  await workspace(ctx, "dave", { projectSlug: "unpublished", visibility: "public" });
  const cases = [
    ["unknown slug", "/trust/nobody-here"],
    ["private project", "/trust/private-co"],
    ["never published", "/trust/unpublished"],
    ["unknown route under /trust", "/trust/nobody-here/nothing/here"],
    ["unknown org", "/public/trust/no-such-org"],
  ];
  for (const [name, path] of cases) {
    await t.step(`${name}: HTML for a browser, JSON otherwise`, async () => {
      const page = await ctx.call("GET", path, { headers: { accept: BROWSER_ACCEPT } });
      assert.equal(page.status, 404);
      assert.match(page.headers.get("content-type") ?? "", /^text\/html/);
      assert.match(page.headers.get("content-security-policy") ?? "", /default-src 'none'/);
      // The same Vary as the pages at these URLs (src/http/error_caching.ts), and never stored.
      assert.equal(page.headers.get("vary"), "Accept, Accept-Encoding");
      assert.equal(page.headers.get("cache-control"), "no-store");
      const html = await page.text();
      assert.match(html, /<h1 id="title">No trust page here<\/h1>/);
      assert.match(html, /<meta name="robots" content="noindex">/);
      for (const accept of [undefined, "application/json", "*/*", "text/markdown"]) {
        const res = await ctx.call("GET", path, { headers: accept ? { accept } : {} });
        assert.equal(res.status, 404);
        assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
        assert.equal(res.headers.get("vary"), "Accept, Accept-Encoding");
        assert.equal((await res.json()).error.code, "not_found");
      }
    });
  }
  await t.step("a .html path is a page whatever the Accept header", async () => {
    const res = await ctx.call("GET", "/trust/private-co.html");
    assert.equal(res.status, 404);
    assert.match(res.headers.get("content-type") ?? "", /^text\/html/);
    await res.body?.cancel();
  });
  await t.step("hostile slugs are escaped on the page", async () => {
    const res = await ctx.call("GET", "/trust/%3Cscript%3Ealert(1)%3C%2Fscript%3E", {
      headers: { accept: BROWSER_ACCEPT },
    });
    assert.equal(res.status, 404);
    const html = await res.text();
    assert.ok(!html.includes("<script>"), html);
  });
  await t.step("an API client that prefers JSON keeps the envelope", async () => {
    const res = await ctx.call("GET", "/trust/nobody-here", {
      headers: { accept: "application/json, text/html;q=0.5" },
    });
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
    await res.body?.cancel();
  });
});
