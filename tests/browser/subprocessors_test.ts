/**
 * The dashboard's Subprocessors view in real Chromium: an owner adds, edits and removes
 * subprocessors and sees the history, at 375 and 1280 px with axe; a member reads the list
 * without the controls to change it.
 */
import assert from "node:assert/strict";
import type { Page } from "../deps.ts";
import { login, signUp } from "../support/builtin_login.ts";
import {
  assertAccessible,
  assertNoHorizontalOverflow,
  expectFailedRequests,
  launchBrowser,
  openPage,
  type PageLog,
} from "../support/browser.ts";
import { startTestServer } from "../support/server.ts";

const PASSWORD = "correct horse battery staple";
const OWNER = { name: "Olivia Owner", email: "olivia@example.com" };
const MEMBER = { name: "Mo Member", email: "mo@example.com" };

async function api(base: string, token: string, method: string, path: string, json?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  assert.ok(res.ok, `${method} ${path}: ${res.status}`);
  return await res.json();
}

async function signIn(page: Page, base: string, person: { email: string }) {
  await page.goto(`${base}/dashboard/`);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByLabel("Email").fill(person.email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((url) => url.pathname === "/dashboard/" && !url.search);
  await page.locator("main[aria-busy]").waitFor({ state: "detached" });
}

function assertClean(log: PageLog, origin: string) {
  // Chromium probes /favicon.ico by itself for pages without an icon; the service has none.
  const errors = log.consoleErrors.filter((line) => !line.includes("/favicon.ico"));
  assert.deepEqual(errors, [], "console errors (CSP refusals included)");
  assert.deepEqual(log.pageErrors, []);
  assert.deepEqual(log.foreignRequests(origin), []);
}

async function team(base: string) {
  for (const person of [OWNER, MEMBER]) {
    const res = await signUp(base, "", { ...person, password: PASSWORD });
    await res.body?.cancel();
  }
  const owner = (await login(base, { email: OWNER.email, password: PASSWORD })).access_token;
  const member = (await login(base, { email: MEMBER.email, password: PASSWORD })).access_token;
  const boot = await api(base, owner, "POST", "/onboarding/bootstrap", {
    workspaceName: "Acme Security",
    projectName: "Acme Cloud",
    projectSlug: "acme-cloud",
    projectVisibility: "public",
  });
  const invitation = await api(
    base,
    owner,
    "POST",
    `/organizations/${boot.organization.id}/invitations`,
    {
      email: MEMBER.email,
      role: "member",
    },
  );
  const token = invitation.acceptUrl.split("#invitation=")[1];
  await api(base, member, "POST", `/invitations/${token}/accept`);
  return { owner, member, boot };
}

async function view(page: Page, url: string) {
  await page.goto(url);
  await page.locator("main[aria-busy]").waitFor({ state: "detached" });
}

Deno.test("[browser] subprocessors: owners change the list, members read it", async (t) => {
  await using server = await startTestServer({ env: { SIGNUP: "open" }, queue: false });
  const base = server.baseUrl;
  const { member, boot } = await team(base);
  const orgId = boot.organization.id;
  const browser = await launchBrowser();
  try {
    for (const width of [1280, 375]) {
      await t.step(`an owner adds, edits and removes at ${width} px`, async () => {
        const { page, log } = await openPage(browser, { viewport: { width, height: 860 } });
        await signIn(page, base, OWNER);
        await view(page, `${base}/dashboard/#/orgs/${orgId}`);
        await page.getByRole("link", { name: "Subprocessors" }).click();
        await page.getByRole("heading", { level: 2, name: "Subprocessors" }).waitFor();
        const name = `Postmark ${width}`;
        await page.getByLabel("Name").fill(name);
        await page.getByLabel("Purpose").fill("Transactional email");
        await page.getByLabel("Location").fill("United States");
        await page.getByLabel("Website").fill("https://postmarkapp.com");
        await page.getByRole("button", { name: "Add subprocessor" }).click();
        await page.getByRole("status").filter({ hasText: `${name} added` }).waitFor();
        await page.getByRole("link", { name }).waitFor();
        await expectFailedRequests(log, [400], async () => {
          await page.getByLabel("Name").fill("Insecure");
          await page.getByLabel("Purpose").fill("x");
          await page.getByLabel("Location").fill("y");
          await page.getByLabel("Website").fill("http://insecure.example");
          await page.getByRole("button", { name: "Add subprocessor" }).click();
          await page.getByRole("alert").waitFor();
        });
        await page.getByRole("button", { name: `Edit ${name}` }).click();
        await page.getByRole("heading", { name: `Edit ${name}` }).waitFor();
        await page.getByLabel("Location").fill("United States, Ireland");
        await page.getByRole("button", { name: "Save subprocessor" }).click();
        await page.getByRole("status").filter({ hasText: `${name} saved` }).waitFor();
        await page.getByText("United States, Ireland").first().waitFor();
        await page.getByText(/changed by olivia@example\.com: location/).first().waitFor();
        await assertAccessible(page, `the subprocessors view at ${width} px`);
        await assertNoHorizontalOverflow(page, `the subprocessors view at ${width} px`);
        await page.getByRole("button", { name: `Remove ${name}` }).click();
        await page.getByRole("button", { name: "Remove", exact: true }).click();
        await page.getByRole("status").filter({ hasText: `${name} removed` }).waitFor();
        await page.getByText(new RegExp(`${name} removed by`)).waitFor();
        assertClean(log, base);
        await page.context().close();
      });
    }

    await api(base, member, "GET", `/organizations/${orgId}/subprocessors`);
    await t.step("a member reads the list without changing it (1280 px)", async () => {
      const { page, log } = await openPage(browser);
      await signIn(page, base, MEMBER);
      await view(page, `${base}/dashboard/#/orgs/${orgId}/subprocessors`);
      await page.getByText("Only owners of the organization can change the list.").waitFor();
      assert.equal(await page.getByRole("button", { name: "Add subprocessor" }).count(), 0);
      await page.getByText(/Postmark 1280 added by/).waitFor();
      await assertAccessible(page, "the read-only subprocessors view");
      assertClean(log, base);
      await page.context().close();
    });
  } finally {
    await browser.close();
  }
});
