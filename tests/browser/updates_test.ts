/**
 * The dashboard's Updates section in real Chromium: a member posts an incident with hostile
 * Markdown, edits and resolves it, posts a change and deletes it, at 375 and 1280 px with
 * axe; then the trust page and the updates page show the update safely under their CSP.
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

Deno.test("[browser] updates: the dashboard section and the public pages", async (t) => {
  await using server = await startTestServer({ env: { SIGNUP: "open" }, worker: false });
  const base = server.baseUrl;
  const { owner, boot } = await dashboardTeam(base);
  const projectId = boot.project.id;
  await api(base, owner, "POST", `/projects/${projectId}/publish`);
  const browser = await launchBrowser();
  try {
    await t.step("a member posts, edits, resolves and deletes (1280 px)", async () => {
      const { page, log } = await openPage(browser);
      await signInToDashboard(page, base, { email: MEMBER.email, password: PASSWORD });
      await viewDashboard(page, `${base}/dashboard/#/projects/${projectId}/updates`);
      await page.getByText("No updates yet").waitFor();
      await assertAccessible(page, "the empty updates section");
      await page.getByLabel("Kind").selectOption("incident");
      await page.getByLabel("Title").fill("API errors in eu-west");
      await page.getByLabel("Body (Markdown)").fill(
        "We are **investigating**. <script>alert(1)</script> [x](javascript:alert(1))",
      );
      await page.getByRole("button", { name: "Post update" }).click();
      await page.getByRole("status").filter({ hasText: "posted" }).waitFor();
      await page.getByRole("heading", { level: 3, name: "API errors in eu-west" }).waitFor();
      await page.getByText("Ongoing", { exact: true }).waitFor();
      await expectFailedRequests(log, [400], async () => {
        const post = page.getByRole("region", { name: "Post an update" });
        await post.getByLabel("Title").fill("bad");
        await post.getByLabel("Body (Markdown)").fill("   ");
        await page.getByRole("button", { name: "Post update" }).click();
        await page.getByRole("alert").waitFor();
      });
      await page.locator("details summary", { hasText: "Edit" }).first().click();
      const edit = page.getByRole("form", { name: "Edit API errors in eu-west" });
      await edit.getByLabel("Title").fill("API errors in eu-west (fixed)");
      await edit.getByRole("button", { name: "Save update" }).click();
      await page.getByRole("status").filter({ hasText: "saved" }).waitFor();
      await page.getByRole("button", { name: "Mark resolved: API errors in eu-west (fixed)" })
        .click();
      await page.getByRole("status").filter({ hasText: "resolved" }).waitFor();
      await page.getByText("Resolved", { exact: true }).waitFor();
      await assertAccessible(page, "the updates section with an update");
      await assertNoHorizontalOverflow(page, "the updates section");
      const { updates } = await api(base, owner, "GET", `/projects/${projectId}/updates`);
      assert.equal(updates.length, 1);
      assert.equal(updates[0].title, "API errors in eu-west (fixed)");
      assert.ok(updates[0].resolvedAt);
      assert.equal(updates[0].postedBy.email, MEMBER.email);
      assertCleanPage(log, base);
      await page.context().close();
    });

    await t.step("the section and deletion at 375 px", async () => {
      const { page, log } = await openPage(browser, { viewport: { width: 375, height: 800 } });
      await signInToDashboard(page, base, { email: OWNER.email, password: PASSWORD });
      await viewDashboard(page, `${base}/dashboard/#/projects/${projectId}/updates`);
      const post = page.getByRole("region", { name: "Post an update" });
      await post.getByLabel("Kind").selectOption("change");
      await post.getByLabel("Title").fill("Temporary notice");
      await post.getByLabel("Body (Markdown)").fill("To be deleted.");
      await page.getByRole("button", { name: "Post update" }).click();
      await page.getByRole("heading", { level: 3, name: "Temporary notice" }).waitFor();
      await assertAccessible(page, "the updates section at 375 px");
      await assertNoHorizontalOverflow(page, "the updates section at 375 px");
      await page.getByRole("button", { name: "Delete Temporary notice" }).click();
      await page.getByRole("button", { name: "Delete", exact: true }).click();
      await page.getByRole("status").filter({ hasText: "deleted" }).waitFor();
      assert.equal(await page.getByRole("heading", { name: "Temporary notice" }).count(), 0);
      assertCleanPage(log, base);
      await page.context().close();
    });

    for (const width of [375, 1280]) {
      await t.step(`the trust page and the updates page at ${width} px`, async () => {
        const { page, log } = await openPage(browser, { viewport: { width, height: 800 } });
        await page.goto(`${base}/trust/acme-cloud`);
        await page.getByRole("heading", { level: 2, name: "Updates" }).waitFor();
        await page.getByRole("heading", { level: 3, name: "API errors in eu-west (fixed)" })
          .waitFor();
        assert.equal(await page.locator("script").count(), 0);
        await assertAccessible(page, `the trust page with updates at ${width} px`);
        await assertNoHorizontalOverflow(page, `the trust page with updates at ${width} px`);
        await page.getByRole("link", { name: "All updates" }).click();
        await page.getByRole("heading", { level: 1, name: "Acme Cloud: updates" }).waitFor();
        await assertAccessible(page, `the updates page at ${width} px`);
        await assertNoHorizontalOverflow(page, `the updates page at ${width} px`);
        await page.getByRole("link", { name: "API errors in eu-west (fixed)" }).click();
        await page.getByText("Resolved", { exact: true }).waitFor();
        await assertAccessible(page, `one update's page at ${width} px`);
        assertCleanPage(log, base);
        await page.context().close();
      });
    }
  } finally {
    await browser.close();
  }
});
