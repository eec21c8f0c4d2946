/**
 * Questionnaires in real Chromium against the real service: an owner imports a buyer's
 * workbook (a refused file first, with its message), reads the coverage and the flags,
 * accepts every id match at once, edits one row, rejects one, saves the edited answer to the
 * knowledge base, moves the evidence column, downloads the answered workbook (read back with
 * SheetJS, a reader independent of the service's writer) and the signed manifest, and shares
 * the file with the buyer; axe at 1280 px and 375 px, no sideways scrolling at 375 px.
 */
import assert from "node:assert/strict";
import { type Page, SheetJS } from "../deps.ts";
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

/** The buyer's sheet, in a CAIQ-like layout: id, question, answer, notes. */
const HEADERS = ["Question ID", "Question", "Answer", "Notes"];
const QUESTIONS: [string, string][] = [
  ["IAM-02.1", "Is multi-factor authentication enforced for administrative access?"],
  ["CEK-03.1", "Is customer data encrypted at rest?"],
  ["A&A-01.1", "Are audit and assurance policies reviewed every year?"],
  ["BCR-08.1", "How often are customer databases backed up?"],
  ["HRS-02.1", "Are employees screened with background checks before they are hired?"],
  ["STA-09.1", "Do you keep an inventory of your physical office furniture?"],
];

/** The workbook as the buyer sends it, written with SheetJS. */
function buyerWorkbook(): Uint8Array {
  const sheet = SheetJS.utils.aoa_to_sheet([
    HEADERS,
    ...QUESTIONS.map(([id, question]) => [id, question, "", ""]),
  ]);
  const book = SheetJS.utils.book_new();
  SheetJS.utils.book_append_sheet(book, sheet, "CAIQ");
  return new Uint8Array(SheetJS.write(book, { type: "array", bookType: "xlsx" }));
}

/** Runs `click` and saves what it downloads; its bytes and suggested name. */
async function downloaded(page: Page, click: () => Promise<void>) {
  const [download] = await Promise.all([page.waitForEvent("download"), click()]);
  const path = await download.path();
  return { bytes: await Deno.readFile(path), name: download.suggestedFilename() };
}

/** The text of row `row`'s cell in `column` of the first sheet ("" when empty). */
function cellText(book: SheetJS.WorkBook, address: string): string {
  const sheet = book.Sheets[book.SheetNames[0]];
  return String(sheet[address]?.v ?? "");
}

Deno.test("[browser] questionnaires: import, review, columns, export and share", async (t) => {
  await using server = await startTestServer({ env: { SIGNUP: "open" }, worker: false });
  const base = server.baseUrl;
  const { owner, boot } = await dashboardTeam(base);
  const orgId = boot.organization.id;
  const answersPath = `/organizations/${orgId}/answers`;
  await api(base, owner, "POST", `/projects/${boot.project.id}/publish`);
  await api(base, owner, "PUT", `/organizations/${orgId}/nda`, { text: "Keep it." });
  const { controls } = await api(base, owner, "GET", `/projects/${boot.project.id}/controls`);
  const scan = controls.find((c: { key: string }) => c.key === "evidence.vulnerability_scan");
  const answer = (question: string, text: string, refs: string[], citations: unknown[] = []) =>
    api(base, owner, "POST", answersPath, {
      question,
      answer: text,
      category: "Security",
      visibility: "public",
      questionnaireRefs: refs.map((id) => ({ questionnaire: "caiq-v4", id })),
      citations,
    });
  await answer("Do you enforce MFA for administrators?", "Yes, with hardware keys.", ["IAM-02.1"]);
  await answer("Do you encrypt customer data at rest?", "Yes, AES-256 in a KMS.", ["CEK-03.1"], [
    { kind: "control", id: scan.id },
  ]);
  await answer("Do you review audit policies?", "Yes, every year.", ["A&A-01.1"]);
  await answer("Are audit policies approved by management?", "Yes, by the board.", ["A&A-01.1"]);
  await answer(
    "How often are customer databases backed up?",
    "Every night, kept for 35 days.",
    [],
  );
  const workbook = await Deno.makeTempFile({ suffix: ".xlsx" });
  await Deno.writeFile(workbook, buyerWorkbook());
  const notAWorkbook = await Deno.makeTempFile({ suffix: ".xlsx" });
  await Deno.writeTextFile(notAWorkbook, "This is a letter, not a spreadsheet.\n");
  const list = `${base}/dashboard/#/orgs/${orgId}/questionnaires`;
  let questionnaireUrl = "";

  const browser = await launchBrowser();
  try {
    await t.step("an owner imports, reviews and exports a workbook (1280 px)", async () => {
      const { page, log } = await openPage(browser);
      await signInToDashboard(page, base, { email: OWNER.email, password: PASSWORD });
      await viewDashboard(page, list);
      await page.getByText("No questionnaires yet").waitFor();
      await assertAccessible(page, "the questionnaires tab");

      // A file that is no workbook is refused with the service's reason, and nothing is listed.
      await expectFailedRequests(log, [415, 422], async () => {
        await page.getByLabel("Questionnaire file").setInputFiles(notAWorkbook);
        await page.getByLabel("Name", { exact: true }).fill("A letter");
        await page.getByRole("button", { name: "Import questionnaire" }).click();
        await page.getByRole("alert").filter({ hasText: "Nothing was stored" }).waitFor();
      });
      await assertAccessible(page, "the refused import");

      await page.getByLabel("Questionnaire file").setInputFiles(workbook);
      await page.getByLabel("Name", { exact: true }).fill("Buyer CAIQ");
      await page.getByRole("button", { name: "Import questionnaire" }).click();
      await page.getByRole("status").filter({ hasText: "“Buyer CAIQ” imported" }).waitFor();
      questionnaireUrl = page.url();
      const coverage = page.locator(".coverage-text");
      assert.equal(
        await coverage.textContent(),
        "4 of 6 answered from the knowledge base: 3 by id, 1 by text; 2 need an answer",
      );
      await page.getByText("Two answers claim the same question id").waitFor();
      await page.getByRole("cell", { name: /matched by id IAM-02\.1/ }).waitFor();
      await page.getByText(/shared terms: .*backed/).waitFor();
      await assertAccessible(page, "a questionnaire");

      await page.getByRole("button", { name: "Accept all id matches" }).click();
      await page.getByRole("status").filter({ hasText: "id matches accepted" }).waitFor();
      await page.getByText(/^3 accepted, 0 edited, 0 rejected; 3 to review$/).waitFor();

      await page.getByRole("button", { name: "Edit the answer to HRS-02.1" }).click();
      await page.getByLabel("Answer to HRS-02.1").fill(
        "Yes: every employee, before the first day.",
      );
      await page.getByRole("button", { name: "Save edit" }).click();
      await page.getByRole("status").filter({ hasText: "HRS-02.1: edited" }).waitFor();
      await page.getByRole("button", { name: "Reject the answer to BCR-08.1" }).click();
      await page.getByRole("status").filter({ hasText: "BCR-08.1: rejected" }).waitFor();
      await page.getByText(/^3 accepted, 1 edited, 1 rejected; 1 to review$/).waitFor();

      await page.getByRole("button", {
        name: "Save the answer to HRS-02.1 to the knowledge base",
      }).click();
      await page.getByLabel("Category").fill("People");
      await page.getByRole("button", { name: "Save to knowledge base" }).click();
      await page.getByRole("status").filter({ hasText: "Saved to the knowledge base" }).waitFor();
      await assertAccessible(page, "a reviewed questionnaire");
      const { answers } = await api(base, owner, "GET", answersPath);
      const learned = answers.find((a: { answer: string }) =>
        a.answer === "Yes: every employee, before the first day."
      );
      assert.ok(learned, "the edited answer is in the knowledge base");
      assert.deepEqual(
        learned.questionnaireRefs.map((r: { id: string }) => r.id),
        ["HRS-02.1"],
      );

      // The evidence goes into the buyer's Notes column instead of a new one.
      const sheet = page.getByRole("group", { name: /Sheet “CAIQ”/ });
      await sheet.getByLabel("Evidence column").selectOption("D");
      await page.getByRole("button", { name: "Re-read with these columns" }).click();
      await page.getByRole("status").filter({ hasText: "re-read with the chosen columns" })
        .waitFor();
      await page.getByText(/^3 accepted, 1 edited, 1 rejected; 1 to review$/).waitFor();
      assert.equal(
        await page.getByRole("group", { name: /Sheet “CAIQ”/ }).getByLabel("Evidence column")
          .inputValue(),
        "D",
      );

      const file = await downloaded(
        page,
        () => page.getByRole("button", { name: "Download the answered file" }).click(),
      );
      assert.match(file.name, /\.xlsx$/);
      const book = SheetJS.read(file.bytes, { type: "array" });
      const rowOf = (id: string) => QUESTIONS.findIndex(([q]) => q === id) + 2;
      assert.equal(cellText(book, "B2"), QUESTIONS[0][1], "the questions are kept");
      assert.equal(cellText(book, `C${rowOf("IAM-02.1")}`), "Yes, with hardware keys.");
      assert.equal(
        cellText(book, `C${rowOf("HRS-02.1")}`),
        "Yes: every employee, before the first day.",
      );
      assert.match(cellText(book, `D${rowOf("CEK-03.1")}`), /^https?:\/\//);
      assert.equal(cellText(book, "E1"), "", "no evidence column was added");
      const rejected = cellText(book, `C${rowOf("BCR-08.1")}`);
      assert.notEqual(rejected, "Every night, kept for 35 days.");

      const manifest = await downloaded(
        page,
        () => page.getByRole("button", { name: "Download the signed manifest" }).click(),
      );
      assert.match(new TextDecoder().decode(manifest.bytes), /^[\w-]+\.[\w-]+\.[\w-]+$/);

      await page.getByRole("button", { name: "Share with the buyer" }).click();
      const shared = page.getByRole("status").filter({ hasText: "Shared as the restricted" });
      await shared.waitFor();
      assert.equal(
        await shared.getByRole("link", { name: "Manage access links" }).getAttribute("href"),
        `#/orgs/${orgId}/documents`,
      );
      const { documents } = await api(base, owner, "GET", `/organizations/${orgId}/documents`);
      assert.equal(documents.length, 1);
      assert.equal(documents[0].visibility, "restricted");
      await assertAccessible(page, "an exported questionnaire");
      assertCleanPage(log, base);
      await page.context().close();
    });

    await t.step("the questionnaire at 375 px: reflowed, no sideways scroll", async () => {
      const { page, log } = await openPage(browser, { viewport: { width: 375, height: 800 } });
      await signInToDashboard(page, base, { email: OWNER.email, password: PASSWORD });
      await viewDashboard(page, questionnaireUrl);
      await page.locator(".coverage-text").waitFor();
      await page.getByRole("button", { name: "Edit the answer to STA-09.1" }).click();
      await page.getByLabel("Answer to STA-09.1").waitFor();
      await assertAccessible(page, "a questionnaire at 375 px");
      await assertNoHorizontalOverflow(page, "a questionnaire at 375 px");
      await viewDashboard(page, list);
      await page.getByRole("link", { name: "Buyer CAIQ" }).waitFor();
      await assertAccessible(page, "the questionnaires tab at 375 px");
      await assertNoHorizontalOverflow(page, "the questionnaires tab at 375 px");
      assertCleanPage(log, base);
      await page.context().close();
    });
  } finally {
    await browser.close();
  }
});
