/**
 * Nothing silently dropped, in real Chromium against the real service: an owner imports a CSV
 * with an id column whose id-less, question-less rows are set aside ("Password policy" and
 * "Access Control" as headings, "42" ignored). The review's "Set aside" section, collapsed,
 * counts them; opened with the keyboard it lists each with its sheet, row, text and rule in
 * words; "Make it a question" (pressed with the keyboard) turns "Password policy" into a row to
 * review, and the row count, the progress line and the summary's coverage move without a
 * reload (1280×800). A member at 375 px sets the same row aside again from the row under
 * review ("Not a question?"): it leaves the rows and is listed as the reviewer's choice. Axe on
 * every state, no sideways scrolling at 375 px.
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
import { startTestServer } from "../support/server.ts";

const CSV = [
  "ID,Question,Answer",
  ",Access Control,",
  "AC-1,Do you enforce multi-factor authentication for administrators?,",
  ",Password policy,",
  "AC-2,Describe how access rights are reviewed.,",
  ",42,",
  "",
].join("\n");

interface SetAsideRow {
  key: string;
  sheet: string;
  row: number;
  text: string;
  kind: string;
  rule: string;
  ruleText: string;
}

Deno.test("[browser] questionnaire review: rows set aside, shown with their rule and made questions", async (t) => {
  await using server = await startTestServer({ env: { SIGNUP: "open" }, worker: false });
  const base = server.baseUrl;
  const { owner, boot } = await dashboardTeam(base);
  const orgId = boot.organization.id;
  const file = await Deno.makeTempFile({ suffix: ".csv" });
  await Deno.writeTextFile(file, CSV);
  let questionnaireUrl = "";
  let path = "";

  const browser = await launchBrowser();
  try {
    await t.step("an owner makes a heading a question with the keyboard (1280×800)", async () => {
      const { page, log } = await openPage(browser, { viewport: { width: 1280, height: 800 } });
      await signInToDashboard(page, base, { email: OWNER.email, password: PASSWORD });
      await viewDashboard(page, `${base}/dashboard/#/orgs/${orgId}/questionnaires`);
      await page.getByLabel("Questionnaire file").setInputFiles(file);
      await page.getByLabel("Name", { exact: true }).fill("Hooli access");
      await page.getByRole("button", { name: "Import questionnaire" }).click();
      await page.getByRole("status").filter({ hasText: "“Hooli access” imported" }).waitFor();
      questionnaireUrl = page.url();
      path = `/organizations/${orgId}/questionnaires/${questionnaireUrl.split("/").at(-1)}`;

      // What the service set aside, and why.
      const { questionnaire } = await api(base, owner, "GET", path);
      assert.equal(questionnaire.coverage.questions, 2);
      const setAside = questionnaire.setAside.rows as SetAsideRow[];
      assert.deepEqual(
        setAside.map(({ row, text, kind, rule }) => [row, text, kind, rule]),
        [
          [2, "Access Control", "heading", "heading"],
          [4, "Password policy", "heading", "heading"],
          [6, "42", "ignored", "no_letters"],
        ],
      );

      // Collapsed by default, with its count.
      const section = page.locator("details.set-aside");
      const summary = section.locator("summary");
      assert.equal(
        await summary.textContent(),
        "3 rows set aside: 2 headings, 1 ignored",
      );
      assert.equal(await section.getAttribute("open"), null);
      assert.equal(
        await section.getByRole("button", { name: /^Make it a question/ }).first().isVisible(),
        false,
      );
      await page.getByText("2 rows", { exact: true }).waitFor();
      await assertAccessible(page, "a review with rows set aside (collapsed)");

      // Opened and used with the keyboard alone.
      await summary.focus();
      await page.keyboard.press("Enter");
      assert.equal(await section.getAttribute("open"), "");
      const heading = section.locator("tr", { hasText: "Password policy" });
      assert.deepEqual(
        await heading.locator("td").allTextContents(),
        [
          `${setAside[1].sheet}, row 4`,
          "Password policy",
          "Heading",
          setAside[1].ruleText,
          "Make it a question",
        ],
      );
      await section.locator("tr", { hasText: "42" }).getByText(setAside[2].ruleText).waitFor();
      await assertAccessible(page, "a review with rows set aside (open)");

      const make = section.getByRole("button", {
        name: `Make it a question: row 4 of “${setAside[1].sheet}”`,
      });
      await make.focus();
      await page.keyboard.press("Enter");
      await page.getByRole("status").filter({ hasText: "is now a question to review" }).waitFor();
      // The rows, the progress line, the count and the summary's coverage moved, no reload.
      await page.getByText("3 rows", { exact: true }).waitFor();
      const row = page.locator(".review-grid tr", { hasText: "Password policy" });
      await row.waitFor();
      assert.equal(await row.getAttribute("aria-current"), "true");
      await page.locator(".review-detail h3", { hasText: "Password policy" }).waitFor();
      await page.locator(".review-progress", { hasText: "0 of 3 answered in the file" }).waitFor();
      await page.locator(".coverage-text", { hasText: / of 3 answered/ }).waitFor();
      assert.equal(
        await summary.textContent(),
        "2 rows set aside: 1 heading, 1 ignored",
      );
      assert.equal(await section.locator("tr", { hasText: "Password policy" }).count(), 0);
      await assertAccessible(page, "a review after a row was made a question");

      const after = await api(base, owner, "GET", path);
      assert.equal(after.questionnaire.coverage.questions, 3);
      const { rows } = await api(base, owner, "GET", `${path}/rows?limit=200`);
      const made = rows.find((r: { question: string }) => r.question === "Password policy");
      assert.equal(made?.rule, "chosen");
      assertCleanPage(log, base);
      await page.context().close();
    });

    await t.step("a member at 375 px sets the row aside again", async () => {
      const { page, log } = await openPage(browser, { viewport: { width: 375, height: 800 } });
      await signInToDashboard(page, base, { email: MEMBER.email, password: PASSWORD });
      await viewDashboard(page, questionnaireUrl);
      await page.getByText("3 rows", { exact: true }).waitFor();
      await page.locator(".review-grid tr", { hasText: "Password policy" }).locator(".row-open")
        .click();
      const detail = page.locator(".review-detail");
      await detail.locator("summary", { hasText: "Not a question?" }).click();
      await assertAccessible(page, "the row under review's set-aside choices at 375 px");
      await detail.getByRole("button", { name: /^Set aside as a heading: / }).click();
      await page.getByRole("status").filter({ hasText: "set aside as a heading" }).waitFor();
      await page.getByText("2 rows", { exact: true }).waitFor();
      assert.equal(
        await page.locator(".review-grid tr", { hasText: "Password policy" }).count(),
        0,
      );
      await page.locator(".coverage-text", { hasText: / of 2 answered/ }).waitFor();
      const section = page.locator("details.set-aside");
      assert.equal(
        await section.locator("summary").textContent(),
        "3 rows set aside: 2 headings, 1 ignored",
      );
      await section.locator("summary").click();
      await section.locator("tr", { hasText: "Password policy" }).getByText("A reviewer chose it")
        .waitFor();
      await assertAccessible(page, "rows set aside at 375 px");
      await assertNoHorizontalOverflow(page, "rows set aside at 375 px");
      assertCleanPage(log, base);
      await page.context().close();
    });
  } finally {
    await browser.close();
    await Deno.remove(file);
  }
});
