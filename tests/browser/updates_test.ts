/**
 * The dashboard's Updates section in real Chromium: a member posts an incident with hostile
 * Markdown, edits and resolves it, posts a change and deletes it, at 375 and 1280 px with
 * axe; then the trust page and the updates page show the update safely under their CSP.
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

Deno.test("[browser] updates: the dashboard section and the public pages", async (t) => {
  await using server = await startTestServer({ env: { SIGNUP: "open" }, queue: false });
  const base = server.baseUrl;
  const { owner, boot } = await team(base);
  const projectId = boot.project.id;
  await api(base, owner, "POST", `/projects/${projectId}/publish`);
  const browser = await launchBrowser();
  try {
    await t.step("a member posts, edits, resolves and deletes (1280 px)", async () => {
      const { page, log } = await openPage(browser);
      await signIn(page, base, MEMBER);
      await view(page, `${base}/dashboard/#/projects/${projectId}/updates`);
      await page.getByText("No updates yet").waitFor();
      await assertAccessible(page, "the empty updates section");
      await page.getByLabel("Kind").selectOption("incident");
      await page.getByLabel("Title").fill("API errors in eu-west");
      await page.getByLabel("Body (Markdown)").fill(
        "We are **investigating**. <script>alert(1)</script> [x](javascript:alert(1))",
      );
      await page.getByRole("button", { name: "Post update" }).click();
      await page.getByRole("status").filter({ hasText: "posted" }).waitFor();
      await page.getByRole("heading", { level: 3, name: "API errors in eu-west" }).waitFor();
      await page.getByText("Ongoing", { exact: true }).waitFor();
      await expectFailedRequests(log, [400], async () => {
        const post = page.getByRole("region", { name: "Post an update" });
        await post.getByLabel("Title").fill("bad");
        await post.getByLabel("Body (Markdown)").fill("   ");
        await page.getByRole("button", { name: "Post update" }).click();
        await page.getByRole("alert").waitFor();
      });
      await page.locator("details summary", { hasText: "Edit" }).first().click();
      const edit = page.getByRole("form", { name: "Edit API errors in eu-west" });
      await edit.getByLabel("Title").fill("API errors in eu-west (fixed)");
      await edit.getByRole("button", { name: "Save update" }).click();
      await page.getByRole("status").filter({ hasText: "saved" }).waitFor();
      await page.getByRole("button", { name: "Mark resolved: API errors in eu-west (fixed)" })
        .click();
      await page.getByRole("status").filter({ hasText: "resolved" }).waitFor();
      await page.getByText("Resolved", { exact: true }).waitFor();
      await assertAccessible(page, "the updates section with an update");
      await assertNoHorizontalOverflow(page, "the updates section");
      const { updates } = await api(base, owner, "GET", `/projects/${projectId}/updates`);
      assert.equal(updates.length, 1);
      assert.equal(updates[0].title, "API errors in eu-west (fixed)");
      assert.ok(updates[0].resolvedAt);
      assert.equal(updates[0].postedBy.email, MEMBER.email);
      assertClean(log, base);
      await page.context().close();
    });

    await t.step("the section and deletion at 375 px", async () => {
      const { page, log } = await openPage(browser, { viewport: { width: 375, height: 800 } });
      await signIn(page, base, OWNER);
      await view(page, `${base}/dashboard/#/projects/${projectId}/updates`);
      const post = page.getByRole("region", { name: "Post an update" });
      await post.getByLabel("Kind").selectOption("change");
      await post.getByLabel("Title").fill("Temporary notice");
      await post.getByLabel("Body (Markdown)").fill("To be deleted.");
      await page.getByRole("button", { name: "Post update" }).click();
      await page.getByRole("heading", { level: 3, name: "Temporary notice" }).waitFor();
      await assertAccessible(page, "the updates section at 375 px");
      await assertNoHorizontalOverflow(page, "the updates section at 375 px");
      await page.getByRole("button", { name: "Delete Temporary notice" }).click();
      await page.getByRole("button", { name: "Delete", exact: true }).click();
      await page.getByRole("status").filter({ hasText: "deleted" }).waitFor();
      assert.equal(await page.getByRole("heading", { name: "Temporary notice" }).count(), 0);
      assertClean(log, base);
      await page.context().close();
    });

    for (const width of [375, 1280]) {
      await t.step(`the trust page and the updates page at ${width} px`, async () => {
        const { page, log } = await openPage(browser, { viewport: { width, height: 800 } });
        await page.goto(`${base}/trust/acme-cloud`);
        await page.getByRole("heading", { level: 2, name: "Updates" }).waitFor();
        await page.getByRole("heading", { level: 3, name: "API errors in eu-west (fixed)" })
          .waitFor();
        assert.equal(await page.locator("script").count(), 0);
        await assertAccessible(page, `the trust page with updates at ${width} px`);
        await assertNoHorizontalOverflow(page, `the trust page with updates at ${width} px`);
        await page.getByRole("link", { name: "All updates" }).click();
        await page.getByRole("heading", { level: 1, name: "Acme Cloud: updates" }).waitFor();
        await assertAccessible(page, `the updates page at ${width} px`);
        await assertNoHorizontalOverflow(page, `the updates page at ${width} px`);
        await page.getByRole("link", { name: "API errors in eu-west (fixed)" }).click();
        await page.getByText("Resolved", { exact: true }).waitFor();
        await assertAccessible(page, `one update's page at ${width} px`);
        assertClean(log, base);
        await page.context().close();
      });
    }
  } finally {
    await browser.close();
  }
});
