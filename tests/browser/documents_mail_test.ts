/**
 * Documents in real Chromium, with an SMTP server that refuses: an automatic approval whose
 * email failed is shown to the owner as pending with the reason, and approving it by hand
 * shows the link to copy; and a project's documents page at 375 and 1280 px. Each page is
 * checked with axe, for console and CSP errors and for sideways scrolling.
 */
import assert from "node:assert/strict";
import { login, signUp } from "../support/builtin_login.ts";
import {
  assertAccessible,
  assertNoHorizontalOverflow,
  launchBrowser,
  openPage,
} from "../support/browser.ts";
import { makePdf } from "../support/documents.ts";
import { assertCleanPage, signInToDashboard } from "../support/dashboard.ts";
import { startTestServer } from "../support/server.ts";
import { startSmtpServer } from "../support/smtp.ts";

const PASSWORD = "correct horse battery staple";
const OWNER = { name: "Olivia Owner", email: "olivia@example.com" };

async function api(base: string, token: string, method: string, path: string, body?: unknown) {
  const pdf = body instanceof Uint8Array;
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": pdf ? "application/pdf" : "application/json",
    },
    body: body === undefined
      ? undefined
      : pdf
      ? body as Uint8Array<ArrayBuffer>
      : JSON.stringify(body),
  });
  assert.ok(res.ok, `${method} ${path}: ${res.status}`);
  return await res.json();
}

Deno.test("[browser] documents: a failed automatic approval, approved by hand; a project's documents page", async (t) => {
  await using smtp = await startSmtpServer();
  await using server = await startTestServer({
    env: { SIGNUP: "open", SMTP_URL: smtp.url },
    worker: false,
  });
  const base = server.baseUrl;
  await (await signUp(base, "", { ...OWNER, password: PASSWORD })).body?.cancel();
  const owner = (await login(base, { email: OWNER.email, password: PASSWORD })).access_token;
  const boot = await api(base, owner, "POST", "/onboarding/bootstrap", {
    workspaceName: "Acme Security",
    projectName: "Acme Cloud",
    projectSlug: "acme-cloud",
    projectVisibility: "public",
  });
  const org = `/organizations/${boot.organization.id}`;
  const pdf = await makePdf("SOC 2 report");
  const soc2 = (await api(base, owner, "POST", `${org}/documents?title=SOC%202`, pdf)).document;
  await api(
    base,
    owner,
    "POST",
    `${org}/documents?title=Policy&visibility=public&projectId=${boot.project.id}`,
    pdf,
  );
  await api(base, owner, "PUT", `${org}/nda`, { text: "Keep these confidential." });
  await api(base, owner, "PUT", `${org}/document-settings`, {
    autoApproveDomains: ["partner.example"],
  });
  smtp.refuseNext(1);
  const res = await fetch(`${base}/public/trust/${boot.organization.slug}/access-requests`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      name: "Pat Partner",
      email: "pat@partner.example",
      company: "Partner",
      documentIds: [soc2.id],
      ndaVersion: 1,
      acceptNda: true,
    }),
  });
  assert.equal(res.status, 202);
  assert.equal((await res.json()).status, "pending");

  const browser = await launchBrowser();
  try {
    await t.step("the owner sees why, approves by hand and is shown the link", async () => {
      const { page, log } = await openPage(browser);
      await signInToDashboard(page, base, { email: OWNER.email, password: PASSWORD });
      await page.goto(`${base}/dashboard/#/orgs/${boot.organization.id}/documents`);
      await page.locator("main[aria-busy]").waitFor({ state: "detached" });
      await page.getByText(/One automatic approval could not be emailed \(pat@partner\.example\)/)
        .waitFor();
      await page.getByText(/Automatic approval failed .*could not be sent \(MailError\)/).waitFor();
      await assertAccessible(page, "the documents section with a failed automatic approval");
      smtp.refuseNext(1);
      await page.getByRole("button", { name: "Approve the request of pat@partner.example" })
        .click();
      await page.getByText(/Approved, but not emailed: The email could not be sent/).waitFor();
      const link = await page.getByRole("textbox", { name: "Access link" }).inputValue();
      assert.match(link, /\/documents\/access\/[A-Za-z0-9_-]{43}$/);
      assert.equal(await fetch(link).then(async (r) => (await r.body?.cancel(), r.status)), 200);
      await assertAccessible(page, "the documents section after approving by hand");
      assertCleanPage(log, base);
      await page.context().close();
    });

    for (const width of [375, 1280]) {
      await t.step(`the project's documents page (${width} px)`, async () => {
        const { page, log } = await openPage(browser, { viewport: { width, height: 800 } });
        await page.goto(`${base}/trust/acme-cloud/documents`);
        await page.getByRole("heading", { level: 1, name: "Acme Cloud: documents" }).waitFor();
        await page.getByRole("link", { name: "Download Policy" }).waitFor();
        await page.getByRole("link", { name: "Request access to SOC 2" }).waitFor();
        await assertAccessible(page, `the project's documents page at ${width} px`);
        await assertNoHorizontalOverflow(page, `the project's documents page at ${width} px`);
        assertCleanPage(log, base);
        await page.context().close();
      });
    }
  } finally {
    await browser.close();
  }
});
