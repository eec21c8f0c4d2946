/**
 * Lists in pages in real Chromium: a project with more collectors than one page (205, created
 * through the API) shows the first 200, and "Show more collectors" appends the rest, announces
 * what it added and moves the focus to the first added row; the page passes axe before and after.
 */
import assert from "node:assert/strict";
import { assertAccessible, launchBrowser, openPage } from "../support/browser.ts";
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

/** One more than the API's default page (200), by five. */
const COLLECTORS = 205;
/** Creations in flight at once. */
const BATCH = 10;

Deno.test("[browser] dashboard lists in pages: Show more collectors", async (t) => {
  await using server = await startTestServer({ env: { SIGNUP: "open" }, worker: false });
  const base = server.baseUrl;
  const { owner, boot } = await dashboardTeam(base);
  const projectId = boot.project.id;
  // Names sort as created (the list is oldest first): "Collector 001" … "Collector 205".
  const name = (i: number) => `Collector ${String(i).padStart(3, "0")}`;
  const ids: string[] = [];
  for (let start = 1; start <= COLLECTORS; start += BATCH) {
    const end = Math.min(start + BATCH - 1, COLLECTORS);
    const created = await Promise.all(
      Array.from(
        { length: end - start + 1 },
        (_, k) =>
          api(base, owner, "POST", `/projects/${projectId}/collectors`, {
            name: name(start + k),
            allowedActions: ["heartbeat"],
          }),
      ),
    );
    ids.push(...created.map((r: { collector: { id: string } }) => r.collector.id));
  }
  // Concurrent creations within a batch may share a millisecond: the API's order is the truth.
  const firstPage = await api(base, owner, "GET", `/projects/${projectId}/collectors`);
  assert.equal(firstPage.collectors.length, 200);
  assert.ok(firstPage.nextCursor, "a second page exists");
  const secondPage = await api(
    base,
    owner,
    "GET",
    `/projects/${projectId}/collectors?cursor=${encodeURIComponent(firstPage.nextCursor)}`,
  );
  assert.equal(secondPage.collectors.length, COLLECTORS - 200);
  assert.equal(secondPage.nextCursor, null);
  const first201 = secondPage.collectors[0] as { id: string; name: string };
  assert.ok(ids.includes(first201.id));

  const browser = await launchBrowser();
  try {
    const { page, log } = await openPage(browser);
    await signInToDashboard(page, base, { email: OWNER.email, password: PASSWORD });
    await viewDashboard(page, `${base}/dashboard/#/projects/${projectId}/collectors`);
    const table = page.getByRole("table", { name: "Collectors of the project" });
    const rows = table.locator("tbody tr");
    const more = page.getByRole("button", { name: "Show more collectors" });

    await t.step("the first page: 200 rows and a Show more button", async () => {
      await more.waitFor();
      assert.equal(await rows.count(), 200);
      assert.equal(await table.locator(`tr[data-id="${first201.id}"]`).count(), 0);
      await assertAccessible(page, "collectors with a Show more button");
    });

    await t.step("Show more appends the rest, announces it and focuses the 201st", async () => {
      await more.focus();
      await page.keyboard.press("Enter");
      const added = table.locator(`tr[data-id="${first201.id}"]`);
      await added.waitFor();
      assert.equal(await rows.count(), COLLECTORS);
      assert.equal(await added.getByText(first201.name).count(), 1);
      await page.getByRole("status").filter({
        hasText: "5 collectors added; 205 collectors shown, all of them",
      }).waitFor({ state: "attached" });
      assert.equal(await more.count(), 0, "no button after the last page");
      assert.equal(
        await page.evaluate("document.activeElement?.dataset?.id ?? null") as string | null,
        first201.id,
        "the focus is on the first added row",
      );
      // The added rows work as the first page's do: their actions are there.
      await added.getByRole("button", { name: `Revoke ${first201.name}` }).waitFor();
      await assertAccessible(page, "collectors after Show more");
      assertCleanPage(log, base);
    });
    await page.context().close();
  } finally {
    await browser.close();
  }
});
