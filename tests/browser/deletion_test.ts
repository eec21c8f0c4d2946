/**
 * Deleting a project and an organization from the dashboard in real Chromium: the danger zone
 * (owners only), the typed confirmation, the banner of a scheduled deletion with Undo on every
 * view of the project, what members see, the account's own danger zone, and axe on each state;
 * then the "Erase my data" buttons of the access page and the unsubscribe page.
 */
import assert from "node:assert/strict";
import type { Page } from "../deps.ts";
import {
  assertAccessible,
  expectFailedRequests,
  launchBrowser,
  openPage,
} from "../support/browser.ts";
import {
  assertCleanPage,
  dashboardTeam,
  MEMBER,
  OWNER,
  PASSWORD,
  signInToDashboard,
  viewDashboard,
} from "../support/dashboard.ts";
import { startTestServer } from "../support/server.ts";
import { startTenantWorld } from "../support/tenant_world.ts";
import type { Subscription } from "../../src/domain/subscriptions.ts";
import { fakeClock } from "../../src/lib/clock.ts";
import { linkToken } from "../../src/push/links.ts";

const banner = (page: Page) => page.getByRole("alert").filter({ hasText: "will be deleted on" });

Deno.test("[browser] dashboard deletion: danger zone, typed confirmation, banner and undo", async (t) => {
  await using server = await startTestServer({ env: { SIGNUP: "open" } });
  const base = server.baseUrl;
  const { boot } = await dashboardTeam(base);
  const projectId = boot.project.id;
  const orgId = boot.organization.id;
  const browser = await launchBrowser();
  try {
    const { page, log } = await openPage(browser);
    await signInToDashboard(page, base, { email: OWNER.email, password: PASSWORD });

    await t.step("an owner schedules the project's deletion by typing its slug", async () => {
      await viewDashboard(page, `${base}/dashboard/#/projects/${projectId}/settings`);
      const zone = page.getByRole("region", { name: "Danger zone" });
      await zone.waitFor();
      await assertAccessible(page, "project settings with the danger zone");
      await zone.screenshot({ path: "/tmp/deletion-danger-zone.png" });
      const input = zone.getByLabel("Type acme-cloud to confirm");
      await input.fill("acme");
      await expectFailedRequests(log, [400], async () => {
        await zone.getByRole("button", { name: "Delete this project" }).click();
        await zone.getByRole("alert").filter({ hasText: 'Type the project\'s slug "acme-cloud"' })
          .waitFor();
      });
      await input.fill("acme-cloud");
      await zone.getByRole("button", { name: "Delete this project" }).click();
      await banner(page).waitFor();
      assert.equal(await zone.count(), 0, "the danger zone stays while a deletion is scheduled");
      const res = await fetch(`${base}/trust/acme-cloud/trust.json`);
      assert.equal(res.status, 410);
      await res.body?.cancel();
      await assertAccessible(page, "project with a scheduled deletion");
      await page.screenshot({ path: "/tmp/deletion-banner.png" });
    });

    await t.step(
      "the banner is on every view of the project, and Undo brings it back",
      async () => {
        await viewDashboard(page, `${base}/dashboard/#/projects/${projectId}`);
        await banner(page).waitFor();
        await page.getByRole("button", { name: "Undo the deletion of this project" }).click();
        await page.getByRole("status").filter({ hasText: "no longer being deleted" }).waitFor();
        assert.equal(await banner(page).count(), 0);
        const res = await fetch(`${base}/trust/acme-cloud/trust.json`);
        assert.notEqual(res.status, 410);
        await res.body?.cancel();
      },
    );

    await t.step("the last owner is told to hand over before deleting their account", async () => {
      await page.getByRole("link", { name: "Account" }).click();
      await page.locator("main[aria-busy]").waitFor({ state: "detached" });
      const zone = page.getByRole("region", { name: "Danger zone" });
      await zone.getByLabel(`Type ${OWNER.email} to confirm`).fill(OWNER.email);
      await expectFailedRequests(log, [409], async () => {
        await zone.getByRole("button", { name: "Delete my account" }).click();
        await zone.getByRole("alert").filter({ hasText: "only owner of" }).waitFor();
      });
      await assertAccessible(page, "the account view");
    });

    await t.step("the organization's danger zone, then a member sees the banner only", async () => {
      await viewDashboard(page, `${base}/dashboard/#/orgs/${orgId}`);
      const zone = page.getByRole("region", { name: "Danger zone" });
      await zone.getByLabel(`Type ${boot.organization.slug} to confirm`).fill(
        boot.organization.slug,
      );
      await zone.getByRole("button", { name: "Delete this organization" }).click();
      await banner(page).waitFor();
      await assertAccessible(page, "organization with a scheduled deletion");
      assertCleanPage(log, base);

      const member = await openPage(browser);
      await signInToDashboard(member.page, base, { email: MEMBER.email, password: PASSWORD });
      await viewDashboard(member.page, `${base}/dashboard/#/orgs/${orgId}`);
      await banner(member.page).waitFor();
      assert.equal(
        await member.page.getByRole("button", { name: /Undo the deletion/ }).count(),
        0,
      );
      await viewDashboard(member.page, `${base}/dashboard/#/projects/${projectId}/settings`);
      assert.equal(await member.page.getByRole("region", { name: "Danger zone" }).count(), 0);

      // The member deletes their own account: signed out, and it is gone.
      await viewDashboard(member.page, `${base}/dashboard/#/account`);
      const own = member.page.getByRole("region", { name: "Danger zone" });
      await own.getByLabel(`Type ${MEMBER.email} to confirm`).fill(MEMBER.email);
      await own.getByRole("button", { name: "Delete my account" }).click();
      await member.page.getByText("Your account was deleted.").waitFor();
      assert.equal((await server.kv.get(["accounts_by_email", MEMBER.email])).value, null);
      assertCleanPage(member.log, base);
    });
  } finally {
    await browser.close();
  }
});

Deno.test("[browser] erase my data: the access page's and the unsubscribe page's buttons", async (t) => {
  await using world = await startTenantWorld({ clock: fakeClock(new Date()) });
  const { kv, baseUrl } = world.globex.server;
  const browser = await launchBrowser();
  try {
    const { page, log } = await openPage(browser);

    await t.step("an access-request visitor erases their data from their link's page", async () => {
      await page.goto(`${baseUrl}/documents/access/${world.globex.accessToken}`);
      await page.getByRole("heading", { name: "Erase my data" }).waitFor();
      await assertAccessible(page, "the access page with its erase button");
      await page.getByRole("button", { name: "Erase my data" }).click();
      await page.getByRole("heading", { name: "Your data was erased" }).waitFor();
      await assertAccessible(page, "the erased page");
    });

    await t.step("a subscriber erases their address from the unsubscribe page", async () => {
      let subscription: Subscription | null = null;
      for await (const entry of kv.list<string>({ prefix: ["subscriptions_by_scope"] })) {
        subscription ??= (await kv.get<Subscription>(["subscriptions", entry.value])).value;
      }
      assert.ok(subscription);
      await page.goto(`${baseUrl}/unsubscribe/${await linkToken(kv, "unsubscribe", subscription)}`);
      await page.getByRole("heading", { name: "Erase my data" }).waitFor();
      await assertAccessible(page, "the unsubscribe page with its erase button");
      await page.getByRole("button", { name: "Erase my data" }).click();
      await page.getByRole("heading", { name: "Your data was erased" }).waitFor();
      assert.equal(
        (await kv.get(["subscriptions", subscription.id])).value,
        null,
      );
    });
    assertCleanPage(log, baseUrl);
  } finally {
    await browser.close();
  }
});
