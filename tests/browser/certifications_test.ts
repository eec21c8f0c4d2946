/**
 * Certifications in real Chromium: an owner records and edits them in the dashboard's
 * Certifications section, then the latest trust page and the organization trust center show
 * them as cards on the first screen, at 375 and 1280 px, with axe-core and no script.
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
  MEMBER,
  OWNER,
  PASSWORD,
  signInToDashboard,
  viewDashboard,
} from "../support/dashboard.ts";
import { makePdf } from "../support/documents.ts";
import { documentKey } from "../../src/store/keys.ts";
import { startTestServer } from "../support/server.ts";

/** A finished audit: its period and issue date are past and it expires decades ahead. */
// fixed-instant: a past audit period and issue date, the same state whatever day it runs
const AUDIT = { from: "2025-10-01", to: "2026-09-30", issued: "2026-10-15", expires: "2099-10-15" };

Deno.test("[browser] certifications: the dashboard section and the cards on the public pages", async (t) => {
  await using server = await startTestServer({ env: { SIGNUP: "open" }, worker: false });
  const base = server.baseUrl;
  const { owner, boot } = await dashboardTeam(base);
  const orgId = boot.organization.id;
  const orgSlug = boot.organization.slug;
  const uploaded = await fetch(
    `${base}/organizations/${orgId}/documents?title=SOC%202%20Type%20II%20report&visibility=restricted`,
    {
      method: "POST",
      headers: { authorization: `Bearer ${owner}`, "content-type": "application/pdf" },
      body: await makePdf("SOC 2 Type II report") as Uint8Array<ArrayBuffer>,
    },
  );
  assert.equal(uploaded.status, 201);
  const documentId = (await uploaded.json()).document.id;
  await api(base, owner, "PUT", `/organizations/${orgId}/nda`, { text: "Keep it to yourself." });
  const browser = await launchBrowser();
  try {
    await t.step("an owner records, edits and sees them (1280 px)", async () => {
      const { page, log } = await openPage(browser);
      await signInToDashboard(page, base, { email: OWNER.email, password: PASSWORD });
      await viewDashboard(page, `${base}/dashboard/#/orgs/${orgId}/certifications`);
      await page.getByText("No certifications recorded").waitFor();
      await assertAccessible(page, "the empty certifications section");
      const form = page.getByRole("form", { name: "Certification" });
      await form.getByLabel("Framework", { exact: true }).selectOption("soc2-type2");
      await form.getByLabel("Status").selectOption("achieved");
      await form.getByLabel("Auditor or certification body").fill("Example Assurance LLP");
      await form.getByLabel("Audit period from").fill(AUDIT.from);
      await form.getByLabel("Audit period to").fill(AUDIT.to);
      await form.getByLabel("Issued on").fill(AUDIT.issued);
      await form.getByLabel("Expires on").fill(AUDIT.expires);
      await form.getByLabel("Scope").fill("The Acme Cloud platform and its APIs");
      await form.getByLabel("Report").selectOption({ label: "SOC 2 Type II report (restricted)" });
      await form.getByLabel("Public registry URL").fill("https://registry.example/acme");
      await page.getByRole("button", { name: "Add certification" }).click();
      await page.getByRole("status").filter({ hasText: "SOC 2 Type II added" }).waitFor();
      assert.equal(await form.getByLabel("Framework name").isVisible(), false);
      await form.getByLabel("Framework", { exact: true }).selectOption("other");
      await form.getByLabel("Framework name").fill("ISO/IEC 42001:2023");
      await form.getByLabel("Status").selectOption("in_progress");
      await form.getByLabel("Applies to").selectOption({ label: "Acme Cloud" });
      await page.getByRole("button", { name: "Add certification" }).click();
      await page.getByRole("status").filter({ hasText: "ISO/IEC 42001:2023 added" }).waitFor();
      await page.getByRole("button", { name: "Edit SOC 2 Type II" }).click();
      await form.getByLabel("Auditor or certification body").fill("Example Audit Partners");
      await page.getByRole("button", { name: "Save certification" }).click();
      await page.getByRole("status").filter({ hasText: "SOC 2 Type II saved" }).waitFor();
      await page.getByRole("cell", { name: "Example Audit Partners" }).waitFor();
      await assertAccessible(page, "the certifications section with two claims");
      await assertNoHorizontalOverflow(page, "the certifications section");
      const { certifications } = await api(
        base,
        owner,
        "GET",
        `/organizations/${orgId}/certifications`,
      );
      assert.deepEqual(
        certifications.map((c: { frameworkName: string; status: string }) =>
          `${c.frameworkName}: ${c.status}`
        ),
        ["SOC 2 Type II: achieved", "ISO/IEC 42001:2023: in_progress"],
      );
      assert.equal(certifications[0].auditPeriod.start, `${AUDIT.from}T00:00:00.000Z`);
      assert.equal(certifications[0].registryUrl, "https://registry.example/acme");
      assertCleanPage(log, base);
      await page.context().close();
    });

    await t.step("a member reads them at 375 px", async () => {
      const { page, log } = await openPage(browser, { viewport: { width: 375, height: 800 } });
      await signInToDashboard(page, base, { email: MEMBER.email, password: PASSWORD });
      await viewDashboard(page, `${base}/dashboard/#/orgs/${orgId}/certifications`);
      await page.getByText("Only owners of the organization can change certifications.").waitFor();
      await page.getByText("Example Audit Partners").waitFor();
      await assertAccessible(page, "the certifications section at 375 px");
      await assertNoHorizontalOverflow(page, "the certifications section at 375 px");
      assertCleanPage(log, base);
      await page.context().close();
    });

    // fixed-instant: a certification that expired on 2026-01-01, expired whatever day it runs
    await api(base, owner, "POST", `/organizations/${orgId}/certifications`, {
      framework: "iso27001-2022",
      status: "achieved",
      auditor: "Example Certification Body",
      issuedAt: "2023-01-01T00:00:00Z",
      expiresAt: "2026-01-01T00:00:00Z",
    });
    await api(base, owner, "POST", `/projects/${boot.project.id}/publish`);

    for (const width of [375, 1280]) {
      await t.step(
        `the trust page shows the cards on its first screen at ${width} px`,
        async () => {
          const { page, log } = await openPage(browser, { viewport: { width, height: 800 } });
          await page.goto(`${base}/trust/acme-cloud`);
          const heading = page.getByRole("heading", {
            level: 2,
            name: "Certifications and attestations",
          });
          await heading.waitFor();
          const cards = page.locator(".cert");
          assert.equal(await cards.count(), 3);
          const soc2 = cards.filter({ hasText: "SOC 2 Type II" });
          await soc2.getByText("Achieved", { exact: true }).waitFor();
          await soc2.getByText("Example Audit Partners").waitFor();
          await soc2.getByRole("link", { name: /^Request the report/ }).waitFor();
          const iso = cards.filter({ hasText: "ISO/IEC 27001:2022" });
          await iso.getByText("Expired", { exact: true }).waitFor();
          await iso.getByText("Expired on").waitFor();
          await page.getByText(/Declared by the vendor, not verified by this service;/).waitFor();
          const top = (await heading.boundingBox())!.y;
          const summary = (await page.locator("#summary-title").boundingBox())!.y;
          assert.ok(top < summary, "before the summary and the controls");
          if (width === 1280) {
            const first = (await cards.first().boundingBox())!;
            const bottom = first.y + first.height;
            assert.ok(bottom < 800, `the first card is on the first screen (ends at ${bottom} px)`);
          }
          assert.equal(await page.locator("script").count(), 0);
          await assertAccessible(page, `the trust page with certifications at ${width} px`);
          await assertNoHorizontalOverflow(
            page,
            `the trust page with certifications at ${width} px`,
          );
          assertCleanPage(log, base);
          await page.context().close();
        },
      );

      await t.step(`the trust center shows them too at ${width} px`, async () => {
        const { page, log } = await openPage(browser, { viewport: { width, height: 800 } });
        await page.goto(`${base}/public/trust/${orgSlug}`);
        await page.getByRole("heading", { level: 2, name: "Certifications and attestations" })
          .waitFor();
        const other = page.locator(".cert").filter({ hasText: "ISO/IEC 42001:2023" });
        await other.getByText("Acme Cloud").waitFor();
        await other.getByText("In progress", { exact: true }).waitFor();
        await assertAccessible(page, `the trust center with certifications at ${width} px`);
        await assertNoHorizontalOverflow(page, `the trust center at ${width} px`);
        assertCleanPage(log, base);
        await page.context().close();
      });
    }

    await t.step(
      "a report removed before such removals were refused shows as removed",
      async () => {
        // Removing a linked report is refused now; an older removal left the link dangling.
        await server.kv.delete(documentKey(orgId, documentId));
        const { page, log } = await openPage(browser);
        await signInToDashboard(page, base, { email: OWNER.email, password: PASSWORD });
        await viewDashboard(page, `${base}/dashboard/#/orgs/${orgId}/certifications`);
        const row = page.getByRole("row").filter({ hasText: "SOC 2 Type II" });
        await row.getByText("Report removed").waitFor();
        await row.getByText("Pages show no report: edit to link another").waitFor();
        await assertAccessible(page, "a certification whose report was removed");
        assertCleanPage(log, base);
        await page.context().close();
      },
    );
  } finally {
    await browser.close();
  }
});
