/**
 * The version history in real Chromium against the real server: the project page's
 * "Version history" link opens the HTML versions page, which (like a version's own page
 * with its change list) renders styled under its CSP, shows each change before → after
 * with its reason, and is accessible without horizontal overflow at phone and desktop
 * widths.
 */
import assert from "node:assert/strict";
import type { Page } from "../deps.ts";
import {
  assertAccessible,
  assertNoHorizontalOverflow,
  launchBrowser,
  openPage,
  WAIT_MS,
} from "../support/browser.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

const WIDTHS = [375, 1280] as const;

async function post(server: TestServer, path: string, auth: string, body?: unknown) {
  const res = await fetch(`${server.baseUrl}${path}`, {
    method: "POST",
    headers: { authorization: auth, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(WAIT_MS),
  });
  const text = await res.text();
  assert.ok(res.ok, `${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** A public project published with a failing scan, then with a passing one. */
async function twoVersions(server: TestServer): Promise<string> {
  const owner = `Bearer ${await server.tokenFor("vera")}`;
  const boot = await post(server, "/onboarding/bootstrap", owner, {
    workspaceName: "Vera Labs",
    projectName: "Vera Cloud",
    projectSlug: "vera",
    projectVisibility: "public",
  });
  const projectId = boot.project.id;
  const created = await post(server, `/projects/${projectId}/collectors`, owner, { name: "ci" });
  const collector = `Bearer ${created.secret.value}`;
  const scan = (critical: number, secondsAgo: number) =>
    post(server, "/ingest/evidence", collector, {
      projectId,
      evidenceType: "vulnerability_scan",
      sourceType: "github_actions",
      sourceRef: "vera/api@refs/heads/main",
      observedAt: new Date(Date.now() - secondsAgo * 1000).toISOString(),
      payload: { summary: { critical, high: 0, medium: 0, low: 0 } },
    });
  await scan(3, 120);
  await post(server, `/projects/${projectId}/publish`, owner);
  await scan(0, 60);
  await post(server, `/projects/${projectId}/publish`, owner);
  return boot.project.slug;
}

async function assertPageHealthy(page: Page, view: string) {
  const margin = await page.evaluate("getComputedStyle(document.body).margin");
  assert.equal(margin, "0px", `${view}: the inline stylesheet did not apply`);
  await assertAccessible(page, view);
  await assertNoHorizontalOverflow(page, view);
}

/** The change of the vulnerability scan is visible: name, both states and the reason. */
async function assertScanChange(page: Page, view: string) {
  const item = page.locator(".changes li", { hasText: "Vulnerability scan" }).first();
  assert.ok(await item.isVisible(), `${view}: the scan's change is shown`);
  const pills = (await item.locator(".pill").allInnerTexts()).map((s) => s.trim());
  assert.deepEqual(pills, ["Fail", "Pass"], `${view}: before → after`);
  assert.match(await item.locator(".reason").innerText(), /0 critical/, `${view}: the reason`);
}

Deno.test("[browser] versions page and a version's change list at phone and desktop widths", async () => {
  await using server = await startTestServer({ worker: false });
  const slug = await twoVersions(server);
  const browser = await launchBrowser();
  try {
    for (const width of WIDTHS) {
      const { context, page, log } = await openPage(browser, {
        viewport: { width, height: 900 },
      });
      try {
        await page.goto(`${server.baseUrl}/trust/${slug}`, {
          waitUntil: "load",
        });
        await page.getByRole("link", { name: "Version history" }).click();
        await page.waitForURL(/\/versions\.html$/);
        const view = `versions page at ${width}px`;
        assert.equal(await page.locator("h1").innerText(), "Vera Cloud");
        const versions = page.locator("ol.versions > li");
        assert.equal(await versions.count(), 2, `${view}: both versions`);
        assert.match(await versions.nth(0).locator("h2").innerText(), /Version 2/);
        assert.match(await versions.nth(0).innerText(), /Changes since version 1/);
        assert.match(await versions.nth(1).innerText(), /First published version/);
        await assertScanChange(page, view);
        await assertPageHealthy(page, view);

        await versions.nth(0).getByRole("link", { name: "Version 2" }).click();
        await page.waitForURL(/\/versions\/2\/index\.html$/);
        const versionView = `version 2's page at ${width}px`;
        assert.equal(
          await page.locator("#changes-title").innerText(),
          "Changes since version 1",
        );
        await assertScanChange(page, versionView);
        await assertPageHealthy(page, versionView);
        await page.screenshot({ path: `/tmp/versions-${width}.png`, fullPage: true });
        assert.deepEqual(log.consoleErrors, [], "Console errors");
        assert.deepEqual(log.pageErrors, [], "Page errors");
      } finally {
        await context.close();
      }
    }
  } finally {
    await browser.close();
  }
});
