/**
 * The dashboard's Webhooks section in real Chromium, against the real service with its queue
 * running and a receiver on 127.0.0.1 (WEBHOOK_ALLOW_PRIVATE=true): a refused URL, adding an
 * HMAC endpoint (its secret shown once), a test ping retried until delivered, the delivery log
 * and Redeliver, then removal; axe-clean at 1280 and 375 px, without sideways scrolling.
 */
import assert from "node:assert/strict";
import { login, signUp } from "../support/builtin_login.ts";
import {
  assertAccessible,
  assertNoHorizontalOverflow,
  expectFailedRequests,
  launchBrowser,
  openPage,
} from "../support/browser.ts";
import { signInToDashboard } from "../support/dashboard.ts";
import { startTestServer } from "../support/server.ts";

const PASSWORD = "correct horse battery staple";
const OWNER = { name: "Olivia Owner", email: "olivia@example.com" };

Deno.test("[browser] webhooks: add, test, follow deliveries, redeliver and remove", async (t) => {
  let answers = [500];
  const received: string[] = [];
  const receiver = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (r) => {
    received.push(await r.text());
    return new Response(null, { status: answers.shift() ?? 204 });
  });
  await using server = await startTestServer({
    env: { SIGNUP: "open", WEBHOOK_ALLOW_PRIVATE: "true" },
    webhookDelivery: { retryDelaysMs: [300, 300], jitter: 0, timeoutMs: 3000 },
  });
  const base = server.baseUrl;
  await (await signUp(base, "", { ...OWNER, password: PASSWORD })).body?.cancel();
  const token = (await login(base, { email: OWNER.email, password: PASSWORD })).access_token;
  const boot = await (await fetch(`${base}/onboarding/bootstrap`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ workspaceName: "Acme", projectName: "Acme Cloud" }),
  })).json();
  const projectId = boot.project.id;
  const hookUrl = `http://127.0.0.1:${receiver.addr.port}/trust`;

  const browser = await launchBrowser();
  try {
    const { page, log } = await openPage(browser);
    await signInToDashboard(page, base, { email: OWNER.email, password: PASSWORD });
    await page.goto(`${base}/dashboard/#/projects/${projectId}/webhooks`);
    await page.locator("main[aria-busy]").waitFor({ state: "detached" });
    await page.getByRole("heading", { level: 2, name: "Webhooks" }).waitFor();

    await t.step("a URL the service refuses shows why", async () => {
      await page.getByLabel("Endpoint URL").fill("ftp://203.0.113.5/hooks");
      await expectFailedRequests(log, [400], async () => {
        await page.getByRole("button", { name: "Add webhook" }).click();
        await page.getByRole("alert").filter({ hasText: "must use https" }).waitFor();
      });
    });

    await t.step("an HMAC endpoint is added and its secret shown once", async () => {
      await page.getByLabel("Endpoint URL").fill(hookUrl);
      await page.getByLabel("version.published").check();
      await page.getByLabel("HMAC secret (v1)").check();
      await page.getByLabel("Description").fill("Security <team>");
      await page.getByRole("button", { name: "Add webhook" }).click();
      await page.getByRole("heading", { name: "Signing secret" }).waitFor();
      const secret = await page.getByRole("textbox", { name: "Webhook secret" }).inputValue();
      assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
      await assertAccessible(page, "the webhooks section with a new secret");
      await page.getByRole("button", { name: "I have stored the secret" }).click();
      assert.equal(await page.getByRole("textbox", { name: "Webhook secret" }).count(), 0);
      const row = page.locator("tbody tr", { hasText: hookUrl });
      await row.getByText("Security <team>").waitFor();
      await row.getByText("HMAC (v1)").waitFor();
      assert.ok(!(await page.content()).includes(secret.slice(6)), "the secret is gone");
    });

    await t.step("a test ping is retried until delivered, then redelivered", async () => {
      await page.getByRole("button", { name: `Send test to ${hookUrl}` }).click();
      await page.getByRole("status").filter({ hasText: "webhook.test delivery" }).waitFor();
      await page.getByRole("button", { name: `Deliveries to ${hookUrl}` }).click();
      const refresh = page.getByRole("button", { name: `Refresh the deliveries to ${hookUrl}` });
      const delivered = page.locator(".deliveries-table .badge", { hasText: "Delivered" });
      for (let i = 0; i < 40 && (await delivered.count()) === 0; i++) {
        await page.waitForTimeout(250);
        await refresh.click();
        await page.locator(".delivery-log [aria-busy]").waitFor({ state: "detached" });
      }
      await delivered.waitFor();
      await page.locator(".deliveries-table").getByText("2 attempts").waitFor();
      await page.locator(".deliveries-table code", { hasText: "204" }).waitFor();
      await assertAccessible(page, "the delivery log");
      await assertNoHorizontalOverflow(page, "the delivery log");
      await page.locator(".deliveries-table").getByRole("button", { name: /^Redeliver/ }).click();
      await page.getByRole("status").filter({ hasText: "queued again" }).waitFor();
      for (let i = 0; i < 40 && received.length < 3; i++) await page.waitForTimeout(100);
      assert.equal(received.length, 3);
      await refresh.click();
      await page.locator(".deliveries-table").getByText("3 attempts").waitFor();
    });

    await t.step("the section fits a 375 px phone", async () => {
      await page.setViewportSize({ width: 375, height: 812 });
      await page.evaluate(`location.hash = "#/projects/${projectId}"`);
      await page.locator("main[aria-busy]").waitFor({ state: "detached" });
      await page.evaluate(`location.hash = "#/projects/${projectId}/webhooks"`);
      await page.locator("main[aria-busy]").waitFor({ state: "detached" });
      await page.getByRole("heading", { level: 2, name: "Add a webhook" }).waitFor();
      await assertNoHorizontalOverflow(page, "the webhooks section at 375 px");
      await assertAccessible(page, "the webhooks section at 375 px");
      await page.setViewportSize({ width: 1280, height: 860 });
    });

    await t.step("removal", async () => {
      answers = [];
      await page.getByRole("button", { name: `Remove ${hookUrl}` }).click();
      await page.getByRole("button", { name: "Remove", exact: true }).click();
      await page.getByRole("status").filter({ hasText: "was removed" }).waitFor();
      await page.getByText("No webhooks yet").waitFor();
      const errors = log.consoleErrors.filter((line) => !line.includes("/favicon.ico"));
      assert.deepEqual(errors, []);
      assert.deepEqual(log.pageErrors, []);
      assert.deepEqual(log.foreignRequests(base), []);
    });
    await page.context().close();
  } finally {
    await browser.close();
    await receiver.shutdown();
  }
});
