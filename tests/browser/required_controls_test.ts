/**
 * Required controls in real Chromium with axe-core (issue 35): the dashboard's list of controls
 * that never reported offers Mark required beside Disable and shows the mark, as does the
 * catalog's Required switch; on the trust page at 375 and 1280 px, light and dark, a failing
 * control's name is still visible without scrolling while a required control is missing, the
 * required control's row shows the mark, and with nothing failing the headline names the
 * required control not reported, above the fold.
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
import type { Page } from "../deps.ts";
import { startTestServer } from "../support/server.ts";

const HEIGHT = 800;
const VIEWS = [375, 1280].flatMap((width) =>
  (["light", "dark"] as const).map((colorScheme) => ({ width, colorScheme }))
);

async function assertAboveTheFold(page: Page, locator: ReturnType<Page["locator"]>, what: string) {
  const box = (await locator.boundingBox())!;
  assert.ok(
    box && box.y >= 0 && box.y + box.height <= HEIGHT,
    `${what} visible at once (${box?.y})`,
  );
  assert.equal(await page.evaluate("window.scrollY"), 0);
}

Deno.test("[browser] required controls: marked in the dashboard, counted and shown on the trust page", async (t) => {
  await using server = await startTestServer({ env: { SIGNUP: "open" }, worker: false });
  const base = server.baseUrl;
  const { owner, boot } = await dashboardTeam(base);
  const projectId = boot.project.id;
  const created = await api(base, owner, "POST", `/projects/${projectId}/collectors`, {
    name: "ci",
  });
  const secret = created.secret.value;
  const scan = async (critical: number) => {
    const res = await fetch(`${base}/ingest/evidence`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({
        projectId,
        evidenceType: "vulnerability_scan",
        sourceType: "github_actions",
        sourceRef: "acme/api@refs/heads/main",
        observedAt: new Date(Date.now() - 60_000).toISOString(),
        payload: { summary: { critical, high: 0, medium: 1 } },
      }),
    });
    assert.ok(res.status === 200 || res.status === 201, await res.text());
  };
  const browser = await launchBrowser();
  try {
    await t.step("the first publish's review offers Mark required beside Disable", async () => {
      const { page, log, context } = await openPage(browser);
      await signInToDashboard(page, base, { email: OWNER.email, password: PASSWORD });
      await api(base, owner, "POST", `/projects/${projectId}/evaluations/recompute`);
      await viewDashboard(page, `${base}/dashboard/#/projects/${projectId}/publish`);
      await page.getByRole("button", { name: "Review and publish" }).click();
      const notice = page.getByRole("region", { name: "7 controls never reported" });
      await notice.waitFor();
      await notice.getByRole("button", { name: "Disable Policy checks" }).waitFor();
      await assertAccessible(page, "the first publish's review with Mark required");
      await notice.getByRole("button", { name: "Mark required: Policy checks" }).click();
      await page.getByRole("status").filter({ hasText: "marked required" }).waitFor();
      const { controls } = await api(base, owner, "GET", `/projects/${projectId}/controls`);
      const required = controls.filter((c: { required: boolean }) => c.required);
      assert.deepEqual(required.map((c: { publicName: string }) => c.publicName), [
        "Policy checks",
      ]);
      assertCleanPage(log, base);
      await context.close();
    });

    for (const { width, colorScheme } of [VIEWS[0], VIEWS[3]]) {
      await t.step(`the overview shows the mark, ${width} px ${colorScheme}`, async () => {
        const { page, log, context } = await openPage(browser, {
          viewport: { width, height: HEIGHT },
          colorScheme,
        });
        await signInToDashboard(page, base, { email: OWNER.email, password: PASSWORD });
        await viewDashboard(page, `${base}/dashboard/#/projects/${projectId}`);
        const notice = page.getByRole("region", { name: "7 controls never reported" });
        await notice.waitFor();
        const item = notice.getByRole("listitem").filter({ hasText: "Policy checks" });
        assert.match(await item.innerText(), /Required/);
        await item.getByRole("button", { name: "Unmark required: Policy checks" }).waitFor();
        const toggle = page.getByRole("switch", { name: "Required: Policy checks" });
        assert.equal(await toggle.isChecked(), true);
        assert.equal(
          await page.getByRole("switch", { name: "Required: Build provenance" }).isChecked(),
          false,
        );
        await assertAccessible(page, `the overview with a required control at ${width} px`);
        await assertNoHorizontalOverflow(page, `the overview at ${width} px`);
        assertCleanPage(log, base);
        await context.close();
      });
    }

    await scan(2);
    await api(base, owner, "POST", `/projects/${projectId}/publish`);
    const failing = (await (await fetch(`${base}/trust/acme-cloud/trust.json`)).json()).controls
      .find((c: { state: string }) => c.state === "fail");
    assert.ok(failing, "a control fails");
    for (const { width, colorScheme } of VIEWS) {
      await t.step(`failing and required, ${width} px ${colorScheme}`, async () => {
        const { page, context } = await openPage(browser, {
          viewport: { width, height: HEIGHT },
          colorScheme,
        });
        await page.goto(`${base}/trust/acme-cloud`);
        const section = page.getByRole("region", { name: "1 control fails" });
        await section.waitFor();
        const name = section.getByRole("link", { name: failing.name, exact: true });
        await assertAboveTheFold(page, name, "the failing control's name");
        const row = page.locator('tr[id="control-evidence.policy_result"]');
        assert.match(await row.innerText(), /Policy checks\s*Required by the vendor/);
        await row.scrollIntoViewIfNeeded();
        assert.ok(await row.getByText("Required by the vendor").isVisible());
        await assertAccessible(page, `failing and required at ${width} px (${colorScheme})`);
        await assertNoHorizontalOverflow(page, `failing and required at ${width} px`);
        await context.close();
      });
    }

    await scan(0);
    await api(base, owner, "POST", `/projects/${projectId}/publish`);
    for (const { width, colorScheme } of VIEWS) {
      await t.step(`nothing failing, required missing, ${width} px ${colorScheme}`, async () => {
        const { page, context } = await openPage(browser, {
          viewport: { width, height: HEIGHT },
          colorScheme,
        });
        await page.goto(`${base}/trust/acme-cloud`);
        const title = page.getByText("Not reported: Policy checks (required)", { exact: true });
        await assertAboveTheFold(page, title, "the headline naming the required control");
        assert.equal(await page.getByRole("region", { name: "1 control fails" }).count(), 0);
        await assertAccessible(page, `the required headline at ${width} px (${colorScheme})`);
        await context.close();
      });
    }
  } finally {
    await browser.close();
  }
});
