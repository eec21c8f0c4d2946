/**
 * Documents in real Chromium: the dashboard's Documents section (an owner sets the NDA,
 * uploads a restricted PDF, approves a request without email and revokes its link) at
 * 1280 px, and the public document list and access request form at 375 and 1280 px, each
 * checked with axe, for console and CSP errors and for sideways scrolling.
 */
import assert from "node:assert/strict";
import { login, signUp } from "../support/builtin_login.ts";
import {
  assertAccessible,
  assertNoHorizontalOverflow,
  launchBrowser,
  openPage,
} from "../support/browser.ts";
import { makePdf } from "../support/documents.ts";
import { api, assertCleanPage, OWNER, PASSWORD, signInToDashboard } from "../support/dashboard.ts";
import { startTestServer } from "../support/server.ts";

Deno.test("[browser] documents: dashboard section, public list and access request form", async (t) => {
  await using server = await startTestServer({ env: { SIGNUP: "open" }, worker: false });
  const base = server.baseUrl;
  await (await signUp(base, "", { ...OWNER, password: PASSWORD })).body?.cancel();
  const owner = (await login(base, { email: OWNER.email, password: PASSWORD })).access_token;
  const boot = await api(base, owner, "POST", "/onboarding/bootstrap", {
    workspaceName: "Acme Security",
    projectName: "Acme Cloud",
    projectSlug: "acme-cloud",
    projectVisibility: "public",
  });
  const orgId = boot.organization.id;
  const orgSlug = boot.organization.slug;
  const file = await Deno.makeTempFile({ suffix: ".pdf" });
  await Deno.writeFile(file, await makePdf("SOC 2 report"));
  const documents = `${base}/dashboard/#/orgs/${orgId}/documents`;

  const browser = await launchBrowser();
  try {
    await t.step("an owner sets the NDA and uploads a restricted PDF (1280 px)", async () => {
      const { page, log } = await openPage(browser);
      await signInToDashboard(page, base, { email: OWNER.email, password: PASSWORD });
      await page.goto(documents);
      await page.locator("main[aria-busy]").waitFor({ state: "detached" });
      await page.getByText("No documents yet").waitFor();
      await page.getByLabel("NDA text").fill("You keep these documents confidential.");
      await page.getByRole("button", { name: "Save as new version" }).click();
      await page.getByRole("status").filter({ hasText: "NDA version 1 saved" }).waitFor();
      await page.getByLabel("Document file").setInputFiles(file);
      await page.getByLabel("Title", { exact: true }).fill("SOC 2 <Type II>");
      await page.getByRole("button", { name: "Upload document" }).click();
      await page.getByRole("status").filter({ hasText: "uploaded" }).waitFor();
      await page.getByRole("cell", { name: "SOC 2 <Type II>", exact: true }).waitFor();
      await assertAccessible(page, "the documents section");
      await assertNoHorizontalOverflow(page, "the documents section");
      assertCleanPage(log, base);
      await page.context().close();
    });

    for (const width of [375, 1280]) {
      await t.step(`a visitor requests the document through the form (${width} px)`, async () => {
        const { page, log } = await openPage(browser, { viewport: { width, height: 800 } });
        await page.goto(`${base}/public/trust/${orgSlug}/documents`, {});
        await page.getByRole("heading", { level: 1, name: /documents/ }).waitFor();
        await assertAccessible(page, `the public document list at ${width} px`);
        await assertNoHorizontalOverflow(page, `the public document list at ${width} px`);
        await page.getByRole("link", { name: "Request access to SOC 2 <Type II>" }).click();
        await page.getByRole("heading", { level: 1, name: /Request documents/ }).waitFor();
        assert.ok(
          await page.getByLabel("SOC 2 <Type II>").isChecked(),
          "the document is preselected",
        );
        await assertAccessible(page, `the access request form at ${width} px`);
        await assertNoHorizontalOverflow(page, `the access request form at ${width} px`);
        await page.getByLabel("Name").fill("Vera Visitor");
        await page.getByLabel("Work email").fill(`vera${width}@customer.example`);
        await page.getByLabel("Company").fill("Customer Inc");
        await page.getByLabel("I accept the non-disclosure agreement above").check();
        await page.getByRole("button", { name: "Request access" }).click();
        await page.getByRole("heading", { level: 1, name: "Request received" }).waitFor();
        await assertAccessible(page, `the confirmation at ${width} px`);
        assertCleanPage(log, base);
        await page.context().close();
      });
    }

    await t.step("the owner approves without email, copies the link, then revokes it", async () => {
      const { page, log } = await openPage(browser);
      await signInToDashboard(page, base, { email: OWNER.email, password: PASSWORD });
      await page.goto(documents);
      await page.locator("main[aria-busy]").waitFor({ state: "detached" });
      await page.getByRole("button", { name: "Approve the request of vera375@customer.example" })
        .click();
      await page.getByText(/Approved, but not emailed: Email is not configured/).waitFor();
      const link = await page.getByRole("textbox", { name: "Access link" }).inputValue();
      assert.match(link, /\/documents\/access\/[A-Za-z0-9_-]{43}$/);
      await assertAccessible(page, "the documents section after an approval");
      assert.equal(await fetch(link).then(async (r) => (await r.body?.cancel(), r.status)), 200);
      await page.getByRole("button", { name: "Revoke the link of vera375@customer.example" })
        .click();
      await page.getByRole("status").filter({ hasText: "revoked" }).waitFor();
      assert.equal(await fetch(link).then(async (r) => (await r.body?.cancel(), r.status)), 410);
      await page.getByRole("button", { name: "Deny the request of vera1280@customer.example" })
        .click();
      await page.getByRole("status").filter({ hasText: "denied" }).waitFor();
      await assertAccessible(page, "the documents section with decided requests");
      assertCleanPage(log, base);
      await page.context().close();
    });
  } finally {
    await browser.close();
    await Deno.remove(file);
  }
});
