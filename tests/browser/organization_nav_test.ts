/**
 * A dashboard that fits, in real Chromium at 375 and 1280 px: an organization's sections in
 * named groups, every link in sight (no row that scrolls out of view), the current section
 * marked; a project whose deletion is scheduled marked in the project list and in Storage; and
 * the publish flow, where the review of the next version comes before the one button that
 * publishes it. Checked with axe.
 */
import assert from "node:assert/strict";
import type { Page } from "../deps.ts";
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

const GROUPS: Record<string, string[]> = {
  "Projects": ["Projects"],
  "Trust center": ["Vendor profile", "Certifications", "Subprocessors", "Documents", "Subscribers"],
  "Questionnaires": ["Answers", "Questionnaires"],
  "Access": ["Members", "API access"],
  "Settings": ["Storage", "Live work"],
};

/** Every link of the navigation lies inside the viewport and its landmark, none clipped. */
async function assertAllInSight(page: Page, view: string) {
  const nav = page.getByRole("navigation", { name: "Organization" });
  const geometry = await nav.evaluate((el) => {
    const box = el.getBoundingClientRect();
    return {
      scroll: el.scrollWidth <= el.clientWidth,
      inner: el.ownerDocument.documentElement.clientWidth,
      navRight: box.right,
      links: [...el.querySelectorAll("a")].map((a) => {
        const r = a.getBoundingClientRect();
        return { text: a.textContent, left: r.left, right: r.right, w: r.width, h: r.height };
      }),
    };
  });
  assert.ok(geometry.scroll, `${view}: the navigation scrolls sideways`);
  assert.equal(geometry.links.length, 12, `${view}: every section has its link`);
  for (const link of geometry.links) {
    assert.ok(link.w > 0 && link.h > 0, `${view}: ${link.text} is not shown`);
    assert.ok(
      link.left >= 0 && link.right <= geometry.inner + 0.5,
      `${view}: ${link.text} lies outside the screen (${link.left}-${link.right} of ${geometry.inner})`,
    );
  }
}

Deno.test("[browser] organization navigation, deletion marks and the publish flow fit at 375 and 1280 px", async (t) => {
  await using server = await startTestServer({ env: { SIGNUP: "open" }, worker: false });
  const base = server.baseUrl;
  const { owner, boot } = await dashboardTeam(base);
  const orgId = boot.organization.id as string;
  const { project: doomed } = await api(base, owner, "POST", "/projects", {
    organizationId: orgId,
    name: "Old Portal",
    slug: "old-portal",
    visibility: "private",
  });
  await api(base, owner, "POST", `/projects/${doomed.id}/deletion`, { confirm: "old-portal" });
  const browser = await launchBrowser();
  try {
    for (const width of [375, 1280]) {
      await t.step(`groups, every section in sight, deletion marks at ${width} px`, async () => {
        const { page, log } = await openPage(browser, { viewport: { width, height: 800 } });
        await signInToDashboard(page, base, { email: OWNER.email, password: PASSWORD });
        await viewDashboard(page, `${base}/dashboard/#/orgs/${orgId}`);
        const nav = page.getByRole("navigation", { name: "Organization" });
        for (const [group, sections] of Object.entries(GROUPS)) {
          const list = nav.getByRole("list", { name: group, exact: true });
          for (const section of sections) {
            await list.getByRole("link", { name: section, exact: true }).waitFor();
          }
        }
        await assertAllInSight(page, `the projects view at ${width} px`);
        const row = page.getByRole("row", { name: /Old Portal/ });
        await row.getByText(/^Deletion scheduled: /).waitFor();
        assert.equal(
          await page.getByRole("row", { name: /Acme Cloud/ }).getByText(/Deletion scheduled/)
            .count(),
          0,
        );
        await assertAccessible(page, `the projects view at ${width} px`);
        await assertNoHorizontalOverflow(page, `the projects view at ${width} px`);

        await nav.getByRole("link", { name: "Storage" }).click();
        await page.locator("main[aria-busy]").waitFor({ state: "detached" });
        await page.getByRole("heading", { level: 2, name: "Storage by project" }).waitFor();
        assert.equal(
          await nav.getByRole("link", { name: "Storage" }).getAttribute("aria-current"),
          "page",
        );
        await page.getByRole("row", { name: /Old Portal/ }).getByText(/^Deletion scheduled: /)
          .waitFor();
        await assertAllInSight(page, `the storage view at ${width} px`);
        await assertAccessible(page, `the storage view at ${width} px`);
        await assertNoHorizontalOverflow(page, `the storage view at ${width} px`);
        assertCleanPage(log, base);
        await page.close();
      });
    }

    await t.step("the review comes before the button that publishes", async () => {
      const { page, log } = await openPage(browser, { viewport: { width: 375, height: 800 } });
      await signInToDashboard(page, base, { email: OWNER.email, password: PASSWORD });
      await viewDashboard(page, `${base}/dashboard/#/projects/${boot.project.id}/publish`);
      await page.getByRole("button", { name: "Review and publish" }).click();
      const review = page.getByRole("region", { name: "Review version 1" });
      await review.waitFor();
      const publish = review.getByRole("button", { name: "Publish version 1" });
      const heading = await review.getByRole("heading", { name: "Review version 1" }).boundingBox();
      const button = await publish.boundingBox();
      const order = heading && button && heading.y + heading.height <= button.y;
      assert.ok(order, "the review's heading comes before the button that publishes");
      assert.deepEqual(
        (await api(base, owner, "GET", `/projects/${boot.project.id}/published-profiles`))
          .publishedProfiles,
        [],
        "opening the review published nothing",
      );
      await publish.click();
      await page.getByText("Published version 1").waitFor();
      const { publishedProfiles } = await api(
        base,
        owner,
        "GET",
        `/projects/${boot.project.id}/published-profiles`,
      );
      assert.equal(publishedProfiles.length, 1);
      await assertNoHorizontalOverflow(page, "the publish section at 375 px");
      assertCleanPage(log, base);
      await page.close();
    });
  } finally {
    await browser.close();
  }
});
