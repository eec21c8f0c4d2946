/**
 * Signing up signs in: the sign-up form answers with the dashboard's address and a one-time
 * cookie that the next authorization request in the same browser redeems for a code, without
 * the password; the cookie works once, for five minutes, and only at /oauth2/authorize.
 */
import assert from "node:assert/strict";
import { encodeBase64Url, randomToken } from "../../src/lib/encoding.ts";
import { CookieJar, hiddenField, tokenRequest } from "../support/builtin_login.ts";
import { startTestServer } from "../support/server.ts";

const PERSON = { name: "Nora New", email: "nora@acme.test", password: "a long passphrase" };

async function challenge(verifier: string) {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return encodeBase64Url(new Uint8Array(digest));
}

Deno.test("[e2e] sign-up: the browser that signed up is signed in by its next authorization request", async (t) => {
  let now = Date.now();
  await using server = await startTestServer({
    worker: false,
    env: { SIGNUP: "open" },
    clock: { now: () => new Date(now) },
  });
  const base = server.baseUrl;
  const redirectUri = `${base}/dashboard/`;

  /** Signs up in a fresh browser (cookie jar); the jar and the answer. */
  const signUp = async (person: typeof PERSON) => {
    const jar = new CookieJar();
    const form = await fetch(`${base}/signup`);
    jar.take(form);
    const csrf = hiddenField(await form.text(), "csrf");
    const res = await fetch(`${base}/signup`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.header() },
      body: new URLSearchParams({ csrf, ...person }),
    });
    jar.take(res);
    return { jar, res };
  };

  /** The dashboard's authorization request from a browser with `jar`. */
  const authorize = async (jar: CookieJar) => {
    const verifier = randomToken(48);
    const state = randomToken(8);
    const query = new URLSearchParams({
      response_type: "code",
      client_id: "dashboard",
      redirect_uri: redirectUri,
      code_challenge: await challenge(verifier),
      code_challenge_method: "S256",
      state,
      scope: "api",
    });
    const res = await fetch(`${base}/oauth2/authorize?${query}`, {
      redirect: "manual",
      headers: { cookie: jar.header() },
    });
    jar.take(res);
    return { res, verifier, state };
  };

  let browser = new CookieJar();
  await t.step("sign-up answers 303 to the dashboard with a one-time cookie", async () => {
    const { jar, res } = await signUp(PERSON);
    browser = jar;
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/dashboard/?signed-up");
    assert.equal(res.headers.get("cache-control"), "no-store");
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith("tp_sign_in="));
    assert.ok(cookie, "the sign-in cookie is set");
    assert.match(cookie, /; Max-Age=300/);
    assert.match(cookie, /; Path=\/oauth2\/authorize/);
    assert.match(cookie, /; HttpOnly/);
    assert.match(cookie, /; SameSite=Strict/);
    await res.body?.cancel();
  });

  await t.step("the next authorization request gets a code at once, for that account", async () => {
    const { res, verifier, state } = await authorize(browser);
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("cache-control"), "no-store");
    await res.body?.cancel();
    const location = new URL(res.headers.get("location")!);
    assert.equal(`${location.origin}${location.pathname}`, redirectUri);
    assert.equal(location.searchParams.get("state"), state);
    assert.equal(location.searchParams.get("iss"), server.config.auth.issuer);
    const tokens = await tokenRequest(base, {
      grant_type: "authorization_code",
      code: location.searchParams.get("code")!,
      redirect_uri: redirectUri,
      client_id: "dashboard",
      code_verifier: verifier,
    });
    assert.equal(tokens.status, 200);
    const { access_token } = await tokens.json();
    const me = await fetch(`${base}/me`, { headers: { authorization: `Bearer ${access_token}` } });
    assert.equal((await me.json()).user.email, PERSON.email);
  });

  await t.step("the cookie works once: the next request shows the sign-in form", async () => {
    const { res } = await authorize(browser);
    assert.equal(res.status, 200);
    assert.match(await res.text(), /<h1>Sign in to Trust Profile<\/h1>/);
  });

  await t.step("a stolen or replayed cookie value works no more than once", async () => {
    const { jar, res } = await signUp({ ...PERSON, email: "second@acme.test" });
    await res.body?.cancel();
    const copy = new CookieJar();
    copy.take(
      new Response(null, {
        headers: {
          "set-cookie": jar.header().split("; ").find((c) => c.startsWith("tp_sign_in="))!,
        },
      }),
    );
    const first = await authorize(jar);
    assert.equal(first.res.status, 303);
    await first.res.body?.cancel();
    const replay = await authorize(copy);
    assert.equal(replay.res.status, 200, "the same value in another browser");
    await replay.res.body?.cancel();
  });

  await t.step("after five minutes the cookie's ticket has expired", async () => {
    const { jar, res } = await signUp({ ...PERSON, email: "third@acme.test" });
    await res.body?.cancel();
    now += 5 * 60 * 1000 + 1;
    const late = await authorize(jar);
    assert.equal(late.res.status, 200);
    assert.match(await late.res.text(), /Sign in to Trust Profile/);
  });

  await t.step("without the cookie, an authorization request shows the form", async () => {
    const { res } = await authorize(new CookieJar());
    assert.equal(res.status, 200);
    await res.body?.cancel();
  });
});
