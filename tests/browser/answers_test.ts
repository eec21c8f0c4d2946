/**
 * Answers in real Chromium: an owner adds answers in the dashboard (a citation of nothing is
 * refused with the API's message), then a buyer searches them from the trust page with the
 * plain GET form (the pages carry no script), at 375 and 1280 px with axe.
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
  api,
  assertCleanPage,
  dashboardTeam,
  OWNER,
  PASSWORD,
  signInToDashboard,
  viewDashboard,
} from "../support/dashboard.ts";
import { startTestServer } from "../support/server.ts";

Deno.test("[browser] answers: the dashboard tab and the search on the trust pages", async (t) => {
  await using server = await startTestServer({ env: { SIGNUP: "open" }, worker: false });
  const base = server.baseUrl;
  const { owner, boot } = await dashboardTeam(base);
  const orgId = boot.organization.id;
  await api(base, owner, "POST", `/projects/${boot.project.id}/publish`);
  await api(base, owner, "PUT", `/organizations/${orgId}/nda`, { text: "Keep it." });
  await api(base, owner, "POST", `/organizations/${orgId}/answers`, {
    question: "When was your last penetration test?",
    answer: "In March, by Example Labs.",
    category: "Testing",
    visibility: "restricted",
    questionnaireRefs: [{ questionnaire: "caiq-v4", id: "TVM-06.1" }],
  });
  const browser = await launchBrowser();
  try {
    await t.step("an owner adds an answer in the dashboard (1280 px)", async () => {
      const { page, log } = await openPage(browser);
      await signInToDashboard(page, base, { email: OWNER.email, password: PASSWORD });
      await viewDashboard(page, `${base}/dashboard/#/orgs/${orgId}/answers`);
      await page.getByRole("heading", { level: 3, name: "When was your last penetration test?" })
        .waitFor();
      await assertAccessible(page, "the answers tab");
      const form = page.getByRole("form", { name: "New answer" });
      await form.getByLabel("Question", { exact: true }).fill(
        "Do you encrypt customer data at rest?",
      );
      await form.getByLabel("Answer (Markdown)").fill("Yes, with **AES-256** keys in a KMS.");
      await form.getByLabel("Category").fill("Encryption");
      await form.getByLabel("Questionnaire ids, one per line").fill("caiq-v4 CEK-03.1\nsig D.4");
      await expectFailedRequests(log, [400], async () => {
        await form.getByLabel("Citations, one per line").fill(`document ${crypto.randomUUID()}`);
        await form.getByRole("button", { name: "Add answer" }).click();
        await page.getByRole("alert").filter({ hasText: "no document" }).waitFor();
      });
      await form.getByLabel("Citations, one per line").fill("");
      await form.getByRole("button", { name: "Add answer" }).click();
      await page.getByRole("status").filter({ hasText: "added" }).waitFor();
      await page.getByRole("heading", { level: 3, name: "Do you encrypt customer data at rest?" })
        .waitFor();
      await assertAccessible(page, "the answers tab with two answers");
      await assertNoHorizontalOverflow(page, "the answers tab");
      const { answers } = await api(base, owner, "GET", `/organizations/${orgId}/answers`);
      assert.deepEqual(answers.map((a: { category: string }) => a.category), [
        "Encryption",
        "Testing",
      ]);
      assert.deepEqual(answers[0].questionnaireRefs, [
        { questionnaire: "caiq-v4", id: "CEK-03.1" },
        { questionnaire: "sig", id: "D.4" },
      ]);
      assertCleanPage(log, base);
      await page.context().close();
    });

    for (const width of [375, 1280]) {
      await t.step(`a buyer searches from the trust page at ${width} px`, async () => {
        const { page, log } = await openPage(browser, { viewport: { width, height: 800 } });
        await page.goto(`${base}/trust/acme-cloud`);
        const section = page.getByRole("region", { name: "Security answers" });
        await section.getByText("answers 2 security questions").waitFor();
        await section.getByLabel("Search the answers").fill("encrypt rest");
        await section.getByRole("button", { name: "Search" }).click();
        await page.getByRole("heading", { level: 1, name: "Acme Security: security answers" })
          .waitFor();
        assert.match(page.url(), /\/public\/trust\/[^/]+\/answers\?q=encrypt\+rest$/);
        await page.getByText("1 of 2 answers match “encrypt rest”").waitFor();
        await page.getByRole("heading", { level: 3, name: "Do you encrypt customer data at rest?" })
          .waitFor();
        assert.equal(await page.getByRole("searchbox").inputValue(), "encrypt rest");
        await assertAccessible(page, `the search results at ${width} px`);
        await assertNoHorizontalOverflow(page, `the search results at ${width} px`);
        await page.getByRole("link", { name: "All answers" }).click();
        await page.getByRole("heading", { level: 2, name: "Testing" }).waitFor();
        await page.getByRole("link", { name: /^Request access/ }).waitFor();
        assert.equal(await page.getByText("Example Labs").count(), 0);
        assert.equal(await page.locator("script").count(), 0);
        await assertAccessible(page, `all answers at ${width} px`);
        await assertNoHorizontalOverflow(page, `all answers at ${width} px`);
        assertCleanPage(log, base);
        await page.context().close();
      });
    }
  } finally {
    await browser.close();
  }
});
