/**
 * The dashboard's Subprocessors view in real Chromium: an owner adds, edits and removes
 * subprocessors and sees the history, at 375 and 1280 px with axe; a member reads the list
 * without the controls to change it.
 */
import assert from "node:assert/strict";
import {
  assertAccessible,
  assertNoHorizontalOverflow,
  expectFailedRequests,
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
import { startTestServer } from "../support/server.ts";

Deno.test("[browser] subprocessors: owners change the list, members read it", async (t) => {
  await using server = await startTestServer({ env: { SIGNUP: "open" }, worker: false });
  const base = server.baseUrl;
  const { member, boot } = await dashboardTeam(base);
  const orgId = boot.organization.id;
  const browser = await launchBrowser();
  try {
    for (const width of [1280, 375]) {
      await t.step(`an owner adds, edits and removes at ${width} px`, async () => {
        const { page, log } = await openPage(browser, { viewport: { width, height: 860 } });
        await signInToDashboard(page, base, { email: OWNER.email, password: PASSWORD });
        await viewDashboard(page, `${base}/dashboard/#/orgs/${orgId}`);
        await page.getByRole("link", { name: "Subprocessors" }).click();
        await page.getByRole("heading", { level: 2, name: "Subprocessors" }).waitFor();
        const name = `Postmark ${width}`;
        await page.getByLabel("Name").fill(name);
        await page.getByLabel("Purpose").fill("Transactional email");
        await page.getByLabel("Location").fill("United States");
        await page.getByLabel("Website").fill("https://postmarkapp.com");
        await page.getByRole("button", { name: "Add subprocessor" }).click();
        await page.getByRole("status").filter({ hasText: `${name} added` }).waitFor();
        await page.getByRole("link", { name }).waitFor();
        await expectFailedRequests(log, [400], async () => {
          await page.getByLabel("Name").fill("Insecure");
          await page.getByLabel("Purpose").fill("x");
          await page.getByLabel("Location").fill("y");
          await page.getByLabel("Website").fill("http://insecure.example");
          await page.getByRole("button", { name: "Add subprocessor" }).click();
          await page.getByRole("alert").waitFor();
        });
        await page.getByRole("button", { name: `Edit ${name}` }).click();
        await page.getByRole("heading", { name: `Edit ${name}` }).waitFor();
        await page.getByLabel("Location").fill("United States, Ireland");
        await page.getByRole("button", { name: "Save subprocessor" }).click();
        await page.getByRole("status").filter({ hasText: `${name} saved` }).waitFor();
        await page.getByText("United States, Ireland").first().waitFor();
        await page.getByText(/changed by olivia@example\.com: location/).first().waitFor();
        await assertAccessible(page, `the subprocessors view at ${width} px`);
        await assertNoHorizontalOverflow(page, `the subprocessors view at ${width} px`);
        await page.getByRole("button", { name: `Remove ${name}` }).click();
        await page.getByRole("button", { name: "Remove", exact: true }).click();
        await page.getByRole("status").filter({ hasText: `${name} removed` }).waitFor();
        await page.getByText(new RegExp(`${name} removed by`)).waitFor();
        assertCleanPage(log, base);
        await page.context().close();
      });
    }

    await api(base, member, "GET", `/organizations/${orgId}/subprocessors`);
    await t.step("a member reads the list without changing it (1280 px)", async () => {
      const { page, log } = await openPage(browser);
      await signInToDashboard(page, base, { email: MEMBER.email, password: PASSWORD });
      await viewDashboard(page, `${base}/dashboard/#/orgs/${orgId}/subprocessors`);
      await page.getByText("Only owners of the organization can change the list.").waitFor();
      assert.equal(await page.getByRole("button", { name: "Add subprocessor" }).count(), 0);
      await page.getByText(/Postmark 1280 added by/).waitFor();
      await assertAccessible(page, "the read-only subprocessors view");
      assertCleanPage(log, base);
      await page.context().close();
    });
  } finally {
    await browser.close();
  }
});
