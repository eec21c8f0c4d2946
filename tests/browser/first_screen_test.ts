/**
 * The first screen in real Chromium, at 375 and 1280 px with axe-core: the banner of an open
 * incident at the top of the latest trust page and of the organization trust center, which
 * also shows certifications, documents with the access-request entry and the subscribe form;
 * and the dashboard's suggestion to disable controls that never reported.
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
import { makePdf } from "../support/documents.ts";
import { startTestServer } from "../support/server.ts";

Deno.test("[browser] first screen: the incident banner, the trust center and unreported controls", async (t) => {
  await using server = await startTestServer({
    env: { SIGNUP: "open", SMTP_URL: "smtp://127.0.0.1:2525" },
    worker: false,
  });
  const base = server.baseUrl;
  const { owner, boot } = await dashboardTeam(base);
  const orgId = boot.organization.id;
  const orgSlug = boot.organization.slug;
  const projectId = boot.project.id;
  await api(base, owner, "POST", `/projects/${projectId}/publish`);
  await api(base, owner, "POST", `/projects/${projectId}/updates`, {
    kind: "incident",
    title: "Elevated API error rates in eu-west",
    body: "We are **investigating**; next update in 30 minutes.",
  });
  await api(base, owner, "POST", `/organizations/${orgId}/certifications`, {
    framework: "iso27001-2022",
    status: "achieved",
    auditor: "Example Certification Body",
    expiresAt: "2099-01-01T00:00:00Z",
  });
  for (
    const [title, visibility] of [["Security policy", "public"], ["Pen test 2026", "restricted"]]
  ) {
    const res = await fetch(
      `${base}/organizations/${orgId}/documents?title=${
        encodeURIComponent(title)
      }&visibility=${visibility}`,
      {
        method: "POST",
        headers: { authorization: `Bearer ${owner}`, "content-type": "application/pdf" },
        body: await makePdf(title) as Uint8Array<ArrayBuffer>,
      },
    );
    assert.equal(res.status, 201);
  }
  await api(base, owner, "PUT", `/organizations/${orgId}/nda`, { text: "Keep it confidential." });
  const browser = await launchBrowser();
  try {
    for (const width of [375, 1280]) {
      await t.step(`the trust page opens with the incident banner at ${width} px`, async () => {
        const { page, log } = await openPage(browser, { viewport: { width, height: 800 } });
        await page.goto(`${base}/trust/acme-cloud`);
        const banner = page.getByRole("region", { name: "Ongoing incident" });
        await banner.waitFor();
        await banner.getByRole("link", { name: "Elevated API error rates in eu-west" }).waitFor();
        const top = (await banner.boundingBox())!;
        const headline = (await page.getByRole("heading", { level: 1 }).boundingBox())!;
        assert.ok(top.y < headline.y, "above the headline");
        assert.ok(top.y + top.height < 800, `on the first screen (ends at ${top.y + top.height})`);
        await assertAccessible(page, `the trust page with the banner at ${width} px`);
        await assertNoHorizontalOverflow(page, `the trust page with the banner at ${width} px`);
        await banner.getByRole("link", { name: "Elevated API error rates in eu-west" }).click();
        await page.getByText("Ongoing", { exact: true }).waitFor();
        assertCleanPage(log, base);
        await page.context().close();
      });

      await t.step(
        `the trust center shows everything a reviewer asks first at ${width} px`,
        async () => {
          const { page, log } = await openPage(browser, { viewport: { width, height: 800 } });
          await page.goto(`${base}/public/trust/${orgSlug}`);
          const banner = page.getByRole("region", { name: "Ongoing incident" });
          await banner.getByText("Incident · Acme Cloud:").waitFor();
          await page.getByRole("heading", { level: 2, name: "Certifications and attestations" })
            .waitFor();
          await page.locator(".cert").filter({ hasText: "ISO/IEC 27001:2022" }).waitFor();
          const documents = page.getByRole("region", { name: "Documents" });
          await documents.getByRole("link", { name: "Download Security policy" }).waitFor();
          await documents.getByRole("link", { name: "Request access to Pen test 2026" }).waitFor();
          await documents.getByRole("link", { name: "Request restricted documents" }).waitFor();
          await page.getByRole("heading", { level: 2, name: "Email updates" }).waitFor();
          await page.getByRole("button", { name: "Subscribe" }).waitFor();
          assert.equal(await page.locator("script").count(), 0);
          await assertAccessible(page, `the trust center at ${width} px`);
          await assertNoHorizontalOverflow(page, `the trust center at ${width} px`);
          await documents.getByRole("link", { name: "Request restricted documents" }).click();
          await page.getByRole("checkbox", { name: /Pen test 2026/ }).waitFor();
          assertCleanPage(log, base);
          await page.context().close();
        },
      );
    }

    await t.step("the dashboard suggests disabling controls that never reported", async () => {
      const { page, log } = await openPage(browser);
      await signInToDashboard(page, base, { email: OWNER.email, password: PASSWORD });
      await api(base, owner, "POST", `/projects/${projectId}/evaluations/recompute`);
      await viewDashboard(page, `${base}/dashboard/#/projects/${projectId}`);
      const notice = page.getByRole("region", { name: "7 controls never reported" });
      await notice.waitFor();
      await assertAccessible(page, "the project overview with the suggestion");
      await notice.getByRole("button", { name: "Disable Build provenance" }).click();
      await page.getByRole("status").filter({ hasText: "disabled" }).waitFor();
      await page.getByRole("region", { name: "6 controls never reported" }).waitFor();
      const { controls } = await api(base, owner, "GET", `/projects/${projectId}/controls`);
      const disabled = controls.filter((c: { enabled: boolean }) => !c.enabled);
      assert.deepEqual(disabled.map((c: { publicName: string }) => c.publicName), [
        "Build provenance",
      ]);
      await assertNoHorizontalOverflow(page, "the project overview");
      assertCleanPage(log, base);
      await page.context().close();
    });
  } finally {
    await browser.close();
  }
});
