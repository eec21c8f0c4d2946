/**
 * The organization's export and evidence retention in the dashboard, in real Chromium: the
 * export button downloads the archive; saving the organization's default or a project's own
 * rule shows the rule now in force at once (the form and the storage table), without a reload.
 * At 375 and 1280 px, checked with axe.
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
  OWNER,
  PASSWORD,
  signInToDashboard,
  viewDashboard,
} from "../support/dashboard.ts";
import { startTestServer } from "../support/server.ts";

Deno.test("[browser] export and retention: download the archive, rules shown as saved", async (t) => {
  await using server = await startTestServer({ env: { SIGNUP: "open" }, worker: false });
  const base = server.baseUrl;
  const { owner, boot } = await dashboardTeam(base);
  const orgId = boot.organization.id as string;
  const projectId = boot.project.id as string;
  const browser = await launchBrowser();
  try {
    await t.step("the export button downloads the organization's archive", async () => {
      const { page, log } = await openPage(browser, { viewport: { width: 1280, height: 800 } });
      await signInToDashboard(page, base, { email: OWNER.email, password: PASSWORD });
      await viewDashboard(page, `${base}/dashboard/#/orgs/${orgId}/storage`);
      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.getByRole("button", { name: "Download export" }).click(),
      ]);
      assert.match(download.suggestedFilename(), /^acme-security-export-.*\.zip$/);
      const path = await download.path();
      const bytes = await Deno.readFile(path!);
      assert.deepEqual([...bytes.subarray(0, 4)], [0x50, 0x4b, 0x03, 0x04], "a ZIP archive");
      await page.getByText(/^Downloaded acme-security-export-.*\.zip/).waitFor();
      assertCleanPage(log, base);
      await page.close();
    });

    await t.step(
      "the organization's default: form and table show the new rule at once",
      async () => {
        const { page, log } = await openPage(browser, { viewport: { width: 1280, height: 800 } });
        await signInToDashboard(page, base, { email: OWNER.email, password: PASSWORD });
        await viewDashboard(page, `${base}/dashboard/#/orgs/${orgId}/storage`);
        const row = page.getByRole("row", { name: /Acme Cloud/ });
        assert.doesNotMatch(await row.innerText(), /45 days/);
        await page.getByLabel("Keep evidence for (days)").fill("45");
        await page.getByRole("button", { name: "Save retention" }).click();
        await page.getByText("Retention saved; projects without their own setting use it.")
          .waitFor();
        await page.getByText(/^Now: 45 days \(the organization's default\)/).waitFor();
        await row.getByText(/^45 days or the newest/).waitFor();
        assert.equal(await page.getByLabel("Keep evidence for (days)").inputValue(), "45");
        const { retention } = await api(base, owner, "GET", `/organizations/${orgId}/retention`);
        assert.equal(retention.setting.days, 45);
        assertCleanPage(log, base);
        await page.close();
      },
    );

    for (const width of [375, 1280]) {
      await t.step(`a project's own rule, shown as saved, at ${width} px`, async () => {
        const { page, log } = await openPage(browser, { viewport: { width, height: 800 } });
        await signInToDashboard(page, base, { email: OWNER.email, password: PASSWORD });
        await viewDashboard(page, `${base}/dashboard/#/projects/${projectId}/settings`);
        await page.getByText(/^Now: 45 days \(the organization's default\)/).waitFor();
        const records = String(width === 375 ? 3 : 4);
        await page.getByLabel("Keep the newest records of each type").fill(records);
        await page.getByRole("button", { name: "Save retention" }).click();
        await page.getByText("Retention saved for this project.").waitFor();
        await page.getByText(
          new RegExp(`the newest ${records} records a type \\(this project's own\\)`),
        ).waitFor();
        const { retention } = await api(base, owner, "GET", `/projects/${projectId}/retention`);
        assert.deepEqual(retention.setting, { days: null, recordsPerType: Number(records) });
        await assertAccessible(page, `project retention at ${width} px`);
        await assertNoHorizontalOverflow(page, `project retention at ${width} px`);
        await viewDashboard(page, `${base}/dashboard/#/orgs/${orgId}/storage`);
        await assertAccessible(page, `storage with export at ${width} px`);
        await assertNoHorizontalOverflow(page, `storage with export at ${width} px`);
        assertCleanPage(log, base);
        await page.close();
      });
    }
  } finally {
    await browser.close();
  }
});
