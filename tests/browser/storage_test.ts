/**
 * The dashboard's Storage section in real Chromium: the usage of each project, pruning now and
 * the organization's retention, at 375 and 1280 px, checked with axe.
 */
import assert from "node:assert/strict";
import { login, signUp } from "../support/builtin_login.ts";
import {
  assertAccessible,
  assertNoHorizontalOverflow,
  launchBrowser,
  openPage,
} from "../support/browser.ts";
import { assertCleanPage, signInToDashboard } from "../support/dashboard.ts";
import { startTestServer } from "../support/server.ts";

const PASSWORD = "correct horse battery staple";
const OWNER = { name: "Olivia Owner", email: "olivia@example.com" };

Deno.test("[browser] storage: usage per project, prune now and the retention form", async (t) => {
  await using server = await startTestServer({ env: { SIGNUP: "open" }, worker: false });
  const base = server.baseUrl;
  await (await signUp(base, "", { ...OWNER, password: PASSWORD })).body?.cancel();
  const token = (await login(base, { email: OWNER.email, password: PASSWORD })).access_token;
  const call = async (method: string, path: string, json?: unknown, auth = token) => {
    const r = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${auth}`, "content-type": "application/json" },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    assert.ok(r.ok, `${path}: ${r.status}`);
    return await r.json();
  };
  const boot = await call("POST", "/onboarding/bootstrap", {
    workspaceName: "Acme Security",
    projectName: "Acme Cloud",
    projectVisibility: "public",
  });
  const orgId = boot.organization.id as string;
  const { secret } = await call("POST", `/projects/${boot.project.id}/collectors`, { name: "ci" });
  const day = 86_400_000;
  await call("POST", "/ingest/evidence/batch", {
    projectId: boot.project.id,
    records: [200, 100, 1].map((age, i) => ({
      evidenceType: "sbom",
      sourceType: "github_actions",
      sourceRef: "acme/api@refs/heads/main",
      observedAt: new Date(Date.now() - age * day).toISOString(),
      payload: { bomFormat: "CycloneDX", specVersion: "1.5", components: [], run: i },
    })),
  }, secret.value);
  await call("PUT", `/projects/${boot.project.id}/retention`, { days: 30, recordsPerType: 1 });

  const browser = await launchBrowser();
  try {
    for (const width of [375, 1280]) {
      await t.step(`the section at ${width} px`, async () => {
        const { page, log } = await openPage(browser, { viewport: { width, height: 800 } });
        await signInToDashboard(page, base, { email: OWNER.email, password: PASSWORD });
        await page.goto(`${base}/dashboard/#/orgs/${orgId}/storage`);
        await page.locator("main[aria-busy]").waitFor({ state: "detached" });
        await page.getByRole("heading", { level: 2, name: "Storage by project" }).waitFor();
        const row = page.getByRole("row", { name: /Acme Cloud/ });
        assert.match(
          await row.innerText(),
          /^Acme Cloud\s+3\s.*30 days or the newest 1 a type\s+2 records/s,
        );
        await assertAccessible(page, `the storage section at ${width} px`);
        await assertNoHorizontalOverflow(page, `the storage section at ${width} px`);
        assertCleanPage(log, base);
        await page.close();
      });
    }

    await t.step("an owner prunes now and sets the organization's retention", async () => {
      const { page, log } = await openPage(browser, { viewport: { width: 1280, height: 800 } });
      await signInToDashboard(page, base, { email: OWNER.email, password: PASSWORD });
      await page.goto(`${base}/dashboard/#/orgs/${orgId}/storage`);
      await page.getByRole("button", { name: "Prune now: Acme Cloud" }).click();
      await page.getByText("Acme Cloud: 2 records removed.").waitFor();
      await page.getByRole("row", { name: /Acme Cloud/ }).getByText("Nothing").waitFor();
      await page.getByLabel("Keep evidence for (days)").fill("30");
      await page.getByRole("button", { name: "Save retention" }).click();
      await page.getByText("Retention saved").waitFor();
      const { retention } = await call("GET", `/organizations/${orgId}/retention`);
      assert.deepEqual(retention.setting, { days: 30, recordsPerType: null });
      await assertAccessible(page, "the storage section after pruning");
      assertCleanPage(log, base);
      await page.close();
    });
  } finally {
    await browser.close();
  }
});
