/**
 * The steps every dashboard browser test shares: signing in through the dashboard's own form,
 * opening a view and waiting for it, and the check that a page stayed clean (no console or
 * page errors, CSP refusals included, and no request leaving the service's origin), and a
 * team of an owner and a member made through the API.
 */
import assert from "node:assert/strict";
import type { Page } from "../deps.ts";
import type { PageLog } from "./browser.ts";
import { login, signUp } from "./builtin_login.ts";

/** Signs in with the built-in provider's form and waits for the dashboard's home. */
export async function signInToDashboard(
  page: Page,
  base: string,
  credentials: { email: string; password: string },
): Promise<void> {
  await page.goto(`${base}/dashboard/`);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByLabel("Email").fill(credentials.email);
  await page.getByLabel("Password").fill(credentials.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((url) => url.pathname === "/dashboard/" && !url.search);
  await page.locator("main[aria-busy]").waitFor({ state: "detached" });
}

/** Opens a dashboard location and waits until its view has loaded. */
export async function viewDashboard(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.locator("main[aria-busy]").waitFor({ state: "detached" });
}

/** No console or page errors and no request off `origin`. */
export function assertCleanPage(log: PageLog, origin: string): void {
  // The icon Chromium may ask for by itself is served too (GET /favicon.ico): no exception.
  assert.deepEqual(log.consoleErrors, [], "console errors (CSP refusals included)");
  assert.deepEqual(log.pageErrors, []);
  assert.deepEqual(log.foreignRequests(origin), []);
}

/** The password of every account the dashboard tests create. */
export const PASSWORD = "correct horse battery staple";
export const OWNER = { name: "Olivia Owner", email: "olivia@example.com" };
export const MEMBER = { name: "Mo Member", email: "mo@example.com" };

/** A JSON call with a bearer token that must succeed; its parsed body. */
export async function api(
  base: string,
  token: string,
  method: string,
  path: string,
  json?: unknown,
) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  assert.ok(res.ok, `${method} ${path}: ${res.status}`);
  return await res.json();
}

/**
 * OWNER and MEMBER sign up (open sign-up), OWNER bootstraps "Acme Security" with the public
 * project `acme-cloud` and MEMBER joins by invitation; their access tokens and the bootstrap.
 */
export async function dashboardTeam(base: string) {
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
