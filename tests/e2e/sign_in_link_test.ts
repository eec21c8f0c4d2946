/**
 * Anyone who knows an address can lock its password sign-in (throttling per email). With
 * SMTP configured, the owner still signs in: the locked sign-in page offers a one-time link,
 * emailed through the real SMTP server helper, that completes the same authorization
 * request once within 15 minutes. Only the token's SHA-256 is stored; requests are limited.
 */
import assert from "node:assert/strict";
import { fakeClock } from "../../src/lib/clock.ts";
import { signUp, tokenRequest } from "../support/builtin_login.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import {
  LINK,
  LINK_SUBJECT,
  lockOut as lockOutAddress,
  openSignIn as openSignInAs,
  runJobs,
} from "../support/sign_in_link.ts";
import { startSmtpServer } from "../support/smtp.ts";

const OWNER = { email: "owner@acme.test", name: "Olga Owner", password: "correct horse battery" };

/** A browser at the sign-in form of a new authorization request, as the owner. */
const openSignIn = (base: string) => openSignInAs(base, { email: OWNER.email });
const lockOut = (base: string, email = OWNER.email) => lockOutAddress(base, email);

async function setUp(server: TestServer) {
  const created = await signUp(server.baseUrl, "", OWNER);
  assert.equal(created.status, 303, "signing up signs in (a redirect to the dashboard)");
  await created.body?.cancel();
}

Deno.test("[e2e] sign-in link: a locked-out owner signs in through an emailed one-time link", async (t) => {
  await using smtp = await startSmtpServer();
  const clock = fakeClock(new Date("2026-11-01T12:00:00Z"));
  await using server = await startTestServer({
    clock,
    env: { SIGNUP: "open", SMTP_URL: smtp.url },
  });
  const base = server.baseUrl;
  await setUp(server);

  await t.step("sign-in that is not locked offers no link and refuses one", async () => {
    const browser = await openSignIn(base);
    const { res, html } = await browser.signIn("wrong password");
    assert.equal(res.status, 401);
    assert.doesNotMatch(html, /Email me a sign-in link/);
    const asked = await browser.askForLink();
    assert.equal(asked.res.status, 400);
    assert.match(asked.html, /Sign-in is not locked for this address/);
    assert.equal(smtp.messages.length, 0);
  });

  const owner = await openSignIn(base);
  let token = "";
  await t.step("someone else locks the address; the owner's page offers a link", async () => {
    await lockOut(base);
    const { res, html } = await owner.signIn(OWNER.password);
    assert.equal(res.status, 429);
    assert.ok(Number(res.headers.get("retry-after")) > 0);
    assert.match(html, /Email me a sign-in link/);
    assert.match(html, /action="\/oauth2\/authorize\/email-link"/);
  });

  await t.step("asking emails a link; only its hash is stored", async () => {
    const asked = await owner.askForLink();
    assert.equal(asked.res.status, 200);
    assert.match(asked.html, /If an account uses this address, we sent it a sign-in link/);
    await runJobs(server, clock);
    const mail = await smtp.next((m) => m.subject === LINK_SUBJECT);
    assert.deepEqual(smtp.recipients.at(-1), [OWNER.email]);
    token = mail.text!.match(LINK)![1];
    const stored = JSON.stringify(await Array.fromAsync(server.kv.list({ prefix: [] })));
    assert.ok(!stored.includes(token), "the token itself is never stored");
  });

  await t.step("opening the link shows a button and uses nothing", async () => {
    for (let i = 0; i < 2; i++) {
      const page = await fetch(`${base}/oauth2/sign-in-link/${token}`);
      assert.equal(page.status, 200);
      assert.equal(page.headers.get("referrer-policy"), "no-referrer");
      const html = await page.text();
      assert.match(html, /Sign in as <strong>owner@acme\.test<\/strong>/);
      assert.match(html, new RegExp(`action="/oauth2/sign-in-link/${token}"`));
    }
  });

  await t.step(
    "the button completes the original request; the code redeems with PKCE",
    async () => {
      const res = await fetch(`${base}/oauth2/sign-in-link/${token}`, {
        method: "POST",
        redirect: "manual",
      });
      assert.equal(res.status, 303);
      const location = new URL(res.headers.get("location")!);
      assert.equal(`${location.origin}${location.pathname}`, "http://127.0.0.1:9/callback");
      assert.equal(location.searchParams.get("state"), owner.state);
      assert.equal(location.searchParams.get("iss"), server.config.auth.issuer);
      const tokens = await tokenRequest(base, {
        grant_type: "authorization_code",
        code: location.searchParams.get("code")!,
        redirect_uri: "http://127.0.0.1:9/callback",
        client_id: "dashboard",
        code_verifier: owner.verifier,
      });
      assert.equal(tokens.status, 200);
      const { access_token } = await tokens.json();
      const me = await fetch(`${base}/me`, {
        headers: { authorization: `Bearer ${access_token}` },
      });
      assert.equal((await me.json()).user.email, OWNER.email);
    },
  );

  await t.step("the link works once", async () => {
    for (const method of ["POST", "GET"]) {
      const again = await fetch(`${base}/oauth2/sign-in-link/${token}`, {
        method,
        redirect: "manual",
      });
      assert.equal(again.status, 410, method);
      assert.match(await again.text(), /already used, has expired, or does not exist/);
    }
  });

  await t.step("a link expires after 15 minutes", async () => {
    await lockOut(base);
    const browser = await openSignIn(base);
    await browser.signIn(OWNER.password);
    assert.equal((await browser.askForLink()).res.status, 200);
    await runJobs(server, clock);
    const mail = await smtp.next((m) => m.subject === LINK_SUBJECT);
    const late = mail.text!.match(LINK)![1];
    clock.advance(15 * 60_000 + 1);
    const res = await fetch(`${base}/oauth2/sign-in-link/${late}`, {
      method: "POST",
      redirect: "manual",
    });
    assert.equal(res.status, 410);
    await res.body?.cancel();
  });

  await t.step("an address without an account gets the same answer and no email", async () => {
    const stranger = "nobody@acme.test";
    await lockOut(base, stranger);
    const browser = await openSignIn(base);
    await browser.signIn("whatever", stranger);
    const before = smtp.messages.length;
    const asked = await browser.askForLink(stranger);
    assert.equal(asked.res.status, 200);
    assert.match(asked.html, /If an account uses this address, we sent it a sign-in link/);
    await runJobs(server, clock);
    assert.equal(smtp.messages.length, before);
  });

  await t.step("at most 3 links per address an hour", async () => {
    clock.advance(60 * 60_000);
    await lockOut(base);
    const browser = await openSignIn(base);
    await browser.signIn(OWNER.password);
    await runJobs(server, clock);
    const before = smtp.messages.length;
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const asked = await browser.askForLink();
      statuses.push(asked.res.status);
      if (asked.res.status === 429) {
        assert.ok(Number(asked.res.headers.get("retry-after")) > 0);
      }
    }
    assert.deepEqual(statuses, [200, 200, 200, 429]);
    await runJobs(server, clock);
    assert.equal(smtp.messages.length - before, 3, "three links were emailed, not four");
  });

  await t.step("unknown and malformed tokens are 410 pages", async () => {
    for (const bad of ["x".repeat(43), "short", "%00"]) {
      const res = await fetch(`${base}/oauth2/sign-in-link/${bad}`);
      assert.equal(res.status, 410, bad);
      assert.match(res.headers.get("content-type") ?? "", /^text\/html/);
      await res.body?.cancel();
    }
  });
});

Deno.test("[e2e] sign-in link: without SMTP the locked page offers no link", async () => {
  await using server = await startTestServer({ worker: false, env: { SIGNUP: "open" } });
  await setUp(server);
  await lockOut(server.baseUrl);
  const browser = await openSignIn(server.baseUrl);
  const { res, html } = await browser.signIn(OWNER.password);
  assert.equal(res.status, 429);
  assert.doesNotMatch(html, /Email me a sign-in link/);
  const asked = await browser.askForLink();
  assert.equal(asked.res.status, 409);
  assert.match(asked.html, /This service sends no email/);
});
