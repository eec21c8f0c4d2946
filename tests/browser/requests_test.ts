/**
 * Requests that reach someone, in the dashboard in real Chromium (axe at 1280 and 375 px): the
 * upload form warns, before and after, that a restricted document cannot be requested while
 * no NDA is set and says what buyers see; once a buyer asks, the organization's home and its
 * Documents view show how many requests wait.
 */
import assert from "node:assert/strict";
import {
  assertAccessible,
  assertNoHorizontalOverflow,
  launchBrowser,
  openPage,
} from "../support/browser.ts";
import {
  api,
  assertCleanPage,
  dashboardTeam,
  MEMBER,
  OWNER,
  PASSWORD,
  signInToDashboard,
  viewDashboard,
} from "../support/dashboard.ts";
import { makePdf } from "../support/documents.ts";
import { startTestServer } from "../support/server.ts";

Deno.test("[browser] requests: the no-NDA warning and the pending count", async (t) => {
  await using server = await startTestServer({ env: { SIGNUP: "open" }, worker: false });
  const base = server.baseUrl;
  const { owner, boot } = await dashboardTeam(base);
  const orgId = boot.organization.id;
  const file = await Deno.makeTempFile({ suffix: ".pdf" });
  await Deno.writeFile(file, await makePdf("Pen test"));
  const browser = await launchBrowser();
  try {
    await t.step("uploading a restricted document without an NDA warns (1280 px)", async () => {
      const { page, log } = await openPage(browser);
      await signInToDashboard(page, base, { email: OWNER.email, password: PASSWORD });
      await viewDashboard(page, `${base}/dashboard/#/orgs/${orgId}/documents`);
      const before = page.getByRole("note").filter({ hasText: "No NDA is set yet" });
      await before.waitFor();
      await page.getByLabel("Visibility").selectOption("public");
      assert.equal(await before.isVisible(), false, "not for a public document");
      await page.getByLabel("Visibility").selectOption("restricted");
      await before.waitFor();
      await page.getByLabel("Document file").setInputFiles(file);
      await page.getByLabel("Title", { exact: true }).fill("Pen test 2026");
      await page.getByRole("button", { name: "Upload document" }).click();
      await page.getByRole("status").filter({ hasText: "uploaded" }).waitFor();
      await page.getByRole("status").filter({
        hasText: 'No NDA is set, so buyers cannot request "Pen test 2026"',
      }).waitFor();
      await assertAccessible(page, "the documents section with the warning");
      assertCleanPage(log, base);
      await page.context().close();
    });

    await api(base, owner, "PUT", `/organizations/${orgId}/nda`, { text: "Confidential." });
    const { documents } = await api(base, owner, "GET", `/organizations/${orgId}/documents`);
    const asked = await fetch(`${base}/public/trust/${boot.organization.slug}/access-requests`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        name: "Vera Visitor",
        email: "vera@customer.example",
        company: "Customer Inc",
        documentIds: [documents[0].id],
        ndaVersion: 1,
        acceptNda: true,
      }),
    });
    assert.equal(asked.status, 202);

    for (const [width, person] of [[1280, OWNER], [375, MEMBER]] as const) {
      await t.step(`the home and Documents count the pending request at ${width} px`, async () => {
        const { page, log } = await openPage(browser, { viewport: { width, height: 800 } });
        await signInToDashboard(page, base, { email: person.email, password: PASSWORD });
        await viewDashboard(page, `${base}/dashboard/#/orgs/${orgId}`);
        const notice = page.getByRole("status").filter({
          hasText: "1 access request waits for a decision",
        });
        await notice.waitFor();
        await assertAccessible(page, `the organization home with the count at ${width} px`);
        await assertNoHorizontalOverflow(page, `the organization home at ${width} px`);
        await notice.getByRole("link", { name: "Review access requests" }).click();
        await page.getByRole("heading", { level: 2, name: "Access requests (1 pending)" })
          .waitFor();
        await page.getByRole("cell", { name: "vera@customer.example" }).first().waitFor();
        await assertAccessible(page, `the documents section with a request at ${width} px`);
        await assertNoHorizontalOverflow(page, `the documents section at ${width} px`);
        assertCleanPage(log, base);
        await page.context().close();
      });
    }
  } finally {
    await browser.close();
    await Deno.remove(file);
  }
});
