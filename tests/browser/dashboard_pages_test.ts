/**
 * Lists in pages in real Chromium: a project with more collectors than one page (205, created
 * through the API) shows the first 200, and "Show more collectors" appends the rest, announces
 * what it added and moves the focus to the first added row; the page passes axe before and after.
 * The custom domains (205 too) do the same with their items.
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

/** Collectors, and domains, of the project: the API's default page (200) and five more. */
const ENTRIES = 205;
/** Creations in flight at once. */
const BATCH = 10;

/** `count` POSTs of `body(i)` (i from 1) to `path`, BATCH at a time. */
async function createMany(
  base: string,
  token: string,
  path: string,
  count: number,
  body: (i: number) => unknown,
) {
  for (let start = 1; start <= count; start += BATCH) {
    const end = Math.min(start + BATCH - 1, count);
    await Promise.all(
      Array.from(
        { length: end - start + 1 },
        (_, k) => api(base, token, "POST", path, body(start + k)),
      ),
    );
  }
}

/** The first entry of the list's second page (the API's order is the truth), after checks. */
async function secondPageFirst(base: string, token: string, path: string, key: string) {
  const first = await api(base, token, "GET", path);
  assert.equal(first[key].length, 200);
  assert.ok(first.nextCursor, "a second page exists");
  const second = await api(
    base,
    token,
    "GET",
    `${path}?cursor=${encodeURIComponent(first.nextCursor)}`,
  );
  assert.equal(second[key].length, ENTRIES - 200);
  assert.equal(second.nextCursor, null);
  return second[key][0];
}

Deno.test("[browser] dashboard lists in pages: Show more collectors and domains", async (t) => {
  await using server = await startTestServer({ env: { SIGNUP: "open" }, worker: false });
  const base = server.baseUrl;
  const { owner, boot } = await dashboardTeam(base);
  const projectId = boot.project.id;
  const collectorsPath = `/projects/${projectId}/collectors`;
  const domainsPath = `/projects/${projectId}/domains`;
  await createMany(base, owner, collectorsPath, ENTRIES, (i) => ({
    name: `Collector ${String(i).padStart(3, "0")}`,
    allowedActions: ["heartbeat"],
  }));
  await createMany(base, owner, domainsPath, ENTRIES, (i) => ({
    domain: `trust-${String(i).padStart(3, "0")}.acme.example`,
  }));
  const first201 = await secondPageFirst(base, owner, collectorsPath, "collectors") as {
    id: string;
    name: string;
  };
  const domain201 = (await secondPageFirst(base, owner, domainsPath, "domains")).domain as {
    id: string;
    domain: string;
  };

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
      assert.equal(await rows.count(), ENTRIES);
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
    });

    await t.step("Show more domains appends the 201st domain and focuses it", async () => {
      await viewDashboard(page, `${base}/dashboard/#/projects/${projectId}/domains`);
      const items = page.locator(".domain-list > article");
      const moreDomains = page.getByRole("button", { name: "Show more domains" });
      await moreDomains.waitFor();
      assert.equal(await items.count(), 200);
      const added = page.getByRole("article", { name: domain201.domain });
      assert.equal(await added.count(), 0);
      await moreDomains.click();
      await added.waitFor();
      assert.equal(await items.count(), ENTRIES);
      await page.getByRole("status").filter({
        hasText: "5 domains added; 205 domains shown, all of them",
      }).waitFor({ state: "attached" });
      assert.equal(await moreDomains.count(), 0);
      assert.equal(
        await page.evaluate("document.activeElement?.getAttribute('aria-labelledby')") as string,
        `domain-${domain201.id}`,
        "the focus is on the first added domain",
      );
      assertCleanPage(log, base);
    });
    await page.context().close();
  } finally {
    await browser.close();
  }
});
