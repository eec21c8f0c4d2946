/**
 * Framework mappings in real Chromium: a member maps a custom control in the dashboard's
 * Frameworks section (a bad criterion is refused with the API's message), then the trust
 * page's summary and the framework view, at 375 and 1280 px with axe and no script.
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
  PASSWORD,
  signInToDashboard,
  viewDashboard,
} from "../support/dashboard.ts";
import { startTestServer } from "../support/server.ts";

Deno.test("[browser] frameworks: mapping a custom control and the public framework view", async (t) => {
  await using server = await startTestServer({ env: { SIGNUP: "open" }, worker: false });
  const base = server.baseUrl;
  const { owner, boot } = await dashboardTeam(base);
  const projectId = boot.project.id;
  await api(base, owner, "POST", `/projects/${projectId}/controls`, {
    key: "custom.pentest",
    publicName: "Penetration test",
    evidenceType: "policy_result",
  });
  const browser = await launchBrowser();
  try {
    await t.step("a member maps the custom control (1280 px)", async () => {
      const { page, log } = await openPage(browser);
      await signInToDashboard(page, base, { email: MEMBER.email, password: PASSWORD });
      await viewDashboard(page, `${base}/dashboard/#/projects/${projectId}/frameworks`);
      await page.getByRole("heading", { level: 3, name: "Vulnerability scan" }).waitFor();
      await page.getByText("ISO/IEC 27001 A.8.8").waitFor();
      await assertAccessible(page, "the frameworks section");
      await page.locator("details summary", { hasText: "Edit mapping" }).click();
      const form = page.getByRole("form", { name: "Criteria of Penetration test" });
      await expectFailedRequests(log, [400], async () => {
        await form.getByLabel("Criteria, one per line").fill("iso27001 A.99.1");
        await form.getByRole("button", { name: "Save mapping" }).click();
        await page.getByRole("alert").filter({ hasText: "A.99.1" }).waitFor();
      });
      await form.getByLabel("Criteria, one per line").fill("iso27001 A.8.29\nslsa build-l3");
      await form.getByRole("button", { name: "Save mapping" }).click();
      await page.getByRole("status").filter({ hasText: "saved" }).waitFor();
      await page.getByText("ISO/IEC 27001 A.8.29").waitFor();
      await assertAccessible(page, "the frameworks section after saving");
      await assertNoHorizontalOverflow(page, "the frameworks section");
      const { mappings } = await api(base, owner, "GET", `/projects/${projectId}/control-criteria`);
      const custom = mappings.find((m: { key: string }) => m.key === "custom.pentest");
      assert.deepEqual(custom.criteria, [
        { framework: "iso27001", id: "A.8.29" },
        { framework: "slsa", id: "build-l3" },
      ]);
      assertCleanPage(log, base);
      await page.context().close();
    });

    await api(base, owner, "POST", `/projects/${projectId}/publish`);
    for (const width of [375, 1280]) {
      await t.step(`the trust page summary and the framework view at ${width} px`, async () => {
        const { page, log } = await openPage(browser, { viewport: { width, height: 800 } });
        await page.goto(`${base}/trust/acme-cloud`);
        await page.getByRole("heading", { level: 2, name: "Framework mappings" }).waitFor();
        await assertAccessible(page, `the trust page at ${width} px`);
        await page.getByRole("link", { name: "Which control supports which criterion" }).click();
        await page.getByRole("heading", { level: 1, name: "Acme Cloud: framework mappings" })
          .waitFor();
        const iso = page.getByRole("region", { name: "ISO/IEC 27001" });
        await iso.getByText("Handling technical vulnerabilities").waitFor();
        await iso.getByText("Penetration test").waitFor();
        assert.ok((await iso.getByText("no evidence").count()) > 0);
        assert.equal(await page.locator("script").count(), 0);
        await assertAccessible(page, `the framework view at ${width} px`);
        await assertNoHorizontalOverflow(page, `the framework view at ${width} px`);
        assertCleanPage(log, base);
        await page.context().close();
      });
    }
  } finally {
    await browser.close();
  }
});
