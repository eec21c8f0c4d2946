/**
 * Who the vendor is, in real Chromium: the dashboard's vendor profile section (owners edit
 * it and upload a logo, members read it) at 1280 px, and the organization trust center and
 * trust page showing the vendor at 375 and 1280 px, each checked with axe, for console and
 * CSP errors and for sideways scrolling.
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
} from "../support/browser.ts";
import {
  api,
  assertCleanPage,
  MEMBER,
  OWNER,
  PASSWORD,
  signInToDashboard,
} from "../support/dashboard.ts";
import { startTestServer } from "../support/server.ts";

const LOGO = new URL("../fixtures/logos/logo.png", import.meta.url);

async function imageLoaded(page: Page, selector: string): Promise<boolean> {
  const img = `document.querySelector(${JSON.stringify(selector)})`;
  return await page.evaluate(`${img}.complete && ${img}.naturalWidth > 0`) as boolean;
}

Deno.test("[browser] vendor: dashboard profile section, trust center and trust page", async (t) => {
  await using server = await startTestServer({ env: { SIGNUP: "open" }, worker: false });
  const base = server.baseUrl;
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
  const orgId = boot.organization.id;
  const orgSlug = boot.organization.slug;
  const invitation = await api(base, owner, "POST", `/organizations/${orgId}/invitations`, {
    email: MEMBER.email,
    role: "member",
  });
  const token = invitation.acceptUrl.split("#invitation=")[1];
  await api(base, member, "POST", `/invitations/${token}/accept`);

  const browser = await launchBrowser();
  try {
    await t.step("an owner edits the profile and uploads a logo (1280 px)", async () => {
      const { page, log } = await openPage(browser);
      await signInToDashboard(page, base, { email: OWNER.email, password: PASSWORD });
      await page.goto(`${base}/dashboard/#/orgs/${orgId}/profile`);
      await page.locator("main[aria-busy]").waitFor({ state: "detached" });
      await page.getByRole("heading", { level: 2, name: "Vendor profile" }).waitFor();
      await page.getByLabel("Display name").fill("Acme, Inc.");
      await page.getByLabel("Description").fill("Cloud hosting for <regulated> teams.");
      await page.getByLabel("Website").fill("https://acme.example");
      await page.getByLabel("Security contact email").fill("security@acme.example");
      await page.getByLabel("Brand colour").fill("#ffcc00");
      await page.getByText(/below 4\.5:1/).waitFor();
      await expectFailedRequests(log, [400], async () => {
        await page.getByRole("button", { name: "Save profile" }).click();
        await page.getByRole("alert").filter({ hasText: /4\.5:1/ }).waitFor();
      });
      await page.getByLabel("Brand colour").fill("#1d4ed8");
      await page.getByText(/6\.70:1 \(meets 4\.5:1\)/).waitFor();
      await page.getByRole("button", { name: "Save profile" }).click();
      await page.getByRole("status").filter({ hasText: "Profile saved" }).waitFor();
      await page.getByLabel("Logo image").setInputFiles(LOGO.pathname);
      await page.getByRole("button", { name: "Upload logo" }).click();
      await page.getByRole("status").filter({ hasText: "Logo uploaded" }).waitFor();
      await page.getByRole("img", { name: "Current logo" }).waitFor();
      assert.ok(await imageLoaded(page, "img.logo-preview"), "the logo loads in the dashboard");
      await page.getByRole("link", { name: "Public trust center" }).waitFor();
      await assertAccessible(page, "the vendor profile section");
      await assertNoHorizontalOverflow(page, "the vendor profile section");
      assertCleanPage(log, base);
      const stored = await api(base, member, "GET", `/organizations/${orgId}/profile`);
      assert.equal(stored.profile.displayName, "Acme, Inc.");
      assert.equal(stored.profile.brandColor, "#1d4ed8");
      assert.equal(stored.profile.logo.contentType, "image/png");
      await page.context().close();
    });

    await t.step("a member sees the profile read-only (1280 px)", async () => {
      const { page, log } = await openPage(browser);
      await signInToDashboard(page, base, { email: MEMBER.email, password: PASSWORD });
      await page.goto(`${base}/dashboard/#/orgs/${orgId}/profile`);
      await page.locator("main[aria-busy]").waitFor({ state: "detached" });
      await page.getByText("Only owners of the organization can change the profile.").waitFor();
      assert.equal(await page.getByRole("button", { name: "Save profile" }).count(), 0);
      assert.equal(await page.getByRole("button", { name: "Upload logo" }).count(), 0);
      await page.getByText("security@acme.example").waitFor();
      await assertAccessible(page, "the read-only vendor profile");
      assertCleanPage(log, base);
      await page.context().close();
    });

    await api(base, owner, "POST", `/projects/${boot.project.id}/publish`);
    for (const width of [375, 1280]) {
      await t.step(`the trust center and trust page show the vendor at ${width} px`, async () => {
        const { page, log } = await openPage(browser, { viewport: { width, height: 800 } });
        const center = await page.goto(`${base}/public/trust/${orgSlug}`);
        assert.equal(center?.status(), 200);
        assert.match(center?.headers()["content-security-policy"] ?? "", /img-src 'self'/);
        await page.getByRole("heading", { level: 1, name: "Acme, Inc." }).waitFor();
        await page.getByRole("link", { name: "Acme Cloud" }).waitFor();
        assert.ok(await imageLoaded(page, ".vendor img"), "the logo loads under the page's CSP");
        assert.equal(
          await page.evaluate("getComputedStyle(document.querySelector('.tag')).backgroundColor"),
          "rgb(29, 78, 216)",
          "the brand colour applies through the hashed style",
        );
        await assertAccessible(page, `the trust center at ${width} px`);
        await assertNoHorizontalOverflow(page, `the trust center at ${width} px`);
        await page.getByRole("link", { name: "Acme Cloud" }).click();
        await page.waitForURL(`${base}/trust/acme-cloud`);
        await page.getByText("Published by Acme, Inc.").waitFor();
        assert.ok(await imageLoaded(page, ".vendor img"));
        await assertAccessible(page, `the trust page with its vendor at ${width} px`);
        await assertNoHorizontalOverflow(page, `the trust page at ${width} px`);
        await page.getByRole("link", { name: "Trust center" }).first().click();
        await page.waitForURL(`${base}/public/trust/${orgSlug}`);
        assertCleanPage(log, base);
        await page.context().close();
      });
    }
  } finally {
    await browser.close();
  }
});
