/**
 * A certification's expiry on the real clock, on a listening server with its job worker:
 * with no request to the service between recording the claim and reading the pages after its
 * expiry, the latest page shows it expired, the job recorded the expiry at its time, and the
 * project that publishes automatically published a version declaring it expired.
 */
import assert from "node:assert/strict";
import { certificationKey } from "../../src/store/keys.ts";
import type { StoredCertification } from "../../src/domain/certifications.ts";
import { jsonApi, startTestServer } from "../support/server.ts";

/** How far ahead of now the claim expires; long enough to record and check it first. */
const EXPIRES_IN_MS = 3_000;

Deno.test("[e2e] a certification past its expiry shows expired with no request in between", async (t) => {
  await using server = await startTestServer({ worker: true });
  const api = jsonApi(server.baseUrl, await server.tokenFor("owner"));
  const boot = await api("POST", "/onboarding/bootstrap", {
    workspaceName: "Acme",
    projectName: "Acme Cloud",
    projectSlug: "acme",
    projectVisibility: "public",
  });
  assert.equal(boot.status, 201);
  const orgId = boot.json.organization.id;
  const projectId = boot.json.project.id;
  assert.equal((await api("POST", `/projects/${projectId}/publish`)).status, 201);
  assert.equal((await api("PATCH", `/projects/${projectId}`, { autoPublish: true })).status, 200);
  const manual = await api("POST", "/projects", {
    organizationId: orgId,
    name: "Acme Mail",
    slug: "acme-mail",
    visibility: "public",
  });
  assert.equal(manual.status, 201);
  assert.equal((await api("POST", `/projects/${manual.json.project.id}/publish`)).status, 201);

  const expiresAt = new Date(Date.now() + EXPIRES_IN_MS);
  const created = await api("POST", `/organizations/${orgId}/certifications`, {
    framework: "soc2-type2",
    status: "achieved",
    auditor: "Example Assurance LLP",
    issuedAt: new Date(Date.now() - 300 * 86_400_000).toISOString(),
    expiresAt: expiresAt.toISOString(),
  });
  assert.equal(created.status, 201);
  assert.equal(created.json.certification.status, "achieved");
  const id = created.json.certification.id;

  await t.step("before the expiry: achieved, and published as achieved", async () => {
    const page = await (await fetch(`${server.baseUrl}/trust/acme.html`)).text();
    assert.match(page, /Certifications and attestations/);
    assert.match(page, /Achieved/);
    assert.ok(Date.now() < expiresAt.getTime() - 500, "checked well before the expiry");
  });

  // Nothing asks the service anything from here until after the expiry.
  const quietUntil = expiresAt.getTime() + 1_500;
  while (Date.now() < quietUntil) {
    await new Promise((resolve) => setTimeout(resolve, quietUntil - Date.now()));
  }
  const firstRequestAt = Date.now();

  await t.step("the latest page shows it expired", async () => {
    const page = await (await fetch(`${server.baseUrl}/trust/acme.html`)).text();
    assert.match(page, /<span class="pill s-fail">.*?Expired<\/span>/s);
    assert.match(page, /Expired on/);
    assert.doesNotMatch(page, /Achieved/);
    const md = await (await fetch(`${server.baseUrl}/trust/acme.md`)).text();
    assert.match(md, /\*\*SOC 2 Type II\*\*: expired\./);
    const other = await (await fetch(`${server.baseUrl}/trust/acme-mail.html`)).text();
    assert.match(other, /Expired on/, "a project that does not publish by itself too");
  });

  await t.step("the job recorded the expiry at its time", async () => {
    const stored = await server.kv.get<StoredCertification>(certificationKey(orgId, id));
    assert.equal(stored.value?.status, "expired");
    const list = await api("GET", `/organizations/${orgId}/certifications`);
    assert.equal(list.json.certifications[0].status, "expired");
  });

  await t.step("the auto-publishing project published a version declaring it expired", async () => {
    const trust = await (await fetch(`${server.baseUrl}/trust/acme/trust.json`)).json();
    const declared = trust.declaredByVendor.certifications[0];
    assert.equal(declared.status, "expired");
    assert.ok(trust.version >= 3, `version ${trust.version}: v1, achieved, expired`);
    const publishedAt = Date.parse(trust.publishedAt);
    assert.ok(publishedAt >= expiresAt.getTime(), "published at or after the expiry");
    assert.ok(publishedAt <= firstRequestAt, "published before anyone asked");
    const { versions } = await (await fetch(`${server.baseUrl}/trust/acme/versions`)).json();
    assert.equal(versions.length, trust.version, "one version per change, none twice");
    const manualTrust = await (await fetch(`${server.baseUrl}/trust/acme-mail/trust.json`))
      .json();
    assert.equal(manualTrust.version, 1, "a project that does not publish by itself keeps v1");
  });
});
