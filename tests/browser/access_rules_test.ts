/**
 * The dashboard's "Access rules" (docs/ads.md) in real Chromium (axe, 1280 and 375 px, light and
 * dark): an owner sets a project's rule, a document's own rule with allowed domains, a deny list
 * and its days, the trust center's deny list and retention, the rule for every restricted
 * document, makes a document public from its rule, and removes a rule; the view shows each
 * change after saving and the API holds it.
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
import { makePdf } from "../support/documents.ts";
import { startTestServer } from "../support/server.ts";

Deno.test("[browser] access rules: per project, per document and for every document, 1280 and 375 px, light and dark", async (t) => {
  await using server = await startTestServer({ env: { SIGNUP: "open" }, worker: false });
  const base = server.baseUrl;
  const { owner, boot } = await dashboardTeam(base);
  const orgId = boot.organization.id as string;
  const projectId = boot.project.id as string;
  const uploadDoc = async (title: string, query: string) => {
    const res = await fetch(
      `${base}/organizations/${orgId}/documents?title=${encodeURIComponent(title)}&${query}`,
      {
        method: "POST",
        headers: { authorization: `Bearer ${owner}`, "content-type": "application/pdf" },
        body: await makePdf(title) as Uint8Array<ArrayBuffer>,
      },
    );
    assert.equal(res.status, 201, await res.clone().text());
    return (await res.json()).document.id as string;
  };
  await uploadDoc("SOC 2 report", `visibility=restricted&projectId=${projectId}`);
  const pentest = await uploadDoc("Pen test", "visibility=restricted");
  const policy = await uploadDoc("Security policy", "visibility=restricted");
  await api(base, owner, "PUT", `/organizations/${orgId}/nda`, { text: "Keep it private." });
  const get = (path: string) => api(base, owner, "GET", `/organizations/${orgId}${path}`);

  const browser = await launchBrowser();
  try {
    await t.step("1280 px, light: set, edit and remove rules", async () => {
      const { page, log } = await openPage(browser);
      await signInToDashboard(page, base, { email: OWNER.email, password: PASSWORD });
      await viewDashboard(page, `${base}/dashboard/#/orgs/${orgId}/documents`);
      const projects = page.getByRole("table", { name: "Project rules" });
      const documents = page.getByRole("table", { name: "Document rules" });
      await projects.getByText("Not set").waitFor();
      await assertAccessible(page, "the access rules");

      // A project's rule: click-through for its documents.
      await page.getByRole("button", {
        name: "Set the access rule of project Acme Cloud's documents",
      }).click();
      await page.getByLabel("Kind").selectOption("click-through");
      assert.equal(await page.getByLabel("Allowed domains").isVisible(), false);
      await assertAccessible(page, "the rule editor");
      await page.getByRole("button", { name: "Save rule" }).click();
      await page.getByRole("status").filter({
        hasText: "Access rule saved: project Acme Cloud's documents",
      }).waitFor();
      await projects.getByText("Click-through NDA · 30 days").waitFor();
      await documents.getByText("Rule: project Acme Cloud's").waitFor();
      const byProject = await get("/project-access-rules");
      assert.deepEqual(
        byProject.rules.map((r: { projectId: string; mode: string }) => [r.projectId, r.mode]),
        [[projectId, "click-through"]],
      );

      // A document's own rule: verified domains and buyer organizations, a deny list, 10 days.
      await page.getByRole("button", { name: "Edit the access rule of “Pen test”" }).click();
      await page.getByLabel("Kind").selectOption("buyer-organizations");
      await page.getByLabel("Allowed domains").fill("agency.gov\npartner.example");
      await page.getByLabel("Deny list", { exact: true }).fill("rival.example");
      await page.getByLabel("Grant lasts (days)").fill("10");
      await page.getByRole("button", { name: "Save rule" }).click();
      await page.getByRole("status").filter({ hasText: "Access rule saved: “Pen test”" })
        .waitFor();
      await documents.getByText(
        "Verified domains (agency.gov, partner.example) and existing buyer organizations · never rival.example · 10 days",
      ).waitFor();
      const rules = await get("/access-rules");
      const own = rules.rules.find((r: { documentId: string }) => r.documentId === pentest);
      assert.equal(own.source, "document");
      assert.equal(own.mode, "verified");
      assert.equal(own.buyerOrganizations, true);
      assert.deepEqual(own.autoApproveDomains, ["agency.gov", "partner.example"]);
      assert.deepEqual(own.denyDomains, ["rival.example"]);
      assert.equal(own.expiresInDays, 10);

      // A bad value is refused in place and changes nothing.
      await page.getByRole("button", { name: "Edit the access rule of “Pen test”" }).click();
      await page.getByLabel("Deny list", { exact: true }).fill("not a domain!");
      await expectFailedRequests(log, [400], async () => {
        await page.getByRole("button", { name: "Save rule" }).click();
        await page.getByRole("alert").first().waitFor();
      });
      assert.deepEqual(
        (await get("/access-rules")).rules.find((r: { documentId: string }) =>
          r.documentId === pentest
        ).denyDomains,
        ["rival.example"],
      );
      await page.getByRole("button", { name: "Cancel" }).click();

      // The trust center's deny list and how long reads are kept.
      await page.getByLabel("Deny list for every document").fill(
        "rival.example\nother-rival.example",
      );
      await page.getByLabel("Keep reads (months)").fill("24");
      await page.getByRole("button", { name: "Save access settings" }).click();
      await page.getByRole("status").filter({ hasText: "Access settings saved" }).waitFor();
      const settings = await get("/access-settings");
      assert.deepEqual(settings.denyDomains, ["rival.example", "other-rival.example"]);
      assert.equal(settings.summaryMonths, 24);
      assert.equal(settings.defaultRule, null);

      // The rule for every restricted document.
      await page.getByRole("button", {
        name: "Set the access rule of every restricted document",
      }).click();
      await page.getByLabel("Kind").selectOption("manual");
      await page.getByRole("button", { name: "Save rule" }).click();
      await page.getByRole("status").filter({
        hasText: "Access rule saved: every restricted document",
      }).waitFor();
      const withRule = await get("/access-settings");
      assert.equal(withRule.defaultRule.mode, "manual");
      // Saving the rule kept the settings.
      assert.equal(withRule.summaryMonths, 24);
      assert.deepEqual(withRule.denyDomains, ["rival.example", "other-rival.example"]);
      const policyRule = (await get("/access-rules")).rules.find((r: { documentId: string }) =>
        r.documentId === policy
      );
      assert.equal(policyRule.source, "organization");

      // Public from its rule: the document becomes public.
      await page.getByRole("button", { name: "Edit the access rule of “Security policy”" })
        .click();
      await page.getByLabel("Kind").selectOption("public");
      await page.getByRole("button", { name: "Save rule" }).click();
      await page.getByRole("status").filter({ hasText: "Access rule saved: “Security policy”" })
        .waitFor();
      const { documents: listed } = await get("/documents");
      assert.equal(
        listed.find((d: { id: string }) => d.id === policy).visibility,
        "public",
      );

      // Removing the project's rule: its documents follow the one for every document.
      await page.getByRole("button", {
        name: "Remove the access rule of project Acme Cloud's documents",
      }).click();
      await page.getByRole("button", { name: "Remove", exact: true }).click();
      await page.getByRole("status").filter({ hasText: "Access rule removed" }).waitFor();
      assert.deepEqual((await get("/project-access-rules")).rules, []);
      await documents.getByText("Rule: the one for every restricted document").waitFor();
      await assertAccessible(page, "the access rules after changes");
      await assertNoHorizontalOverflow(page, "the access rules at 1280 px");
      assertCleanPage(log, base);
      await page.context().close();
    });

    for (
      const [width, colorScheme] of [[375, "dark"], [375, "light"], [1280, "dark"]] as const
    ) {
      await t.step(`${width} px, ${colorScheme}: the rules and an open editor`, async () => {
        const { page, log } = await openPage(browser, {
          viewport: { width, height: 860 },
          colorScheme,
        });
        await signInToDashboard(page, base, { email: OWNER.email, password: PASSWORD });
        await viewDashboard(page, `${base}/dashboard/#/orgs/${orgId}/documents`);
        await page.getByRole("table", { name: "Document rules" }).getByText(
          "Verified domains (agency.gov, partner.example) and existing buyer organizations · never rival.example · 10 days",
        ).waitFor();
        await page.getByRole("button", { name: "Edit the access rule of “Pen test”" }).click();
        await page.getByLabel("Allowed domains").waitFor();
        await assertAccessible(page, `the access rules at ${width} px, ${colorScheme}`);
        await assertNoHorizontalOverflow(page, `the access rules at ${width} px, ${colorScheme}`);
        assertCleanPage(log, base);
        await page.context().close();
      });
    }
  } finally {
    await browser.close();
  }
});
