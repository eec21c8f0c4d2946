/**
 * The operator dashboard in real Chromium against the real server: account
 * creation, OAuth sign-in with PKCE, onboarding, projects, controls,
 * members, invitations, token renewal and sign-out, checked for console
 * errors, foreign requests, accessibility and a phone-width layout.
 */
import assert from "node:assert/strict";
import type { Page } from "../deps.ts";
import {
  assertAccessible,
  assertNoHorizontalOverflow,
  expectFailedRequests,
  launchBrowser,
  openPage,
  type PageLog,
  type TrackedPage,
  WAIT_MS,
} from "../support/browser.ts";
import { startTestServer } from "../support/server.ts";

const PASSWORD = "correct horse battery staple";
const XSS_NAME = "<img src=x onerror=alert(1)>";
const SCREENSHOTS = "/tmp";

interface Person {
  name: string;
  email: string;
}

function heading(page: Page, name: string | RegExp) {
  return page.getByRole("heading", { level: 1, name });
}

/**
 * Creates an account through the real /signup form, starting from the dashboard's link; the
 * browser comes back signed in (the sign-up's one-time cookie answers the authorization request).
 */
async function signUp(page: Page, person: Person, link: string | RegExp) {
  await page.getByRole("link", { name: link }).click();
  await heading(page, "Create your account").waitFor();
  await page.getByLabel("Name").fill(person.name);
  const email = page.getByLabel("Email");
  if (await email.getAttribute("readonly") === null) await email.fill(person.email);
  else assert.equal(await email.inputValue(), person.email);
  await page.getByLabel(/^Password/).fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
  await page.waitForURL((url) => url.pathname === "/dashboard/" && !url.search);
  await page.locator("main[aria-busy]").waitFor({ state: "detached" });
}

/** The dashboard's authorization request seen in `log`: PKCE S256, its redirect URI, a state. */
function assertAuthorizationRequest(log: PageLog, baseUrl: string) {
  const request = log.requests.findLast((u) => new URL(u).pathname === "/oauth2/authorize");
  assert.ok(request, "the dashboard sent an authorization request");
  const params = new URL(request).searchParams;
  assert.equal(params.get("code_challenge_method"), "S256");
  assert.equal(params.get("redirect_uri"), `${baseUrl}/dashboard/`);
  assert.match(params.get("state") ?? "", /^[A-Za-z0-9_-]{32}$/);
}

function assertCleanLog(log: PageLog, origin: string) {
  assert.deepEqual(log.consoleErrors, [], "Console errors");
  assert.deepEqual(log.pageErrors, [], "Uncaught page errors");
  assert.deepEqual(log.dialogs, [], "Dialogs opened");
  assert.deepEqual(log.foreignRequests(origin), [], "Requests to another origin");
}

async function sessionTokens(page: Page) {
  return JSON.parse(
    await page.evaluate("sessionStorage.getItem('tp.session')") as string,
  ) as { accessToken: string; refreshToken: string; expiresAt: number };
}

Deno.test("[browser] dashboard: the operator journey from sign-up to sign-out", async (t) => {
  await using server = await startTestServer({ env: { SIGNUP: "open" } });
  const base = server.baseUrl;
  const owner: Person = { name: "Olivia Owner", email: "olivia@example.com" };
  const teammate: Person = { name: "Tariq Teammate", email: "tariq@example.com" };
  const browser = await launchBrowser();
  try {
    const tab: TrackedPage = await openPage(browser);
    const { page, log } = tab;
    let acceptUrl = "";
    let projectId = "";

    await t.step("the page is served with a strict CSP and security headers", async () => {
      const res = await fetch(`${base}/dashboard/`);
      await res.body?.cancel();
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type") ?? "", /^text\/html/);
      const csp = res.headers.get("content-security-policy") ?? "";
      for (
        const directive of [
          "default-src 'none'",
          "script-src 'self'",
          "style-src 'self'",
          "connect-src 'self'",
          "img-src 'self' data:",
          "form-action 'self'",
          "frame-ancestors 'none'",
          "base-uri 'none'",
          "require-trusted-types-for 'script'",
        ]
      ) assert.ok(csp.includes(directive), `CSP lacks ${directive}: ${csp}`);
      assert.equal(res.headers.get("cache-control"), "no-cache");
      assert.equal(res.headers.get("x-frame-options"), "DENY");
      assert.equal(res.headers.get("referrer-policy"), "no-referrer");
      assert.equal(res.headers.get("x-content-type-options"), "nosniff");
      for (const path of ["/dashboard", "/static/dashboard/index.html"]) {
        const moved = await fetch(`${base}${path}`, { redirect: "manual" });
        await moved.body?.cancel();
        assert.equal(moved.status, 301, path);
        assert.equal(moved.headers.get("location"), "/dashboard/", path);
      }
      const config = await (await fetch(`${base}/dashboard/config.json`)).json();
      assert.equal(config.redirectUri, `${base}/dashboard/`);
      assert.equal(config.signup, "open");
    });

    await t.step("a visitor creates an account through /signup and is signed in", async () => {
      await page.goto(`${base}/dashboard/`);
      await heading(page, "Sign in to Trust Profile").waitFor();
      await assertAccessible(page, "the sign-in screen");
      await page.screenshot({ path: `${SCREENSHOTS}/dashboard-signin.png` });
      await signUp(page, owner, "Create an account");
    });

    await t.step("signed in with the authorization code flow and PKCE", async () => {
      assertAuthorizationRequest(log, base);
      await heading(page, "Create your workspace").waitFor();
      assert.equal(new URL(page.url()).search, "", "code and state are removed from the URL");
      const tokens = await sessionTokens(page);
      assert.ok(tokens.accessToken && tokens.refreshToken, "tokens are kept in sessionStorage");
      assert.deepEqual(
        await page.evaluate(
          "Object.keys(localStorage).filter((k) => k.startsWith('tp.signin'))",
        ),
        [],
        "the PKCE verifier is dropped after the exchange",
      );
    });

    await t.step("bootstraps a workspace; the project starts private", async () => {
      await page.getByText("Projects start private.").waitFor();
      await assertAccessible(page, "onboarding");
      await page.screenshot({ path: `${SCREENSHOTS}/dashboard-onboarding.png`, fullPage: true });
      await page.getByLabel("Workspace name").fill("Acme Security");
      await page.getByLabel("Project name").fill("Acme Cloud");
      assert.ok(await page.getByLabel(/^Private/).isChecked(), "private is the default");
      await page.getByRole("button", { name: "Create workspace" }).click();
      await heading(page, "Acme Cloud").waitFor();
      projectId = new URL(page.url()).hash.match(/^#\/projects\/([0-9a-f-]{36})$/)?.[1] ?? "";
      assert.ok(projectId, `a project URL, got ${page.url()}`);
    });

    await t.step("sees the project and its 7 default controls", async () => {
      const table = page.getByRole("table", { name: "Control catalog" });
      await table.waitFor();
      const rows = table.locator("tbody tr");
      assert.equal(await rows.count(), 7);
      const keys = await table.locator("tbody td:first-child code").allTextContents();
      assert.ok(keys.includes("collector.heartbeat"), `keys: ${keys.join(", ")}`);
      assert.ok(keys.includes("evidence.sbom"));
      await page.getByText("This project is private.").waitFor();
      assert.equal(await page.locator(".page-header .badge", { hasText: "Private" }).count(), 1);
      await assertAccessible(page, "the project overview");
      await page.screenshot({ path: `${SCREENSHOTS}/dashboard-project.png`, fullPage: true });
    });

    await t.step("renews the access token when an API call answers 401", async () => {
      const before = await sessionTokens(page);
      const tokenCalls = () => log.requests.filter((u) => u.endsWith("/oauth2/token")).length;
      const calls = tokenCalls();
      await page.evaluate(
        `sessionStorage.setItem('tp.session', JSON.stringify({ ...JSON.parse(sessionStorage.getItem('tp.session')), accessToken: 'not-a-token' }))`,
      );
      await expectFailedRequests(log, [401], async () => {
        await page.reload();
        await page.getByRole("table", { name: "Control catalog" }).waitFor();
      });
      assert.equal(tokenCalls(), calls + 1, "one refresh_token grant");
      const after = await sessionTokens(page);
      assert.notEqual(after.refreshToken, before.refreshToken, "the refresh token rotated");
    });

    await t.step("renews an expired access token before calling the API", async () => {
      const tokenCalls = () => log.requests.filter((u) => u.endsWith("/oauth2/token")).length;
      const calls = tokenCalls();
      await page.evaluate(
        `sessionStorage.setItem('tp.session', JSON.stringify({ ...JSON.parse(sessionStorage.getItem('tp.session')), expiresAt: 0 }))`,
      );
      await page.reload();
      await page.getByRole("table", { name: "Control catalog" }).waitFor();
      assert.equal(tokenCalls(), calls + 1);
    });

    await t.step("renames the project; the slug stays read-only", async () => {
      await page.getByRole("navigation", { name: "Project" }).getByRole("link", {
        name: "Settings",
      })
        .click();
      await heading(page, "Acme Cloud").waitFor();
      const slug = page.getByLabel("Slug");
      assert.equal(await slug.inputValue(), "acme-cloud");
      assert.notEqual(await slug.getAttribute("readonly"), null);
      await assertAccessible(page, "the project settings");
      await page.getByLabel("Project name").fill("Acme Cloud Platform");
      await page.getByRole("button", { name: "Save changes" }).click();
      await page.getByText("Changes saved").waitFor();
      await heading(page, "Acme Cloud Platform").waitFor();
      await page.screenshot({ path: `${SCREENSHOTS}/dashboard-settings.png`, fullPage: true });
    });

    await t.step("shows API errors inline next to the form", async () => {
      await page.getByRole("link", { name: "Acme Security" }).first().click();
      await heading(page, "Acme Security").waitFor();
      await page.getByLabel("Project name").fill("Duplicate");
      await page.getByLabel("Slug (optional)").fill("acme-cloud");
      await expectFailedRequests(log, [409], async () => {
        await page.getByRole("button", { name: "Create project" }).click();
        await page.getByRole("alert").filter({
          hasText: 'Project slug "acme-cloud" is already taken',
        })
          .waitFor();
      });
    });

    await t.step("creates a second project whose name is markup, shown as text", async () => {
      await page.getByLabel("Project name").fill(XSS_NAME);
      await page.getByLabel("Slug (optional)").fill("");
      await page.getByRole("button", { name: "Create project" }).click();
      await heading(page, XSS_NAME).waitFor();
      assert.equal(await page.locator("main img").count(), 0, "no img element was created");
      await page.getByRole("link", { name: "Acme Security" }).first().click();
      const projects = page.getByRole("table", { name: "Projects of the organization" });
      await projects.getByRole("link", { name: XSS_NAME }).waitFor();
      assert.equal(await projects.locator("tbody tr").count(), 2);
      assert.equal(await page.locator("main img").count(), 0);
      assert.equal(
        log.requests.filter((u) => new URL(u).pathname.endsWith("/x")).length,
        0,
        "the browser never tried to load the img source",
      );
      await assertAccessible(page, "the projects of the organization");
      await page.screenshot({ path: `${SCREENSHOTS}/dashboard-projects.png`, fullPage: true });
    });

    await t.step("invites a member and sees the accept URL once", async () => {
      await page.getByRole("link", { name: "Members" }).click();
      await heading(page, "Acme Security").waitFor();
      const members = page.getByRole("table", { name: "Members of the organization" });
      await members.getByText(owner.email).waitFor();
      await page.getByLabel("Email address").fill(teammate.email);
      await page.getByRole("button", { name: "Create invitation" }).click();
      const link = page.getByLabel("Accept link");
      await link.waitFor();
      acceptUrl = await link.inputValue();
      assert.ok(acceptUrl.startsWith(`${base}/`), acceptUrl);
      await page.getByRole("button", { name: "Copy link" }).waitFor();
      await assertAccessible(page, "the members of the organization");
      await page.screenshot({ path: `${SCREENSHOTS}/dashboard-members.png`, fullPage: true });
    });

    await t.step("fits a 375px-wide phone screen", async () => {
      await page.setViewportSize({ width: 375, height: 812 });
      const orgHash = new URL(page.url()).hash.replace(/\/members$/, "");
      const views = [
        ["projects", orgHash],
        ["members", `${orgHash}/members`],
        ["project overview", `#/projects/${projectId}`],
        ["project settings", `#/projects/${projectId}/settings`],
      ];
      for (const [view, hash] of views) {
        await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
        await page.locator("main[aria-busy]").waitFor({ state: "detached" });
        await page.locator("main h1").waitFor();
        await assertNoHorizontalOverflow(page, view);
        await page.screenshot({
          path: `${SCREENSHOTS}/dashboard-375-${view.replace(/ /g, "-")}.png`,
          fullPage: true,
        });
      }
      await assertAccessible(page, "the project settings at phone width");
      await page.setViewportSize({ width: 1280, height: 860 });
    });

    await t.step("the dark theme keeps its contrast", async () => {
      await page.emulateMedia({ colorScheme: "dark" });
      try {
        await page.evaluate(`location.hash = "#/projects/${projectId}"`);
        await page.getByRole("table", { name: "Control catalog" }).waitFor();
        await assertAccessible(page, "the project overview in the dark theme");
        await page.screenshot({
          path: `${SCREENSHOTS}/dashboard-dark-project.png`,
          fullPage: true,
        });
        await page.getByRole("link", { name: "Acme Security" }).first().click();
        await page.getByRole("link", { name: "Members" }).click();
        await page.getByRole("table", { name: "Members of the organization" }).waitFor();
        await assertAccessible(page, "the members in the dark theme");
      } finally {
        await page.emulateMedia({ colorScheme: "light" });
      }
    });

    await t.step("the invited person signs up and accepts from the link", async () => {
      const invitee = await openPage(browser);
      try {
        await invitee.page.goto(acceptUrl);
        await invitee.page.waitForURL((url) => url.hash.startsWith("#invitation="));
        await invitee.page.getByText("You have been invited").waitFor();
        await signUp(invitee.page, teammate, "Create an account for this invitation");
        assertAuthorizationRequest(invitee.log, base);
        await heading(invitee.page, "Invitation accepted").waitFor();
        await invitee.page.getByText("You are now a member of Acme Security.").waitFor();
        assert.ok(!invitee.page.url().includes("invitation"), "the spent token left the URL");
        await assertAccessible(invitee.page, "the accepted invitation");
        await invitee.page.getByRole("link", { name: "Open Acme Security" }).click();
        await invitee.page.getByRole("link", { name: "Acme Cloud Platform" }).waitFor();
        assertCleanLog(invitee.log, base);
      } finally {
        await invitee.context.close();
      }
    });

    await t.step("the owner sees and removes the new member", async () => {
      await page.reload();
      const members = page.getByRole("table", { name: "Members of the organization" });
      await members.getByText(teammate.email).waitFor();
      await page.getByRole("button", { name: `Remove ${teammate.name}` }).click();
      await page.getByRole("button", { name: "Remove", exact: true }).click();
      await page.getByText(`${teammate.name} was removed`).waitFor();
      assert.equal(await members.getByText(teammate.email).count(), 0);
    });

    await t.step("signs out: the session is gone, at the provider too", async () => {
      const session = JSON.parse(
        await page.evaluate("sessionStorage.getItem('tp.session')") as string,
      );
      assert.match(session.refreshToken, /\S{20,}/);
      const revoked = page.waitForResponse((r) => r.url().endsWith("/oauth2/revoke"));
      await page.getByRole("button", { name: "Sign out" }).click();
      assert.equal((await revoked).status(), 200);
      await heading(page, "Sign in to Trust Profile").waitFor();
      await page.getByText("You have signed out.").waitFor();
      assert.equal(await page.evaluate("sessionStorage.length"), 0);
      const refresh = await fetch(`${base}/oauth2/token`, {
        method: "POST",
        body: new URLSearchParams({
          grant_type: "refresh_token",
          refresh_token: session.refreshToken,
          client_id: server.config.auth.clientId,
        }),
      });
      assert.equal(refresh.status, 400);
      assert.equal((await refresh.json()).error, "invalid_grant", "the refresh token is dead");
      await page.reload();
      await heading(page, "Sign in to Trust Profile").waitFor();
    });

    await t.step("no console errors, dialogs or requests to another origin", () => {
      assertCleanLog(log, base);
      assert.ok(log.requests.length > 20, "requests were recorded");
    });
  } finally {
    await browser.close();
  }
});

Deno.test("[browser] dashboard: a sign-in response with a foreign state is refused", async () => {
  await using server = await startTestServer({ env: { SIGNUP: "open" } });
  const browser = await launchBrowser();
  try {
    const { page, log } = await openPage(browser);
    await page.goto(`${server.baseUrl}/dashboard/?code=stolen&state=forged&iss=${server.baseUrl}`);
    await page.getByRole("alert").filter({ hasText: "does not match a sign-in started here" })
      .waitFor({ timeout: WAIT_MS });
    assert.equal(new URL(page.url()).search, "");
    assert.equal(log.requests.filter((u) => u.endsWith("/oauth2/token")).length, 0);
    assertCleanLog(log, server.baseUrl);
  } finally {
    await browser.close();
  }
});
