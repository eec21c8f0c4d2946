/**
 * Email subscriptions in real Chromium: the subscribe forms of the latest trust page and of
 * the organization's trust center (plain forms under the pages' CSP) at 375 and 1280 px, the
 * confirm page's button, and the dashboard's Subscribers section with and without email
 * configured, each checked with axe.
 */
import assert from "node:assert/strict";
import type { Browser } from "../deps.ts";
import { login, signUp } from "../support/builtin_login.ts";
import {
  assertAccessible,
  assertNoHorizontalOverflow,
  launchBrowser,
  openPage,
} from "../support/browser.ts";
import { assertCleanPage, signInToDashboard } from "../support/dashboard.ts";
import { startTestServer } from "../support/server.ts";
import { startSmtpServer } from "../support/smtp.ts";

const PASSWORD = "correct horse battery staple";
const OWNER = { name: "Olivia Owner", email: "olivia@example.com" };

async function workspace(base: string) {
  const res = await signUp(base, "", { ...OWNER, password: PASSWORD });
  await res.body?.cancel();
  const token = (await login(base, { email: OWNER.email, password: PASSWORD })).access_token;
  const post = async (path: string, json?: unknown) => {
    const r = await fetch(`${base}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    assert.ok(r.ok, `${path}: ${r.status}`);
    return await r.json();
  };
  const boot = await post("/onboarding/bootstrap", {
    workspaceName: "Acme Security",
    projectName: "Acme Cloud",
    projectSlug: "acme-cloud",
    projectVisibility: "public",
  });
  await post(`/projects/${boot.project.id}/publish`);
  return { orgId: boot.organization.id as string, orgSlug: boot.organization.slug as string };
}

async function subscribersSection(browser: Browser, base: string, orgId: string) {
  const { page, log } = await openPage(browser);
  await signInToDashboard(page, base, { email: OWNER.email, password: PASSWORD });
  await page.goto(`${base}/dashboard/#/orgs/${orgId}/subscribers`);
  await page.locator("main[aria-busy]").waitFor({ state: "detached" });
  await page.getByRole("heading", { level: 2, name: "Subscriber counts" }).waitFor();
  return { page, log };
}

Deno.test("[browser] subscriptions: the trust page's and trust center's forms, the confirm page and the dashboard", async (t) => {
  await using smtp = await startSmtpServer();
  await using server = await startTestServer({
    env: { SIGNUP: "open", SMTP_URL: smtp.url },
    worker: true,
  });
  const base = server.baseUrl;
  const { orgId, orgSlug } = await workspace(base);
  const browser = await launchBrowser();
  try {
    for (const width of [375, 1280]) {
      await t.step(`a visitor subscribes from the trust page at ${width} px`, async () => {
        const { page, log } = await openPage(browser, { viewport: { width, height: 800 } });
        await page.goto(`${base}/trust/acme-cloud`);
        await page.getByRole("heading", { level: 2, name: "Email updates" }).waitFor();
        await assertAccessible(page, `the trust page's subscribe form at ${width} px`);
        await assertNoHorizontalOverflow(page, `the subscribe form at ${width} px`);
        const email = `reader${width}@customer.example`;
        await page.getByLabel("Email address").fill(email);
        await page.getByRole("button", { name: "Subscribe" }).click();
        await page.getByRole("heading", { level: 1, name: "Check your inbox" }).waitFor();
        await assertAccessible(page, `the check-your-inbox page at ${width} px`);
        const mail = await smtp.next((m) => JSON.stringify(m.to).includes(email));
        const link = mail.text!.match(/http:\/\/\S+\/subscriptions\/confirm\/\S+/)![0];
        await page.goto(link);
        await page.getByRole("button", { name: "Confirm the subscription" }).waitFor();
        await assertAccessible(page, `the confirm page at ${width} px`);
        await assertNoHorizontalOverflow(page, `the confirm page at ${width} px`);
        await page.getByRole("button", { name: "Confirm the subscription" }).click();
        await page.getByRole("heading", { level: 1, name: "Subscription confirmed" }).waitFor();
        assertCleanPage(log, base);
        await page.context().close();
      });
    }

    for (const width of [375, 1280]) {
      await t.step(`a visitor subscribes from the trust center at ${width} px`, async () => {
        const { page, log } = await openPage(browser, { viewport: { width, height: 800 } });
        await page.goto(`${base}/public/trust/${orgSlug}.html`);
        await page.getByRole("heading", { level: 2, name: "Email updates" }).waitFor();
        await assertAccessible(page, `the trust center's subscribe form at ${width} px`);
        await assertNoHorizontalOverflow(page, `the trust center's form at ${width} px`);
        const email = `center${width}@customer.example`;
        await page.getByLabel("Email address").fill(email);
        await page.getByRole("button", { name: "Subscribe" }).click();
        await page.getByRole("heading", { level: 1, name: "Check your inbox" }).waitFor();
        const mail = await smtp.next((m) => JSON.stringify(m.to).includes(email));
        assert.match(mail.subject ?? "", /Acme Security/);
        assertCleanPage(log, base);
        await page.context().close();
      });
    }

    await t.step("the owner sees the subscribers in the dashboard (1280 px)", async () => {
      const { page, log } = await subscribersSection(browser, base, orgId);
      await page.getByRole("cell", { name: "reader375@customer.example", exact: true }).waitFor();
      await page.getByRole("cell", { name: "reader1280@customer.example", exact: true }).waitFor();
      await page.getByRole("cell", { name: "center375@customer.example", exact: true }).waitFor();
      assert.equal(await page.getByText("Email is not configured").count(), 0);
      await assertAccessible(page, "the Subscribers section");
      await page.getByRole("button", { name: "Remove reader375@customer.example" }).click();
      await page.getByRole("button", { name: "Remove", exact: true }).click();
      await page.getByRole("status").filter({ hasText: "was removed" }).waitFor();
      assertCleanPage(log, base);
      await page.context().close();
    });
  } finally {
    await browser.close();
  }
});

Deno.test("[browser] subscriptions: the dashboard says when email is not configured", async () => {
  await using server = await startTestServer({ env: { SIGNUP: "open" }, worker: false });
  const base = server.baseUrl;
  const { orgId, orgSlug } = await workspace(base);
  const browser = await launchBrowser();
  try {
    for (const width of [375, 1280]) {
      const { page, log } = await openPage(browser, { viewport: { width, height: 800 } });
      await signInToDashboard(page, base, { email: OWNER.email, password: PASSWORD });
      await page.goto(`${base}/dashboard/#/orgs/${orgId}/subscribers`);
      await page.locator("main[aria-busy]").waitFor({ state: "detached" });
      await page.getByText("Email is not configured").waitFor();
      await assertAccessible(page, `the not-configured notice at ${width} px`);
      await assertNoHorizontalOverflow(page, `the Subscribers section at ${width} px`);
      const trustPage = await (await fetch(`${base}/trust/acme-cloud`, {
        headers: { accept: "text/html" },
      })).text();
      assert.ok(!trustPage.includes('class="subscribe"'), "no form without email");
      const center = await (await fetch(`${base}/public/trust/${orgSlug}.html`)).text();
      assert.ok(!center.includes('class="subscribe"'), "no form on the trust center either");
      assertCleanPage(log, base);
      await page.context().close();
    }
  } finally {
    await browser.close();
  }
});
