/**
 * FedRAMP ADS on the trust center in real Chromium with axe-core: an owner describes the
 * service offering on the vendor profile (services with impact levels, responsibilities,
 * support), and the trust center, "How to get access" and the status page show it, at 375 and
 * 1280 px, light and dark.
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

Deno.test("[browser] the service offering: edited in the dashboard, shown on the trust center", async (t) => {
  await using server = await startTestServer({ env: { SIGNUP: "open" }, worker: false });
  const base = server.baseUrl;
  const { owner, boot } = await dashboardTeam(base);
  const orgId = boot.organization.id;
  const orgSlug = boot.organization.slug;
  const browser = await launchBrowser();
  try {
    await t.step("an owner describes the offering (1280 px)", async () => {
      const { page, log, context } = await openPage(browser);
      await signInToDashboard(page, base, { email: OWNER.email, password: PASSWORD });
      await viewDashboard(page, `${base}/dashboard/#/orgs/${orgId}/profile`);
      const card = page.getByRole("region", { name: "Service offering" });
      await card.getByLabel("Service model").selectOption("saas");
      await card.getByLabel("Deployment model").selectOption("public-cloud");
      await card.getByRole("button", { name: "Add service" }).click();
      await card.getByLabel("Name").fill("Evidence API");
      await card.getByLabel("Impact level").selectOption("moderate");
      await card.getByLabel("Description").fill("Collects evidence from CI");
      await card.getByLabel("Customer responsibilities").fill("Keep collector tokens secret.");
      await card.getByRole("button", { name: "Add contact" }).click();
      await card.getByLabel("Label").fill("Customer support");
      await card.getByLabel("Email").fill("support@acme.example");
      await card.getByRole("button", { name: "Save offering" }).click();
      await page.getByRole("status").filter({ hasText: "Offering saved" }).waitFor();
      await assertAccessible(page, "the vendor profile with the offering");
      assertCleanPage(log, base);
      const { profile } = await api(base, owner, "GET", `/organizations/${orgId}/profile`);
      assert.deepEqual(profile.offering.services, [
        { name: "Evidence API", impactLevel: "moderate", description: "Collects evidence from CI" },
      ]);
      assert.equal(profile.offering.serviceModel, "saas");
      assert.deepEqual(profile.offering.supportContacts, [
        { label: "Customer support", email: "support@acme.example", url: null, phone: null },
      ]);
      await context.close();
    });

    for (const width of [375, 1280]) {
      for (const colorScheme of ["light", "dark"] as const) {
        await t.step(
          `the trust center, access and status pages at ${width} px, ${colorScheme}`,
          async () => {
            const { page, log, context } = await openPage(browser, {
              viewport: { width, height: 800 },
              colorScheme,
            });
            await page.goto(`${base}/public/trust/${orgSlug}`);
            const section = page.getByRole("region", { name: "The service offering" });
            await section.getByRole("rowheader", { name: "Evidence API" }).waitFor();
            await section.getByRole("cell", { name: "Moderate" }).waitFor();
            await section.getByText("Software as a Service (SaaS)").waitFor();
            await assertAccessible(page, `the trust center at ${width} px (${colorScheme})`);
            await assertNoHorizontalOverflow(page, `the trust center at ${width} px`);
            await section.getByRole("link", { name: "How to get access" }).click();
            await page.getByRole("heading", { level: 1, name: /How to get access/ }).waitFor();
            await assertAccessible(page, `the access page at ${width} px (${colorScheme})`);
            await assertNoHorizontalOverflow(page, `the access page at ${width} px`);
            await page.goto(`${base}/public/trust/${orgSlug}/status`);
            await page.getByRole("heading", { level: 2, name: "Recent disruptions" }).waitFor();
            await page.getByRole("rowheader", { name: "Last 24 hours" }).waitFor();
            await assertAccessible(page, `the status page at ${width} px (${colorScheme})`);
            await assertNoHorizontalOverflow(page, `the status page at ${width} px`);
            assertCleanPage(log, base);
            await context.close();
          },
        );
      }
    }
  } finally {
    await browser.close();
  }
});
