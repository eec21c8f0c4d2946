/**
 * Questionnaires in real Chromium against the real service: an owner imports a buyer's
 * workbook (a refused file first, with its message), reads the coverage and the flags,
 * accepts every id match at once, edits one row, rejects one, saves the edited answer to the
 * knowledge base, moves the evidence column, downloads the answered workbook (read back with
 * SheetJS, a reader independent of the service's writer) and the signed manifest, and shares
 * the file with the buyer: the NDA written on the way, a link in plain words, email said to be
 * off, and the buyer's request form opened from it (1280 px). A member at 375 px reviews (a suggestion below the
 * threshold chosen by hand; no share, no saving to the knowledge base), drops a free-form CSV on the import, and deletes it. Axe on every view, no
 * sideways scrolling at 375 px.
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
  MEMBER,
  OWNER,
  PASSWORD,
  signInToDashboard,
  viewDashboard,
} from "../support/dashboard.ts";
import { startTestServer } from "../support/server.ts";
import { CAIQ_ROWS } from "../fixtures/questionnaires/rows.ts";

/** A buyer's workbook in the CAIQ v4.0.3 layout (four sheets; questions on the second). */
const CAIQ = new URL("../fixtures/questionnaires/caiq_v4.0.3.xlsx", import.meta.url);
const SHEET = "CAIQv4.0.3";
/** A buyer's own free-form CSV (five questions, no ids). */
const FREE_FORM = new URL("../fixtures/questionnaires/free_form_utf8.csv", import.meta.url);
/** The sheet's row of a question id: the questions start on row 4, below the headers. */
const rowOf = (id: string) => CAIQ_ROWS.findIndex(([q]) => q === id) + 4;

/** Runs `click` and saves what it downloads; its bytes and suggested name. */
async function downloaded(page: Page, click: () => Promise<void>) {
  const [download] = await Promise.all([page.waitForEvent("download"), click()]);
  const path = await download.path();
  return { bytes: await Deno.readFile(path), name: download.suggestedFilename() };
}

/** The text of a cell of the questions' sheet ("" when empty). */
function cellText(book: SheetJS.WorkBook, address: string): string {
  return String(book.Sheets[SHEET][address]?.v ?? "");
}

Deno.test("[browser] questionnaires: import, review, columns, export and share", async (t) => {
  await using server = await startTestServer({ env: { SIGNUP: "open" }, worker: false });
  const base = server.baseUrl;
  const { owner, boot } = await dashboardTeam(base);
  const orgId = boot.organization.id;
  const answersPath = `/organizations/${orgId}/answers`;
  await api(base, owner, "POST", `/projects/${boot.project.id}/publish`);
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
  await answer("Is there a strong password policy?", "Yes: 14 characters at least.", [
    "IAM-02.1",
  ]);
  await answer(
    "Is data encrypted at rest and in transit?",
    "Yes: AES-256 at rest, TLS 1.2 or later in transit.",
    ["CEK-03.1"],
    [{ kind: "control", id: scan.id }],
  );
  // Two answers claim A&A-01.2: the questionnaire flags them.
  await answer("Are audit policies reviewed every year?", "Yes, every year.", ["A&A-01.2"]);
  await answer("Who approves the audit policies?", "The board approves them.", ["A&A-01.2"]);
  await answer("How often are backups of cloud data taken?", "Every night, kept 35 days.", []);
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

      await page.getByLabel("Questionnaire file").setInputFiles(CAIQ.pathname);
      assert.equal(await page.getByLabel("Name", { exact: true }).inputValue(), "A letter");
      await page.getByLabel("Name", { exact: true }).fill("Globex CAIQ");
      await page.getByRole("button", { name: "Import questionnaire" }).click();
      await page.getByRole("status").filter({ hasText: "“Globex CAIQ” imported" }).waitFor();
      questionnaireUrl = page.url();
      const questionnaireId = questionnaireUrl.split("/").at(-1)!;
      const path = `/organizations/${orgId}/questionnaires/${questionnaireId}`;
      const { questionnaire } = await api(base, owner, "GET", path);
      assert.match(
        questionnaire.coverage.text,
        /^\d+ of 40 answered from the knowledge base: 3 by id, \d+ by text; \d+ need an answer$/,
      );
      assert.equal(await page.locator(".coverage-text").textContent(), questionnaire.coverage.text);
      await page.getByText("Two answers claim the same question id").first().waitFor();
      await page.getByText(/^Review: 0 accepted, 0 edited, 0 rejected; 40 to review$/).waitFor();
      await assertAccessible(page, "a questionnaire");

      // Every row in one dense table; a row chosen shows in full beside it.
      await page.getByText("40 rows", { exact: true }).waitFor();
      const detail = page.locator(".review-detail");
      const open = (id: string) =>
        page.locator(".review-grid tr", { has: page.getByText(id, { exact: true }) })
          .locator(".row-open").click();
      await open("IAM-02.1");
      await detail.getByText("matched by id IAM-02.1").waitFor();
      await open("BCR-08.1");
      await detail.getByText(/shared terms: .*backups/).waitFor();
      await open("CEK-03.1");
      await detail.getByRole("link", { name: /Vulnerability scan/ }).first().waitFor();
      await detail.getByText(/acme-cloud v1/).first().waitFor();

      await page.getByRole("button", { name: "Accept all id matches" }).click();
      await page.getByRole("status").filter({ hasText: "3 id matches accepted" }).waitFor();
      await page.getByText(/^Review: 3 accepted, 0 edited, 0 rejected; 37 to review$/).waitFor();

      // "Next to review" from the first row: the next row still pending.
      await page.getByRole("button", { name: "Next to review" }).click();
      await page.getByRole("status").filter({ hasText: /^Next to review: / }).waitFor();
      assert.equal(
        (await page.locator(".review-grid tr.is-current .col-decision").innerText()).trim(),
        "To review",
      );
      await open("HRS-01.1");
      await page.getByRole("button", { name: "Edit the answer to HRS-01.1" }).click();
      await page.getByLabel("Answer to HRS-01.1", { exact: true }).fill(
        "Yes: for everyone, before the first day.",
      );
      await page.getByRole("button", { name: "Save edit" }).click();
      await page.getByRole("status").filter({ hasText: "HRS-01.1: edited" }).waitFor();
      // Keyboard: the row's Reject button, reached by focus and pressed with Enter.
      await open("BCR-08.1");
      await page.getByRole("button", { name: "Reject the answer to BCR-08.1" }).focus();
      await page.keyboard.press("Enter");
      await page.getByRole("status").filter({ hasText: "BCR-08.1: rejected" }).waitFor();
      assert.equal(
        await page.evaluate("document.activeElement.getAttribute('aria-label')"),
        "Accept the suggestion for BCR-08.1",
        "focus stays on the row's first action",
      );
      await page.getByText(/^Review: 3 accepted, 1 edited, 1 rejected; 35 to review$/).waitFor();

      await open("HRS-01.1");
      await page.getByRole("button", {
        name: "Save to knowledge base: the answer to HRS-01.1",
      }).click();
      await page.getByLabel("Category").fill("People");
      await page.getByRole("form", { name: "Save the answer to HRS-01.1 to the knowledge base" })
        .getByRole("button", { name: "Save to knowledge base" }).click();
      await page.getByRole("status").filter({ hasText: "Saved to the knowledge base" }).waitFor();
      await assertAccessible(page, "a reviewed questionnaire");
      const { answers } = await api(base, owner, "GET", answersPath);
      const learned = answers.find((a: { answer: string }) =>
        a.answer === "Yes: for everyone, before the first day."
      );
      assert.ok(learned, "the edited answer is in the knowledge base");
      assert.deepEqual(learned.questionnaireRefs, [{ questionnaire: "caiq-v4", id: "HRS-01.1" }]);

      // Matching again reaches the answer just learned: HRS-01.1 now matches by its id; the
      // decisions stay.
      await page.getByRole("button", { name: "Match again" }).click();
      await page.getByRole("status").filter({ hasText: "“Globex CAIQ” matched again" }).waitFor();
      const { questionnaire: rematched } = await api(base, owner, "GET", path);
      assert.equal(rematched.coverage.byId, questionnaire.coverage.byId + 1);
      await page.getByText(/^Review: 3 accepted, 1 edited, 1 rejected; 35 to review$/).waitFor();
      const hrs = await api(base, owner, "GET", `${path}/rows?limit=200`);
      const learnedRow = hrs.rows.find((r: { questionId: string }) => r.questionId === "HRS-01.1");
      assert.equal(learnedRow.best?.by, "id");
      assert.equal(learnedRow.decision.state, "edited");

      const gaps = await downloaded(
        page,
        () => page.getByRole("button", { name: "Download the gap list (CSV)" }).click(),
      );
      assert.match(new TextDecoder().decode(gaps.bytes), /UEM-01\.1,Are endpoint management/);

      // The evidence goes into the buyer's "CSC Responsibilities" column (F) instead.
      const sheet = page.getByRole("group", { name: `Sheet “${SHEET}”` });
      await sheet.getByLabel("Evidence column").selectOption("F");
      await page.getByRole("button", { name: "Re-read with these columns" }).click();
      await page.getByRole("status").filter({ hasText: "re-read with the chosen columns" })
        .waitFor();
      await page.getByText(/^Review: 3 accepted, 1 edited, 1 rejected; 35 to review$/).waitFor();
      assert.equal(
        await page.getByRole("group", { name: `Sheet “${SHEET}”` }).getByLabel("Evidence column")
          .inputValue(),
        "F",
      );

      const file = await downloaded(
        page,
        () => page.getByRole("button", { name: "Download the answered file" }).click(),
      );
      assert.match(file.name, /\.xlsx$/);
      const book = SheetJS.read(file.bytes, { type: "array" });
      const original = SheetJS.read(await Deno.readFile(CAIQ), { type: "array" });
      assert.deepEqual(book.SheetNames, original.SheetNames, "every sheet is kept, in order");
      assert.equal(cellText(book, `B${rowOf("IAM-02.1")}`), "Is there a strong password policy?");
      // The answer column is the one found by its header (the service's choice, kept on re-read).
      const { questionnaire: reread } = await api(base, owner, "GET", path);
      const columns = reread.columns.find((c: { sheet: string }) => c.sheet === SHEET);
      assert.equal(columns.evidence, "F");
      const answerCell = (id: string) => cellText(book, `${columns.answer}${rowOf(id)}`);
      assert.equal(answerCell("IAM-02.1"), "Yes: 14 characters at least.");
      assert.equal(answerCell("HRS-01.1"), "Yes: for everyone, before the first day.");
      assert.equal(answerCell("BCR-08.1"), "No answer");
      assert.match(cellText(book, `F${rowOf("CEK-03.1")}`), /^https?:\/\//);
      assert.equal(cellText(book, `K${rowOf("CEK-03.1")}`), "", "no evidence column was added");

      const manifest = await downloaded(
        page,
        () => page.getByRole("button", { name: "Download the signed manifest" }).click(),
      );
      assert.match(manifest.name, /\.manifest\.jws$/);
      assert.match(new TextDecoder().decode(manifest.bytes), /^[\w-]+\.[\w-]+\.[\w-]+$/);

      // Sharing, in a person's words: no NDA yet, so it is written on the way; then the link.
      await page.getByRole("button", { name: "Share with the buyer" }).click();
      const sharing = page.getByRole("form", { name: "Share with the buyer" });
      await sharing.getByText("You have not written one yet").waitFor();
      await assertAccessible(page, "sharing, with the NDA to write");
      await sharing.getByLabel("Your NDA").fill("Keep it.");
      await sharing.getByRole("button", { name: "Save the NDA and create the link" }).click();
      await page.getByRole("heading", { name: "Send this link to the buyer" }).waitFor();
      const shared = page.locator(".share-result");
      const words = await shared.innerText();
      assert.doesNotMatch(words, /requestAccessUrl|documentIds|unlisted|warning|\bPUT\b/);
      // Email is off on this service: said, and no promise of an email.
      await shared.getByText("This service does not send email").waitFor();
      assert.doesNotMatch(words, /you will get an email|You get an email|they get an email/i);
      assert.equal(
        await shared.getByRole("link", { name: "Documents" }).getAttribute("href"),
        `#/orgs/${orgId}/documents`,
      );
      const nda = await api(base, owner, "GET", `/organizations/${orgId}/nda`);
      assert.equal(nda.current.text, "Keep it.");
      const { documents } = await api(base, owner, "GET", `/organizations/${orgId}/documents`);
      assert.equal(documents.length, 2);
      assert.ok(documents.every((d: { visibility: string }) => d.visibility === "restricted"));
      assert.ok(documents.every((d: { unlisted?: boolean }) => d.unlisted === true));
      const ids = documents.map((d: { id: string }) => d.id);
      const requestLink = await page.getByLabel("Link for the buyer").inputValue();
      assert.deepEqual(
        new URL(requestLink).searchParams.get("document")!.split(",").sort(),
        ids.sort(),
      );
      await assertAccessible(page, "the link for the buyer");

      // The buyer's side: the link opens the request form, both documents chosen, the NDA shown.
      const buyer = await openPage(browser);
      await buyer.page.goto(requestLink);
      await buyer.page.getByRole("heading", { level: 1, name: /Request documents/ }).waitFor();
      await buyer.page.getByText("Keep it.").waitFor();
      for (const document of documents) {
        assert.ok(await buyer.page.getByLabel(document.title).isChecked(), document.title);
      }
      await buyer.page.context().close();
      await assertAccessible(page, "an exported questionnaire");
      assertCleanPage(log, base);
      await page.context().close();
    });

    await t.step("a member at 375 px: review, a CSV dropped in and deleted", async () => {
      const { page, log } = await openPage(browser, { viewport: { width: 375, height: 800 } });
      await signInToDashboard(page, base, { email: MEMBER.email, password: PASSWORD });
      await viewDashboard(page, questionnaireUrl);
      await page.locator(".coverage-text").waitFor();
      // A suggestion below the threshold, chosen by hand: the decision shows its text.
      await page.locator(".review-grid tr", { has: page.getByText("A&A-02.1", { exact: true }) })
        .locator(".row-open").click();
      const audits = page.locator(".review-detail");
      await audits.getByText(/^Below the threshold/).click();
      const chosen = await audits.locator(".other-suggestions .suggestion-text").first()
        .textContent();
      await audits.getByRole("button", { name: "Use this one: suggestion 1 for A&A-02.1" }).click();
      await page.getByRole("status").filter({ hasText: "A&A-02.1: accepted" }).waitFor();
      assert.equal(await audits.locator(".decision-answer .markdown").textContent(), chosen);
      await page.getByRole("button", { name: "Edit the answer to A&A-02.1" }).click();
      // The editor starts from the answer chosen.
      assert.equal(
        await page.getByLabel("Answer to A&A-02.1", { exact: true }).inputValue(),
        chosen,
      );
      // Members review and download; owners share and write the knowledge base.
      await page.getByText("Owners share the answered file with the buyer.").waitFor();
      assert.equal(await page.getByRole("button", { name: "Share with the buyer" }).count(), 0);
      assert.equal(await page.getByRole("button", { name: /^Save to knowledge base/ }).count(), 0);
      await assertAccessible(page, "a questionnaire at 375 px");
      await assertNoHorizontalOverflow(page, "a questionnaire at 375 px");

      await page.getByRole("link", { name: "All questionnaires" }).click();
      await page.getByRole("link", { name: "Globex CAIQ" }).waitFor();
      const csv = await Deno.readTextFile(FREE_FORM);
      const dropped = await page.evaluateHandle(`(() => {
        const files = new DataTransfer();
        files.items.add(new File([${JSON.stringify(csv)}], "Initech review.csv", { type: "" }));
        return files;
      })()`);
      await page.locator(".dropzone").dispatchEvent("drop", { dataTransfer: dropped });
      await page.getByText("Chosen: Initech review.csv").waitFor();
      assert.equal(await page.getByLabel("Name", { exact: true }).inputValue(), "Initech review");
      await page.getByRole("button", { name: "Import questionnaire" }).click();
      await page.getByRole("status").filter({ hasText: "“Initech review” imported" }).waitFor();
      await page.getByText("CSV, UTF-8").waitFor();
      assert.match(
        await page.locator(".coverage-text").textContent() ?? "",
        / of 5 answered from the knowledge base: /,
      );
      await assertAccessible(page, "a CSV questionnaire at 375 px");
      await assertNoHorizontalOverflow(page, "a CSV questionnaire at 375 px");
      await page.getByRole("button", { name: "Delete questionnaire" }).click();
      await page.getByRole("button", { name: "Delete", exact: true }).click();
      await page.getByRole("status").filter({ hasText: "“Initech review” deleted" }).waitFor();
      await page.getByRole("link", { name: "Globex CAIQ" }).waitFor();
      assert.equal(await page.getByRole("link", { name: "Initech review" }).count(), 0);
      await assertAccessible(page, "the questionnaires tab at 375 px");
      await assertNoHorizontalOverflow(page, "the questionnaires tab at 375 px");
      assertCleanPage(log, base);
      await page.context().close();
    });
  } finally {
    await browser.close();
  }
});
