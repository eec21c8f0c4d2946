/**
 * The emailed sign-in link in real Chromium: an address locked by someone else's guesses,
 * the owner asks for a link on the dashboard's sign-in page, and opening it in a new tab of
 * the same browser completes the sign-in that tab never started (the dashboard keeps a
 * sign-in under way in localStorage by its state). Pages are checked with axe and for
 * console and CSP errors.
 */
import assert from "node:assert/strict";
import { authorize, signUp } from "../support/builtin_login.ts";
import { assertAccessible, launchBrowser, openPage, WAIT_MS } from "../support/browser.ts";
import { assertCleanPage, OWNER, PASSWORD } from "../support/dashboard.ts";
import { startTestServer } from "../support/server.ts";
import { startSmtpServer } from "../support/smtp.ts";

Deno.test("[browser] sign-in link: a locked-out owner signs in to the dashboard from the email", async (t) => {
  await using smtp = await startSmtpServer();
  // The job worker runs: the link is emailed by a job, after the answer.
  await using server = await startTestServer({ env: { SIGNUP: "open", SMTP_URL: smtp.url } });
  const base = server.baseUrl;
  await (await signUp(base, "", { ...OWNER, password: PASSWORD })).body?.cancel();
  for (let i = 0; i < 6; i++) {
    const { response } = await authorize(base, { email: OWNER.email, password: `guess ${i}` });
    await response.body?.cancel();
  }
  const browser = await launchBrowser();
  try {
    const { context, page, log } = await openPage(browser);

    await t.step("the locked sign-in page offers a link, and asking for one says so", async () => {
      await page.goto(`${base}/dashboard/`);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByLabel("Email").fill(OWNER.email);
      await page.getByLabel("Password").fill(PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByText("Too many failed sign-in attempts").waitFor();
      await assertAccessible(page, "the locked sign-in page");
      await page.getByRole("button", { name: "Email me a sign-in link" }).click();
      await page.getByRole("heading", { name: "Check your email" }).waitFor();
      await assertAccessible(page, "the link request page");
    });

    await t.step("the link, opened in a new tab, signs in to the dashboard", async () => {
      const mail = await smtp.next((m) => m.subject === "Your one-time sign-in link", WAIT_MS);
      const url = mail.text!.match(/http:\/\/\S+\/oauth2\/sign-in-link\/[A-Za-z0-9_-]{43}/)![0];
      const tab = await context.newPage();
      await tab.goto(url);
      await tab.getByText(`Sign in as ${OWNER.email}`).waitFor();
      await assertAccessible(tab, "the sign-in link page");
      await tab.getByRole("button", { name: "Sign in" }).click();
      await tab.waitForURL((u) => u.pathname === "/dashboard/" && !u.search);
      await tab.getByRole("heading", { name: "Create your workspace" }).waitFor();
      assert.deepEqual(
        await tab.evaluate("Object.keys(localStorage).filter((k) => k.startsWith('tp.signin'))"),
        [],
        "the sign-in under way is dropped once used",
      );
    });

    // The locked sign-in page is answered 429 on purpose; Chromium logs every 4xx document.
    const locked = /status of 429 .*\/oauth2\/authorize\)$/;
    assert.equal(log.consoleErrors.filter((line) => locked.test(line)).length, 1);
    log.consoleErrors = log.consoleErrors.filter((line) => !locked.test(line));
    assertCleanPage(log, base);
  } finally {
    await browser.close();
  }
});
