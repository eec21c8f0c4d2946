/**
 * The buyer's self-service page in real Chromium (axe, 1280 and 375 px, light and dark): the
 * emailed link signs the first person of a domain in as its admin, asking for a click-through
 * document grants it at once with the reason in plain words, the admin adds a colleague and
 * creates a service token shown once, and the organization's own summary lists the download.
 * The server has no mail here: the link's token is stored as the sign-in route would have.
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
import { tokenHash } from "../../src/serve/buyers.ts";
import { saveBuyerSignIn } from "../../src/store/buyers.ts";

Deno.test("[browser] buyers: the self-service page and the vendor's inventory, 1280 and 375 px, light and dark", async (t) => {
  await using server = await startTestServer({ env: { SIGNUP: "open" }, worker: false });
  const base = server.baseUrl;
  const { owner, boot } = await dashboardTeam(base);
  const orgId = boot.organization.id as string;
  const slug = boot.organization.slug as string;
  const uploaded = await fetch(
    `${base}/organizations/${orgId}/documents?title=SOC%202%20report&visibility=restricted`,
    {
      method: "POST",
      headers: { authorization: `Bearer ${owner}`, "content-type": "application/pdf" },
      body: await makePdf("SOC 2") as Uint8Array<ArrayBuffer>,
    },
  );
  assert.equal(uploaded.status, 201);
  const { document } = await uploaded.json();
  await api(base, owner, "PUT", `/organizations/${orgId}/nda`, { text: "Keep it private." });
  await api(base, owner, "PUT", `/organizations/${orgId}/access-rules/${document.id}`, {
    mode: "click-through",
  });
  let n = 0;
  const link = async (email: string) => {
    const token = String(n++).padStart(43, "k");
    await saveBuyerSignIn(server.kv, orgId, tokenHash(token), {
      email,
      createdAt: new Date().toISOString(),
    }, 600_000);
    return `${base}/public/trust/${slug}/buyer#sign-in=${token}`;
  };
  const browser = await launchBrowser();
  try {
    await t.step("1280 px, light: sign in, ask, add a colleague, create a token", async () => {
      const { page, log } = await openPage(browser);
      await page.goto(await link("ada@customer.example"));
      await page.getByRole("status").filter({ hasText: "you founded customer.example" })
        .waitFor();
      await page.getByText("Nothing yet: ask for documents below.").waitFor();
      await assertAccessible(page, "the buyer page, signed in");
      await page.getByLabel("SOC 2 report").check();
      await page.getByLabel(/I accept the NDA/).check();
      await page.getByRole("button", { name: "Ask for access" }).click();
      await page.getByText("SOC 2 report: granted").waitFor();
      await page.getByText(/You accepted the NDA, and "SOC 2 report" opens to anyone who does/)
        .waitFor();
      await page.getByRole("button", { name: "Download SOC 2 report" }).waitFor();
      const downloaded = page.waitForEvent("download");
      await page.getByRole("button", { name: "Download SOC 2 report" }).click();
      assert.match((await downloaded).suggestedFilename(), /^SOC 2 report/);
      await page.getByLabel("Colleague's email").fill("bob@customer.example");
      await page.getByRole("button", { name: "Add colleague" }).click();
      await page.getByText("bob@customer.example · member").waitFor();
      await page.getByLabel("Token name").fill("GRC platform");
      await page.getByRole("button", { name: "Create token" }).click();
      const secret = page.getByText(/Copy it now, it is shown once: tpb_/);
      await secret.waitFor();
      const value = (await secret.textContent())!.match(/tpb_[A-Za-z0-9_-]{43}/)![0];
      // The token reads through the API what the page shows.
      const listed = await (await fetch(`${base}/public/trust/${slug}/buyer/documents`, {
        headers: { authorization: `Bearer ${value}` },
      })).json();
      assert.deepEqual(listed.documents.map((d: { title: string }) => d.title), ["SOC 2 report"]);
      await page.reload();
      await page.getByRole("cell", { name: "SOC 2 report" }).first().waitFor();
      await assertAccessible(page, "the buyer page with people, tokens and summary");
      await assertNoHorizontalOverflow(page, "the buyer page at 1280 px");
      assertCleanPage(log, base);
      await page.context().close();
    });

    for (const colorScheme of ["dark", "light"] as const) {
      await t.step(`375 px, ${colorScheme}: the colleague reads without asking`, async () => {
        const { page, log } = await openPage(browser, {
          viewport: { width: 375, height: 760 },
          colorScheme,
        });
        await page.goto(await link("bob@customer.example"));
        await page.getByRole("status").filter({ hasText: "You are signed in." }).waitFor();
        await page.getByRole("button", { name: "Download SOC 2 report" }).waitFor();
        assert.equal(await page.locator("#admin").isVisible(), false, "a member is no admin");
        await assertAccessible(page, `the buyer page at 375 px, ${colorScheme}`);
        await assertNoHorizontalOverflow(page, `the buyer page at 375 px, ${colorScheme}`);
        assertCleanPage(log, base);
        await page.context().close();
      });
    }

    for (
      const [width, colorScheme] of [[1280, "light"], [375, "dark"]] as const
    ) {
      await t.step(
        `the vendor's inventory and summary at ${width} px, ${colorScheme}`,
        async () => {
          const { page, log } = await openPage(browser, {
            viewport: { width, height: 860 },
            colorScheme,
          });
          await signInToDashboard(page, base, { email: OWNER.email, password: PASSWORD });
          await viewDashboard(page, `${base}/dashboard/#/orgs/${orgId}/documents`);
          const inventory = page.getByRole("table", { name: "Buyer organizations" });
          await inventory.getByText("customer.example", { exact: true }).waitFor();
          await inventory.getByText("ada@customer.example (admin), bob@customer.example (member)")
            .waitFor();
          await inventory.getByText(/SOC 2 report until/).waitFor();
          await page.getByRole("img", { name: "Reads per month: views and downloads" }).waitFor();
          const month = page.getByRole("table", { name: "Reads per month" });
          assert.match((await month.textContent())!, /\d{4}-\d{2}/);
          const csv = page.waitForEvent("download");
          await page.getByRole("button", { name: "Export CSV" }).click();
          assert.match((await csv).suggestedFilename(), /^access-summary-.*\.csv$/);
          await assertAccessible(page, `the access inventory at ${width} px, ${colorScheme}`);
          await assertNoHorizontalOverflow(page, `the access inventory at ${width} px`);
          assertCleanPage(log, base);
          await page.context().close();
        },
      );
    }
  } finally {
    await browser.close();
  }
});
