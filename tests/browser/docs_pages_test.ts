/**
 * The service's documentation pages (/docs/evaluation, /setup, /agent-instructions) in real
 * Chromium at 375 and 1280 px, checked with axe: their wide code blocks and tables scroll
 * sideways, so each must take the keyboard's focus (scrollable-region-focusable) and be named.
 */
import assert from "node:assert/strict";
import { assertAccessible, launchBrowser, openPage } from "../support/browser.ts";
import { assertCleanPage } from "../support/dashboard.ts";
import { startTestServer } from "../support/server.ts";

Deno.test("[browser] documentation pages: scrolling code and tables are reachable by keyboard", async (t) => {
  await using server = await startTestServer({ worker: false });
  const base = server.baseUrl;
  const browser = await launchBrowser();
  try {
    for (const width of [375, 1280]) {
      for (const path of ["/docs/evaluation", "/setup", "/agent-instructions"]) {
        await t.step(`${path} at ${width} px`, async () => {
          const { page, log } = await openPage(browser, { viewport: { width, height: 800 } });
          await page.goto(`${base}${path}`);
          const regions = page.locator("main [role=region][tabindex='0']");
          assert.ok((await regions.count()) > 0, "code blocks or tables are regions");
          const first = regions.first();
          await first.focus();
          assert.equal(
            await page.evaluate("document.activeElement.getAttribute('role')"),
            "region",
          );
          await assertAccessible(page, `${path} at ${width} px`);
          assertCleanPage(log, base);
          await page.close();
        });
      }
    }
  } finally {
    await browser.close();
  }
});
