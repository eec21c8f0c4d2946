/**
 * An endpoint the service disabled after five failed deliveries in a row, in the dashboard's
 * Webhooks section in real Chromium: the warning, the "Disabled after 5 failed deliveries"
 * state and its Re-enable button, axe-clean at 1280 and 375 px; re-enabling turns the endpoint
 * back on with a fresh count, and its next delivery arrives.
 */
import assert from "node:assert/strict";
import type { Page } from "../deps.ts";
import { login, signUp } from "../support/builtin_login.ts";
import {
  assertAccessible,
  assertNoHorizontalOverflow,
  launchBrowser,
  openPage,
} from "../support/browser.ts";
import { signInToDashboard } from "../support/dashboard.ts";
import { startTestServer } from "../support/server.ts";

const PASSWORD = "correct horse battery staple";
const OWNER = { name: "Olivia Owner", email: "olivia@example.com" };

async function openSection(page: Page, projectId: string) {
  await page.evaluate(`location.hash = "#/projects/${projectId}"`);
  await page.locator("main[aria-busy]").waitFor({ state: "detached" });
  await page.evaluate(`location.hash = "#/projects/${projectId}/webhooks"`);
  await page.locator("main[aria-busy]").waitFor({ state: "detached" });
  await page.getByRole("heading", { level: 2, name: "Webhooks" }).waitFor();
}

Deno.test("[browser] webhooks: an endpoint disabled after failed deliveries is shown and re-enabled", async (t) => {
  let status = 500;
  let received = 0;
  const receiver = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (r) => {
    await r.body?.cancel();
    received++;
    return new Response(null, { status });
  });
  await using server = await startTestServer({
    env: { SIGNUP: "open", WEBHOOK_ALLOW_PRIVATE: "true" },
    // Pings follow one another: the endpoint's pause after failed attempts is made short.
    webhookDelivery: { retryDelaysMs: [], jitter: 0, timeoutMs: 3000, circuitCooldownMs: 50 },
  });
  const base = server.baseUrl;
  await (await signUp(base, "", { ...OWNER, password: PASSWORD })).body?.cancel();
  const token = (await login(base, { email: OWNER.email, password: PASSWORD })).access_token;
  const call = async (method: string, path: string, json?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    return await res.json();
  };
  const boot = await call("POST", "/onboarding/bootstrap", {
    workspaceName: "Acme",
    projectName: "Acme Cloud",
  });
  const projectId = boot.project.id;
  const hookUrl = `http://127.0.0.1:${receiver.addr.port}/failing`;
  const hooks = `/projects/${projectId}/webhooks`;
  const { webhook } = await call("POST", hooks, { url: hookUrl, events: ["version.published"] });
  const path = `${hooks}/${webhook.id}`;
  // Five publishes, each delivery failing its one attempt, one after the other (not test
  // pings: five a minute is their limit, and the dashboard's ping comes after these).
  for (let n = 1; n <= 5; n++) {
    await call("POST", `/projects/${projectId}/publish`);
    for (let i = 0; i < 100 && received < n; i++) await new Promise((w) => setTimeout(w, 50));
  }
  let disabled = null;
  for (let i = 0; i < 100 && !disabled; i++) {
    disabled = (await call("GET", path)).webhook.disabled;
    if (!disabled) await new Promise((w) => setTimeout(w, 50));
  }
  assert.equal(disabled?.reason, "failing");

  const browser = await launchBrowser();
  try {
    const { page, log } = await openPage(browser);
    await signInToDashboard(page, base, { email: OWNER.email, password: PASSWORD });
    await openSection(page, projectId);

    await t.step("the disabled state, the warning and Re-enable; axe-clean", async () => {
      const row = page.locator("tbody tr", { hasText: hookUrl });
      await row.getByText("Disabled after 5 failed deliveries").waitFor();
      await row.locator("time").waitFor();
      await page.getByRole("button", { name: `Re-enable ${hookUrl}` }).waitFor();
      await page.getByText("An endpoint was disabled after repeated failed deliveries.").waitFor();
      await assertAccessible(page, "a webhook disabled after failed deliveries");
      await assertNoHorizontalOverflow(page, "a webhook disabled after failed deliveries");
    });

    await t.step("the same at 375 px", async () => {
      await page.setViewportSize({ width: 375, height: 812 });
      await openSection(page, projectId);
      await page.getByText("Disabled after 5 failed deliveries").waitFor();
      await assertNoHorizontalOverflow(page, "the disabled webhook at 375 px");
      await assertAccessible(page, "the disabled webhook at 375 px");
      await page.setViewportSize({ width: 1280, height: 860 });
    });

    await t.step("Re-enable turns it back on with a fresh count", async () => {
      status = 204;
      await page.getByRole("button", { name: `Re-enable ${hookUrl}` }).click();
      await page.getByRole("status").filter({ hasText: "is enabled again" }).waitFor();
      const row = page.locator("tbody tr", { hasText: hookUrl });
      await row.getByText("Enabled", { exact: true }).waitFor();
      assert.equal(await page.getByText("Disabled after 5 failed deliveries").count(), 0);
      assert.equal(await page.getByText("disabled after repeated failed deliveries").count(), 0);
      await page.getByRole("button", { name: `Disable ${hookUrl}` }).waitFor();
      const stored = (await call("GET", path)).webhook;
      assert.equal(stored.enabled, true);
      assert.equal(stored.consecutiveFailures, 0);
      assert.equal(stored.disabled, null);
      await page.getByRole("button", { name: `Send test to ${hookUrl}` }).click();
      for (let i = 0; i < 100 && received < 6; i++) await page.waitForTimeout(50);
      assert.equal(received, 6, "the endpoint receives again");
      await assertAccessible(page, "the re-enabled webhook");
    });

    const errors = log.consoleErrors.filter((line) => !line.includes("/favicon.ico"));
    assert.deepEqual(errors, []);
    assert.deepEqual(log.pageErrors, []);
    await page.context().close();
  } finally {
    await browser.close();
    await receiver.shutdown();
  }
});
