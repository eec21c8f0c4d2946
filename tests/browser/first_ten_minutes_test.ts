/**
 * The first screen and the first ten minutes in real Chromium, at 375 and 1280 px in light and
 * dark, each view checked with axe-core (colour contrast included), for overflow and for a
 * clean console (no 404 for the icon browsers ask for by themselves): the trust page leads with
 * what passed and names its publisher, the verify command is selected whole with one click;
 * the trust center; the sign-in page; the dashboard overview, whose finished checklist is one
 * line; the Evidence table with what the service read and the control each record decides;
 * "Publish automatically" beside the Publish button; and onboarding without "billing".
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "../deps.ts";
import {
  assertAccessible,
  assertNoHorizontalOverflow,
  launchBrowser,
  openPage,
  type PageLog,
} from "../support/browser.ts";
import { signUp } from "../support/builtin_login.ts";
import {
  api,
  dashboardTeam,
  OWNER,
  PASSWORD,
  signInToDashboard,
  viewDashboard,
} from "../support/dashboard.ts";
import { startTestServer } from "../support/server.ts";

const WIDTHS = [375, 1280] as const;
/** Where the views' screenshots go, for a person to look at. */
const SHOTS = "/tmp";
const SCHEMES = ["light", "dark"] as const;
const TRIVY_SECRETS = JSON.parse(
  await Deno.readTextFile(new URL("../fixtures/trivy/secrets.json", import.meta.url)),
);

/** No console error at all (the icon included), no page error, nothing off the origin. */
function assertSpotless(log: PageLog, origin: string) {
  assert.deepEqual(log.consoleErrors, [], "console errors");
  assert.deepEqual(log.pageErrors, []);
  assert.deepEqual(log.foreignRequests(origin), []);
}

async function fits(page: Page, view: string) {
  await assertAccessible(page, view);
  await assertNoHorizontalOverflow(page, view);
}

/** Sends `payload` as evidence with the collector's secret; the ingest answer. */
async function ingest(
  base: string,
  secret: string,
  projectId: string,
  type: string,
  payload: unknown,
) {
  const res = await fetch(`${base}/ingest/evidence`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body: JSON.stringify({
      projectId,
      evidenceType: type,
      sourceType: "github_actions",
      sourceRef: "acme/cloud@main",
      observedAt: new Date(Date.now() - 60_000).toISOString(),
      payload,
    }),
  });
  assert.equal(res.status, 201);
  return await res.json();
}

Deno.test("[browser] the first screen and the first ten minutes, at 375 and 1280 px, light and dark", async (t) => {
  await using server = await startTestServer({ env: { SIGNUP: "open" }, worker: false });
  const base = server.baseUrl;
  const { owner, boot } = await dashboardTeam(base);
  const projectId = boot.project.id;
  const collector = await api(base, owner, "POST", `/projects/${projectId}/collectors`, {
    name: "GitHub Actions",
  });
  const secret = collector.secret.value;
  const beat = await fetch(`${base}/collectors/${collector.collector.id}/heartbeat`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body: JSON.stringify({ sourceRef: "ci" }),
  });
  assert.equal(beat.status, 200);
  await beat.body?.cancel();
  const sbom = await ingest(base, secret, projectId, "sbom", {
    bomFormat: "CycloneDX",
    specVersion: "1.5",
    components: [{ type: "library", name: "left-pad", version: "1.3.0" }],
  });
  const scan = await ingest(base, secret, projectId, "vulnerability_scan", TRIVY_SECRETS);
  assert.equal(scan.record.reading.understood, false);
  await api(base, owner, "POST", `/projects/${projectId}/evaluations/recompute`);
  await api(base, owner, "POST", `/projects/${projectId}/publish`);
  const browser = await launchBrowser();
  try {
    await pages(t, browser, base);
    await t.step("the sign-in page in dark mode: the button reads at 4.5:1", async () => {
      const { page, log, context } = await openPage(browser, { colorScheme: "dark" });
      await page.goto(`${base}/dashboard/`);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByLabel("Password").waitFor();
      await fits(page, "the sign-in page (dark)");
      assertSpotless(log, base);
      await context.close();
    });
    await dashboard(t, browser, { base, projectId, sbomId: sbom.record.id, owner });
  } finally {
    await browser.close();
  }
});

async function pages(t: Deno.TestContext, browser: Browser, base: string) {
  for (const width of WIDTHS) {
    for (const colorScheme of SCHEMES) {
      const at = `${width} px, ${colorScheme}`;
      await t.step(`the trust page at ${at}`, async () => {
        const { page, log, context } = await openPage(browser, {
          viewport: { width, height: 860 },
          colorScheme,
        });
        await page.goto(`${base}/trust/acme-cloud`);
        const overall = page.locator(".overall");
        assert.equal(await overall.locator(".state").innerText(), "All 2 reported controls pass");
        assert.match(await overall.locator(".why").innerText(), /5 controls not reported yet/);
        assert.ok(((await overall.boundingBox())!.y) < 860, "on the first screen");
        assert.equal(await page.locator(".org").innerText(), "by Acme Security");
        assert.equal(await page.getByRole("columnheader", { name: "Next check" }).count(), 0);
        assert.equal(await page.locator(".downloads").count(), 1, "one downloads card");
        const command = page.locator(".cmd code");
        await command.click();
        const selected = await page.evaluate("String(getSelection())");
        assert.equal(selected, await command.innerText(), "one click selects the whole command");
        assert.match(selected, /^deno run --allow-net http:\/\/127\.0\.0\.1:\d+\/verify\.ts /);
        await fits(page, `the trust page at ${at}`);
        await page.screenshot({ path: `${SHOTS}/first-trust-page-${width}-${colorScheme}.png` });
        assert.equal(await page.locator("script").count(), 0);
        assertSpotless(log, base);
        await context.close();
      });

      await t.step(`the trust center at ${at}`, async () => {
        const { page, log, context } = await openPage(browser, {
          viewport: { width, height: 860 },
          colorScheme,
        });
        await page.goto(`${base}/public/trust/acme-security`);
        await page.getByRole("heading", { level: 1, name: "Acme Security" }).waitFor();
        await fits(page, `the trust center at ${at}`);
        assertSpotless(log, base);
        await context.close();
      });
    }
  }
}

async function dashboard(
  t: Deno.TestContext,
  browser: Browser,
  fx: { base: string; projectId: string; sbomId: string; owner: string },
) {
  const { base, projectId } = fx;
  const overview = `${base}/dashboard/#/projects/${projectId}`;
  for (const width of WIDTHS) {
    for (const colorScheme of SCHEMES) {
      const at = `${width} px, ${colorScheme}`;
      await t.step(`the overview at ${at}: the finished checklist is one line`, async () => {
        const { page, log, context } = await openPage(browser, {
          viewport: { width, height: 860 },
          colorScheme,
        });
        await signInToDashboard(page, base, { email: OWNER.email, password: PASSWORD });
        await viewDashboard(page, overview);
        const done = page.locator(".checklist-done");
        const summary = done.locator("summary");
        assert.equal(
          (await summary.innerText()).replace(/\s+/g, " ").trim(),
          "Set up Getting started: 4 of 5 steps done (optional: add a custom domain)",
        );
        assert.equal(await page.getByRole("heading", { name: "Getting started" }).count(), 0);
        const line = (await done.boundingBox())!;
        assert.ok(line.height <= (width < 400 ? 110 : 70), `one line, ${line.height}px high`);
        await fits(page, `the overview at ${at}`);
        await page.screenshot({ path: `${SHOTS}/first-overview-${width}-${colorScheme}.png` });
        await summary.click();
        await done.locator(".checklist li").first().waitFor();
        assert.equal(await done.locator(".checklist li").count(), 5);
        await assertAccessible(page, `the overview with the steps open at ${at}`);
        assertSpotless(log, base);
        await context.close();
      });
    }
  }

  const { page, log, context } = await openPage(browser);
  try {
    await signInToDashboard(page, base, { email: OWNER.email, password: PASSWORD });
    await t.step(
      "the Evidence table shows what was read and the control each decides",
      async () => {
        await viewDashboard(page, `${overview}/evidence`);
        const table = page.getByRole("table", { name: "Evidence records" });
        const rows = table.locator("tbody tr");
        assert.equal(await rows.count(), 2);
        const scanRow = rows.filter({ hasText: "Vulnerability scan" }).first();
        const read = scanRow.locator("td[data-label='What the service read']");
        await read.getByText("Not understood").waitFor();
        assert.match(await read.innerText(), /no vulnerability scanning in this report/);
        const sbomRow = page.locator(`tr[data-id="${fx.sbomId}"]`);
        assert.match(
          await sbomRow.locator("td[data-label='What the service read']").innerText(),
          /CycloneDX 1\.5 document listing 1 component\s+Format cyclonedx/,
        );
        const control = sbomRow.locator("td[data-label='Control']");
        assert.equal(
          (await control.innerText()).replace(/\s+/g, " ").trim(),
          "Software bill of materials Pass",
        );
        await fits(page, "the Evidence table");
        await page.screenshot({ path: `${SHOTS}/first-evidence-1280.png`, fullPage: true });
      },
    );

    await t.step(
      "Publish automatically is beside the Publish button, not in Settings",
      async () => {
        await viewDashboard(page, `${overview}/publish`);
        const box = page.getByRole("checkbox", { name: "Publish automatically" });
        assert.equal(await box.isChecked(), false);
        await box.check();
        await page.getByRole("status").filter({ hasText: "Automatic publishing is on" }).waitFor();
        const { project } = await api(base, fx.owner, "GET", `/projects/${projectId}`);
        assert.equal(project.autoPublish, true);
        await fits(page, "the Publish view");
        await page.screenshot({ path: `${SHOTS}/first-publish-1280.png` });
        await viewDashboard(page, `${overview}/settings`);
        await page.getByLabel("Project name").waitFor();
        assert.equal(await page.getByRole("checkbox", { name: /publish/i }).count(), 0);
      },
    );
    assertSpotless(log, base);
  } finally {
    await context.close();
  }

  await t.step("onboarding names no billing", async () => {
    const person = { name: "Nia New", email: "nia@example.com", password: PASSWORD };
    const res = await signUp(base, "", person);
    await res.body?.cancel();
    const fresh = await openPage(browser);
    await signInToDashboard(fresh.page, base, person);
    await fresh.page.getByRole("heading", { level: 1, name: "Create your workspace" }).waitFor();
    assert.doesNotMatch(await fresh.page.locator("main").innerText(), /billing/i);
    await fresh.context.close();
  });
}
