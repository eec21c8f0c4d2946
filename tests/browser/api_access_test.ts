/**
 * The dashboard's API access section in real Chromium: an owner creates a personal access
 * token (shown once), uses it with fetch (a read works, a write is refused for a read-only
 * token), sees its last use in the list and revokes it, after which it is refused. At 375 and
 * 1280 px, checked with axe.
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
  assertCleanPage,
  dashboardTeam,
  OWNER,
  PASSWORD,
  signInToDashboard,
  viewDashboard,
} from "../support/dashboard.ts";
import { startTestServer } from "../support/server.ts";

Deno.test("[browser] API access: create a token, use it with fetch, revoke it", async (t) => {
  await using server = await startTestServer({ env: { SIGNUP: "open" }, worker: false });
  const base = server.baseUrl;
  const { boot } = await dashboardTeam(base);
  const orgId = boot.organization.id as string;
  const browser = await launchBrowser();
  try {
    await t.step("create, use, see the last use, revoke (1280 px)", async () => {
      const { page, log } = await openPage(browser, { viewport: { width: 1280, height: 800 } });
      await signInToDashboard(page, base, { email: OWNER.email, password: PASSWORD });
      await viewDashboard(page, `${base}/dashboard/#/orgs/${orgId}/api-access`);
      await page.getByText("No access tokens").waitFor();
      await page.getByLabel("Token name").fill("Nightly export");
      await page.getByLabel("Read-only (GET requests)").check();
      await page.getByLabel("Expires after").selectOption("30");
      await page.getByRole("button", { name: "Create token" }).click();
      await page.getByText("Copy it now: it is not shown again.").waitFor();
      const token = await page.getByRole("textbox", { name: "Access token", exact: true })
        .inputValue();
      assert.match(token, /^tpat_/);
      const row = page.getByRole("row", { name: /Nightly export/ });
      assert.match(await row.innerText(), /Read-only \(GET requests\)\s+You\s+.*\s+Never\s+/s);

      const use = (method: string, path: string, body?: unknown) =>
        page.evaluate(async ([method, url, token, body]) => {
          const res = await fetch(url, {
            method,
            headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
            body: body === undefined ? undefined : JSON.stringify(body),
          });
          return { status: res.status, text: await res.text() };
        }, [method, `${base}${path}`, token, body] as const);
      const read = await use("GET", `/organizations/${orgId}/projects`);
      assert.equal(read.status, 200);
      assert.equal(JSON.parse(read.text).projects[0].slug, "acme-cloud");
      await expectFailedRequests(log, [403], async () => {
        const write = await use("PUT", `/projects/${boot.project.id}/retention`, {
          days: 30,
          recordsPerType: 5,
        });
        assert.equal(write.status, 403);
        assert.match(write.text, /read-only/);
      });

      await page.reload();
      await page.locator("main[aria-busy]").waitFor({ state: "detached" });
      await page.getByRole("row", { name: /Nightly export/ }).waitFor();
      assert.doesNotMatch(await page.getByRole("main").innerText(), /tpat_/);
      assert.doesNotMatch(
        await page.getByRole("row", { name: /Nightly export/ }).innerText(),
        /Never/,
        "the list shows when it was last used",
      );
      await assertAccessible(page, "API access with a token");
      await page.getByRole("button", { name: "Revoke Nightly export" }).click();
      await page.getByRole("button", { name: "Revoke", exact: true }).click();
      await page.getByText("Token “Nightly export” revoked.").waitFor();
      await page.getByText("No access tokens").waitFor();
      await expectFailedRequests(log, [401], async () => {
        assert.equal((await use("GET", `/organizations/${orgId}/projects`)).status, 401);
      });
      assertCleanPage(log, base);
      await page.close();
    });

    for (const width of [375, 1280]) {
      await t.step(`the section at ${width} px`, async () => {
        const { page, log } = await openPage(browser, { viewport: { width, height: 800 } });
        await signInToDashboard(page, base, { email: OWNER.email, password: PASSWORD });
        await viewDashboard(page, `${base}/dashboard/#/orgs/${orgId}/api-access`);
        await page.getByLabel("Token name").fill(`At ${width}`);
        await page.getByRole("button", { name: "Create token" }).click();
        await page.getByRole("textbox", { name: "Access token", exact: true }).waitFor();
        await assertAccessible(page, `API access at ${width} px`);
        await assertNoHorizontalOverflow(page, `API access at ${width} px`);
        assertCleanPage(log, base);
        await page.close();
      });
    }
  } finally {
    await browser.close();
  }
});
