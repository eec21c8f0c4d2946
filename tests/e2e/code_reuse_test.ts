/**
 * A reused authorization code ends its session whenever it comes back: within its 60 s
 * lifetime, and long after it (the redeemed code is kept as long as the session can live).
 * Every token issued from it stops at once: the refresh tokens and the access tokens, which
 * name their session and are checked against it on every use.
 */
import assert from "node:assert/strict";
import { prepareFirstRun } from "../../src/auth/builtin/setup.ts";
import { signAccessToken } from "../../src/auth/builtin/tokens.ts";
import { fakeClock } from "../../src/lib/clock.ts";
import { authorize, signUp, tokenRequest } from "../support/builtin_login.ts";
import { startTestServer } from "../support/server.ts";

const ADMIN = { email: "admin@acme.test", name: "Ada Admin", password: "correct horse battery" };

Deno.test("[e2e] built-in identity provider: a code reused after it expired still revokes the session", async (t) => {
  const clock = fakeClock(new Date("2026-11-01T12:00:00Z"));
  await using server = await startTestServer({ clock, worker: false });
  const base = server.baseUrl;
  const setup = new URL((await prepareFirstRun(server.kv, server.config))!).search.slice(1);
  const created = await signUp(base, setup, ADMIN);
  assert.equal(created.status, 303, "signing up signs in (a redirect to the dashboard)");
  await created.body?.cancel();

  await t.step("reuse stops the first access token at once, and every refresh", async () => {
    const { code, verifier, redirectUri, response } = await authorize(base, ADMIN);
    await response.body?.cancel();
    const fields = {
      grant_type: "authorization_code",
      code: code!,
      redirect_uri: redirectUri,
      client_id: "dashboard",
      code_verifier: verifier,
    };
    const first = await tokenRequest(base, fields);
    assert.equal(first.status, 200);
    const { access_token, refresh_token } = await first.json();
    const me = (token: string) =>
      fetch(`${base}/me`, { headers: { authorization: `Bearer ${token}` } });
    const before = await me(access_token);
    assert.equal(before.status, 200, "the access token works until the code comes back");
    await before.body?.cancel();
    // A rotation in between: its access token belongs to the same session.
    const rotated = await tokenRequest(base, { grant_type: "refresh_token", refresh_token });
    assert.equal(rotated.status, 200);
    const second = await rotated.json();

    const reuse = await tokenRequest(base, fields);
    assert.equal(reuse.status, 400);
    assert.equal((await reuse.json()).error, "invalid_grant");

    for (const token of [access_token, second.access_token]) {
      const after = await me(token);
      assert.equal(after.status, 401, "the access token stops within the same second");
      assert.match(after.headers.get("content-type") ?? "", /^application\/json/);
      const body = await after.json();
      assert.equal(body.error.code, "unauthorized");
      assert.equal(body.error.message, "The access token's sign-in session has ended");
    }
    for (const token of [refresh_token, second.refresh_token]) {
      const refresh = await tokenRequest(base, {
        grant_type: "refresh_token",
        refresh_token: token,
      });
      assert.equal(refresh.status, 400, "the refresh tokens are refused");
      assert.equal((await refresh.json()).error, "invalid_grant");
    }
  });

  await t.step(
    "an access token signed by the service that names no session is refused",
    async () => {
      const token = await signAccessToken(server.services.keys.tokens, {
        issuer: server.config.auth.issuer,
        audience: server.config.auth.audience,
        now: clock.now(),
        ttlSeconds: 900,
      }, {
        sub: "someone",
        clientId: "dashboard",
        scope: "api",
        extra: { email: "someone@acme.test", name: "Someone" },
      });
      const res = await fetch(`${base}/me`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(res.status, 401);
      assert.equal((await res.json()).error.message, "The access token names no sign-in session");
    },
  );

  for (const [label, later] of [["61 s", 61_000], ["one day", 86_400_000]] as const) {
    await t.step(`presented again ${label} after redemption`, async () => {
      const { code, verifier, redirectUri, response } = await authorize(base, ADMIN);
      await response.body?.cancel();
      const fields = {
        grant_type: "authorization_code",
        code: code!,
        redirect_uri: redirectUri,
        client_id: "dashboard",
        code_verifier: verifier,
      };
      const first = await tokenRequest(base, fields);
      assert.equal(first.status, 200);
      const { refresh_token } = await first.json();
      clock.advance(later);
      const reuse = await tokenRequest(base, fields);
      assert.equal(reuse.status, 400);
      const body = await reuse.json();
      assert.equal(body.error, "invalid_grant");
      assert.equal(body.error_description, "The authorization code was already used");
      const family = await tokenRequest(base, { grant_type: "refresh_token", refresh_token });
      assert.equal(family.status, 400, "the session started by the code is revoked");
      assert.equal((await family.json()).error_description, "The session was revoked");
    });
  }

  await t.step("an unredeemed code past its lifetime is only expired", async () => {
    const { code, verifier, redirectUri, response } = await authorize(base, ADMIN);
    await response.body?.cancel();
    clock.advance(61_000);
    const late = await tokenRequest(base, {
      grant_type: "authorization_code",
      code: code!,
      redirect_uri: redirectUri,
      client_id: "dashboard",
      code_verifier: verifier,
    });
    assert.equal(late.status, 400);
    assert.equal(
      (await late.json()).error_description,
      "The authorization code is invalid or expired",
    );
  });
});
