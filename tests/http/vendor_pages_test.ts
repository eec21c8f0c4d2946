import assert from "node:assert/strict";
import { createDomain } from "../../src/store/domains.ts";
import { recordSignals } from "../../src/store/signals.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { publishVersion, type Workspace, workspace } from "../support/fixtures.ts";

const PNG = Deno.readFileSync(new URL("../fixtures/logos/logo.png", import.meta.url));
const HTML = { accept: "text/html" };

async function brand(ctx: TestApp, ws: Workspace, json: Record<string, unknown>) {
  const path = `/organizations/${ws.organization.id}/profile`;
  const res = await ctx.call("PATCH", path, { token: ws.token, json });
  assert.equal(res.status, 200);
  await res.body?.cancel();
}

async function uploadLogo(ctx: TestApp, ws: Workspace): Promise<string> {
  const res = await ctx.call("PUT", `/organizations/${ws.organization.id}/logo`, {
    token: ws.token,
    body: PNG,
    headers: { "content-type": "image/png" },
  });
  assert.equal(res.status, 200);
  return (await res.json()).profile.logo.url;
}

function csp(res: Response): string {
  return res.headers.get("content-security-policy") ?? "";
}

Deno.test("[http] vendor: trust.json, the page and Markdown show the profile at publication", async (t) => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "alice", { projectSlug: "acme", visibility: "public" });

  await t.step("without a profile: vendor null, no card, no img-src", async () => {
    await publishVersion(ctx, ws);
    const profile = await (await ctx.call("GET", "/trust/acme/trust.json")).json();
    assert.equal(profile.vendor, null);
    const page = await ctx.call("GET", "/trust/acme", { headers: HTML });
    assert.doesNotMatch(csp(page), /img-src/);
    const body = await page.text();
    assert.ok(!body.includes('class="card vendor"'));
    assert.ok(body.includes(`href="http://trust.test/public/trust/${ws.organization.slug}"`));
  });

  let logoUrl = "";
  await t.step(
    "with a profile and logo: vendor block, card, colour and img-src 'self'",
    async () => {
      await brand(ctx, ws, {
        displayName: "Acme <Inc>",
        description: "Clouds & *more*",
        website: "https://acme.example",
        securityContact: { email: "security@acme.example", url: "https://acme.example/sec" },
        brandColor: "#1d4ed8",
      });
      logoUrl = await uploadLogo(ctx, ws);
      await publishVersion(ctx, ws);
      const profile = await (await ctx.call("GET", "/trust/acme/trust.json")).json();
      assert.deepEqual(profile.vendor, {
        name: "Acme <Inc>",
        description: "Clouds & *more*",
        website: "https://acme.example",
        logoUrl,
        securityContact: { email: "security@acme.example", url: "https://acme.example/sec" },
        brandColor: "#1d4ed8",
      });
      const page = await ctx.call("GET", "/trust/acme", { headers: HTML });
      const policy = csp(page);
      assert.match(
        policy,
        /^default-src 'none'; style-src 'sha256-[^']+' 'sha256-[^']+'; img-src 'self';/,
      );
      assert.doesNotMatch(policy, /script-src|unsafe-inline|\*/);
      const body = await page.text();
      assert.ok(body.includes("Published by Acme &lt;Inc&gt;"), "name escaped");
      assert.ok(body.includes(`<img src="${new URL(logoUrl).pathname}" alt=""`));
      assert.ok(body.includes("<style>html:root{--brand:#1d4ed8}</style>"));
      assert.ok(body.includes('href="mailto:security@acme.example"'));
      const md = await (await ctx.call("GET", "/trust/acme.md")).text();
      assert.ok(md.includes("## Vendor"));
      assert.ok(md.includes("**Acme &lt;Inc&gt;**"), md);
      assert.ok(md.includes("Clouds &amp; \\*more\\*"));
      assert.ok(
        md.includes("- Security contact: [security@acme.example](<mailto:security@acme.example>)"),
      );
    },
  );

  await t.step("version 1 keeps what it was published with", async () => {
    const v1 = await ctx.call("GET", "/trust/acme/versions/1/trust.json");
    assert.equal((await v1.json()).vendor, null);
  });

  await t.step("the logo is served on the project's hosted subdomain too", async () => {
    const patched = await ctx.call("PATCH", `/projects/${ws.project.id}`, {
      token: ws.token,
      json: { hostedSubdomain: "acme" },
    });
    await patched.body?.cancel();
    const path = new URL(logoUrl).pathname;
    const res = await ctx.call("GET", path, { headers: { host: "acme.trust.test" } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "image/png");
  });
});

Deno.test("[http] organization trust center: JSON, HTML and Markdown by Accept or suffix", async (t) => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "alice", { projectSlug: "acme", visibility: "public" });
  await publishVersion(ctx, ws);
  await brand(ctx, ws, { displayName: "Acme, Inc.", brandColor: "#0b6e4f" });
  const base = `/public/trust/${ws.organization.slug}`;

  await t.step(
    "JSON by default: projects with state, counts and last publication, plus vendor",
    async () => {
      const res = await ctx.call("GET", base);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("vary"), "Accept, Accept-Encoding");
      const center = await res.json();
      assert.equal(center.url, `http://trust.test${base}`);
      assert.equal(center.vendor.name, "Acme, Inc.");
      assert.equal(center.projects.length, 1);
      const [project] = center.projects;
      assert.equal(project.url, "http://trust.test/trust/acme");
      assert.equal(project.version, 1);
      assert.equal(project.summary.totalControls, 7);
      assert.ok(project.publishedAt);
    },
  );

  await t.step(
    "HTML for browsers (Accept or .html), with a CSP that allows no images without a logo",
    async () => {
      for (const [path, headers] of [[base, HTML], [`${base}.html`, {}]] as const) {
        const res = await ctx.call("GET", path, { headers });
        assert.equal(res.status, 200, path);
        assert.equal(res.headers.get("content-type"), "text/html; charset=utf-8");
        assert.doesNotMatch(csp(res), /img-src/);
        assert.equal(res.headers.get("x-content-type-options"), "nosniff");
        const body = await res.text();
        assert.ok(body.includes('<h1 id="title">Acme, Inc.</h1>'));
        assert.ok(body.includes('href="http://trust.test/trust/acme"'));
      }
      await uploadLogo(ctx, ws);
      const withLogo = await ctx.call("GET", base, { headers: HTML });
      assert.match(csp(withLogo), /img-src 'self'/);
      await withLogo.body?.cancel();
    },
  );

  await t.step("Markdown for agents (Accept or .md)", async () => {
    for (
      const [path, headers] of [[base, { accept: "text/markdown" }], [`${base}.md`, {}]] as const
    ) {
      const res = await ctx.call("GET", path, { headers });
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type") ?? "", /^text\/markdown/);
      const md = await res.text();
      assert.ok(md.startsWith("# Acme, Inc.: trust center"), md);
      assert.ok(md.includes("## Vendor"));
      assert.ok(md.includes("(<http://trust.test/trust/acme>)"));
    }
  });

  await t.step("an unknown organization is 404 in every format", async () => {
    for (const path of ["/public/trust/nobody", "/public/trust/nobody.md"]) {
      assert.equal((await ctx.call("GET", path)).status, 404);
    }
  });
});

Deno.test("[http] security.txt: RFC 9116 fields, contact sources, custom domains, 404s", async (t) => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "alice", { projectSlug: "acme", visibility: "public" });
  const path = "/trust/acme/.well-known/security.txt";

  await t.step("404 before publication and without a contact", async () => {
    assert.equal((await ctx.call("GET", path)).status, 404);
    await publishVersion(ctx, ws);
    const res = await ctx.call("GET", path);
    assert.equal(res.status, 404);
    assert.match((await res.json()).error.message, /No security contact/);
  });

  await t.step("the detected security contact is used when the profile has none", async () => {
    await recordSignals(ctx.kv, {
      detectedAt: "2026-11-01T11:00:00Z",
      commitSha: "abc",
      ciCd: { detected: false },
      monitoring: { detected: false },
      authProvider: { detected: false },
      cloudProvider: { detected: false },
      securityContact: { detected: true, email: "found@acme.example" },
    }, { projectId: ws.project.id });
    const text = await (await ctx.call("GET", path)).text();
    assert.match(text, /^Contact: mailto:found@acme\.example$/m);
  });

  await t.step("the profile's contacts win; Expires, Canonical and language are set", async () => {
    await brand(ctx, ws, {
      securityContact: { email: "security@acme.example", url: "https://acme.example/security" },
    });
    const res = await ctx.call("GET", path);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "text/plain; charset=utf-8");
    assert.equal(
      await res.text(),
      [
        '# Security contact of the project "acme" (RFC 9116)',
        "Contact: mailto:security@acme.example",
        "Contact: https://acme.example/security",
        "Expires: 2027-04-30T12:00:00Z",
        `Canonical: http://trust.test${path}`,
        "Preferred-Languages: en",
        "",
      ].join("\n"),
    );
  });

  await t.step(
    "served at /.well-known/security.txt on verified domains and hosted subdomains",
    async () => {
      const now = ctx.clock.now().toISOString();
      const domain = (name: string, status: "verified" | "pending") =>
        createDomain(ctx.kv, {
          id: crypto.randomUUID(),
          projectId: ws.project.id,
          domain: name,
          verificationStatus: status,
          verificationMethod: "dns_txt",
          verificationToken: "t",
          verifiedAt: status === "verified" ? now : null,
          lastCheckedAt: now,
          createdAt: now,
          updatedAt: now,
        });
      await domain("trust.acme.example", "verified");
      await domain("pending.acme.example", "pending");
      const custom = await ctx.call("GET", "/.well-known/security.txt", {
        headers: { host: "trust.acme.example" },
      });
      assert.equal(custom.status, 200);
      assert.match(
        await custom.text(),
        /^Canonical: https:\/\/trust\.acme\.example\/\.well-known\/security\.txt$/m,
      );
      const pending = await ctx.call("GET", "/.well-known/security.txt", {
        headers: { host: "pending.acme.example" },
      });
      assert.equal(pending.status, 404);
      await pending.body?.cancel();
      const patched = await ctx.call("PATCH", `/projects/${ws.project.id}`, {
        token: ws.token,
        json: { hostedSubdomain: "acme" },
      });
      await patched.body?.cancel();
      const hosted = await ctx.call("GET", "/.well-known/security.txt", {
        headers: { host: "acme.trust.test" },
      });
      assert.match(
        await hosted.text(),
        /^Canonical: http:\/\/acme\.trust\.test\/\.well-known\/security\.txt$/m,
      );
    },
  );

  await t.step("a private project has none, on any host", async () => {
    const res = await ctx.call("PATCH", `/projects/${ws.project.id}`, {
      token: ws.token,
      json: { visibility: "private" },
    });
    await res.body?.cancel();
    assert.equal((await ctx.call("GET", path)).status, 404);
    const custom = await ctx.call("GET", "/.well-known/security.txt", {
      headers: { host: "trust.acme.example" },
    });
    assert.equal(custom.status, 404);
  });
});
