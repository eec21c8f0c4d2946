/**
 * The knowledge base's ways in, in real Chromium with axe (issue 34): an owner cites a control
 * picked by name (its id shown, never typed), and imports an answered questionnaire: upload,
 * preview table, one row left out, confirm.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
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

const PAST = "Ref,Question,Response\n" +
  "SEC-1,Is customer data encrypted when stored?,Yes. AES-256 with keys in a cloud KMS.\n" +
  "SEC-2,Describe your backup schedule,Daily snapshots kept 35 days in a second region.\n" +
  "SEC-3,Do you run a bug bounty?,No\n";

Deno.test("[browser] answers: cite a control by name, import an answered questionnaire", async () => {
  await using server = await startTestServer({ env: { SIGNUP: "open" }, worker: false });
  const base = server.baseUrl;
  const { owner, boot } = await dashboardTeam(base);
  const orgId = boot.organization.id;
  const { controls } = await api(base, owner, "GET", `/projects/${boot.project.id}/controls`);
  const browser = await launchBrowser();
  try {
    const { page, log } = await openPage(browser);
    await signInToDashboard(page, base, { email: OWNER.email, password: PASSWORD });
    await viewDashboard(page, `${base}/dashboard/#/orgs/${orgId}/answers`);
    const form = page.getByRole("form", { name: "New answer" });
    const picker = form.getByLabel("Cite a control");
    await picker.waitFor();
    // Every control is offered by name, with its id.
    const options = await picker.locator("option").allTextContents();
    assert.equal(options.length, controls.length);
    const cited = controls[0];
    assert.ok(options.some((o) => o.includes(cited.publicName) && o.includes(cited.id)));
    await picker.selectOption(cited.id);
    await form.getByRole("button", { name: "Cite this control" }).click();
    assert.equal(
      await form.getByLabel("Citations, one per line").inputValue(),
      `control ${cited.id}`,
    );
    await form.getByLabel("Question", { exact: true }).fill("Do you keep an SBOM?");
    await form.getByLabel("Answer (Markdown)").fill("Yes, for every release.");
    await form.getByLabel("Category").fill("Supply chain");
    await form.getByRole("button", { name: "Add answer" }).click();
    await page.getByRole("status").filter({ hasText: "added" }).waitFor();
    await page.getByRole("list", { name: "Citations" }).getByText(cited.id).waitFor();

    const importer = page.getByRole("form", { name: "Import answered questionnaires" });
    await importer.getByLabel("Answered questionnaire").setInputFiles({
      name: "past.csv",
      mimeType: "text/csv",
      buffer: Buffer.from(PAST),
    });
    await importer.getByRole("button", { name: "Preview import" }).click();
    const preview = importer.getByRole("region", { name: "Import preview" });
    await preview.getByRole("status").filter({ hasText: "3 new answer(s)" }).waitFor();
    assert.equal(await preview.getByRole("row").count(), 4);
    await assertAccessible(page, "the import preview");
    await preview.getByRole("checkbox", { name: "Import “Do you run a bug bounty?”" }).uncheck();
    await preview.getByRole("button", { name: "Import" }).click();
    await preview.getByText("Imported: 2 new answer(s), 0 merged, 1 skipped.").waitFor();
    await page.getByRole("heading", { level: 3, name: "Describe your backup schedule" }).waitFor();
    await assertAccessible(page, "the answers after an import");
    const { answers } = await api(base, owner, "GET", `/organizations/${orgId}/answers`);
    const imported = answers.find((a: { question: string }) =>
      a.question === "Is customer data encrypted when stored?"
    );
    assert.equal(imported.visibility, "restricted");
    assert.deepEqual(imported.aliases, [{
      text: "Is customer data encrypted when stored?",
      ids: ["SEC-1"],
    }]);
    assert.equal(
      answers.some((a: { question: string }) => a.question.includes("bug bounty")),
      false,
    );
    assertCleanPage(log, base);
    await page.context().close();
  } finally {
    await browser.close();
  }
});
