/**
 * The built-in identity provider end to end over HTTP, without a browser.
 */
import assert from "node:assert/strict";
import { decodeJwt, decodeProtectedHeader } from "jose";
import { prepareFirstRun } from "../../src/auth/builtin/setup.ts";
import { authorize, login, signUp, tokenRequest } from "../support/builtin_login.ts";
import { startTestServer } from "../support/server.ts";

const ADMIN = { email: "admin@acme.test", name: "Ada Admin", password: "correct horse battery" };

Deno.test("[e2e] built-in identity provider: setup link, sign-in with PKCE, refresh", async (t) => {
  await using server = await startTestServer();
  const base = server.baseUrl;
  const setupUrl = await prepareFirstRun(server.kv, server.config);
  assert.ok(setupUrl);
  const setup = new URL(setupUrl).search.slice(1);

  await t.step("sign-up is closed without the setup link", async () => {
    const res = await signUp(base, "", { ...ADMIN, email: "intruder@x.test" });
    assert.equal(res.status, 403);
    await res.body?.cancel();
  });

  await t.step("the setup link creates the first account, once", async () => {
    const res = await signUp(base, setup, ADMIN);
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/dashboard/?signed-up");
    await res.body?.cancel();
    const again = await signUp(base, setup, { ...ADMIN, email: "second@acme.test" });
    assert.equal(again.status, 403);
    await again.body?.cancel();
    assert.equal(await prepareFirstRun(server.kv, server.config), null);
  });

  let tokens = { access_token: "", refresh_token: "" };
  await t.step("authorization code with PKCE gives an RFC 9068 access token", async () => {
    tokens = await login(base, ADMIN);
    assert.equal(decodeProtectedHeader(tokens.access_token).typ, "at+jwt");
    const claims = decodeJwt(tokens.access_token);
    assert.equal(claims.iss, base);
    assert.equal(claims.aud, base);
    assert.equal(claims.client_id, "dashboard");
    assert.equal(claims.email, ADMIN.email);
    assert.ok(tokens.refresh_token.startsWith("tpr_"));
  });

  await t.step("the access token works on /me", async () => {
    const res = await fetch(`${base}/me`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    assert.equal(res.status, 200);
    const me = await res.json();
    assert.equal(me.user.email, ADMIN.email);
    assert.equal(me.user.name, ADMIN.name);
  });

  await t.step("the refresh token rotates; reusing the old one revokes the session", async () => {
    const res = await tokenRequest(base, {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: "dashboard",
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("cache-control"), "no-store");
    const next = await res.json();
    assert.notEqual(next.refresh_token, tokens.refresh_token);
    const me = await fetch(`${base}/me`, {
      headers: { authorization: `Bearer ${next.access_token}` },
    });
    assert.equal(me.status, 200);
    await me.body?.cancel();

    const reuse = await tokenRequest(base, {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
    });
    assert.equal(reuse.status, 400);
    assert.equal((await reuse.json()).error, "invalid_grant");
    const revoked = await tokenRequest(base, {
      grant_type: "refresh_token",
      refresh_token: next.refresh_token,
    });
    assert.equal(revoked.status, 400);
    assert.equal((await revoked.json()).error, "invalid_grant");
  });

  await t.step("a wrong password is refused with the form again", async () => {
    const { response, code } = await authorize(base, { ...ADMIN, password: "wrong password" });
    assert.equal(code, null);
    assert.equal(response.status, 401);
    assert.match(await response.text(), /Email or password is incorrect/);
  });

  await t.step("a reused authorization code is refused", async () => {
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
    const second = await tokenRequest(base, fields);
    assert.equal(second.status, 400);
    assert.equal((await second.json()).error, "invalid_grant");
    const family = await tokenRequest(base, { grant_type: "refresh_token", refresh_token });
    assert.equal(family.status, 400, "tokens issued from a replayed code are revoked");
    await family.body?.cancel();
  });

  await t.step("a wrong code_verifier is refused", async () => {
    const { code, redirectUri, response } = await authorize(base, ADMIN);
    await response.body?.cancel();
    const res = await tokenRequest(base, {
      grant_type: "authorization_code",
      code: code!,
      redirect_uri: redirectUri,
      client_id: "dashboard",
      code_verifier: "x".repeat(43),
    });
    assert.equal(res.status, 400);
    const body = await res.json();
    assert.equal(body.error, "invalid_grant");
    assert.match(body.error_description, /code_verifier/);
  });

  await t.step("plain PKCE and unregistered redirect URIs are refused", async () => {
    const plain = await fetch(
      `${base}/oauth2/authorize?${new URLSearchParams({
        response_type: "code",
        client_id: "dashboard",
        redirect_uri: "http://127.0.0.1:9/cb",
        code_challenge: "a".repeat(43),
        code_challenge_method: "plain",
      })}`,
      { redirect: "manual" },
    );
    assert.equal(plain.status, 302);
    assert.equal(
      new URL(plain.headers.get("location")!).searchParams.get("error"),
      "invalid_request",
    );
    const evil = await fetch(
      `${base}/oauth2/authorize?${new URLSearchParams({
        response_type: "code",
        client_id: "dashboard",
        redirect_uri: "https://evil.test/cb",
        code_challenge: "a".repeat(43),
        code_challenge_method: "S256",
      })}`,
      { redirect: "manual" },
    );
    assert.equal(evil.status, 400);
    assert.equal(evil.headers.get("location"), null);
    await evil.body?.cancel();
  });

  await t.step("repeated wrong passwords are throttled with Retry-After", async () => {
    let last: Response | undefined;
    for (let i = 0; i < 7; i++) {
      await last?.body?.cancel();
      last = (await authorize(base, { email: "victim@acme.test", password: `guess ${i}` }))
        .response;
    }
    assert.equal(last!.status, 429);
    assert.ok(Number(last!.headers.get("retry-after")) > 0);
    await last!.body?.cancel();
  });

  await t.step("revocation (RFC 7009) ends the whole session of a refresh token", async () => {
    const revoke = (fields: Record<string, string>) =>
      fetch(`${base}/oauth2/revoke`, { method: "POST", body: new URLSearchParams(fields) });
    const session = await login(base, ADMIN);
    // Rotate once: revoking the newest token must end tokens of the same sign-in.
    const rotated = await (await tokenRequest(base, {
      grant_type: "refresh_token",
      refresh_token: session.refresh_token,
      client_id: "dashboard",
    })).json();
    const other = await login(base, ADMIN);

    const refused: Array<[Record<string, string>, number, string]> = [
      [{ client_id: "dashboard" }, 400, "invalid_request"],
      [{ token: rotated.refresh_token }, 401, "invalid_client"],
      [{ token: rotated.refresh_token, client_id: "someone-else" }, 401, "invalid_client"],
      [{ token: rotated.access_token, client_id: "dashboard" }, 400, "unsupported_token_type"],
    ];
    for (const [fields, status, error] of refused) {
      const res = await revoke(fields);
      assert.equal(res.status, status, JSON.stringify(Object.keys(fields)));
      assert.equal(res.headers.get("cache-control"), "no-store");
      assert.equal((await res.json()).error, error);
    }
    const stillLive = await tokenRequest(base, {
      grant_type: "refresh_token",
      refresh_token: rotated.refresh_token,
      client_id: "dashboard",
    });
    assert.equal(stillLive.status, 200, "a refused revocation revokes nothing");
    const live = await stillLive.json();

    const done = await revoke({
      token: live.refresh_token,
      token_type_hint: "refresh_token",
      client_id: "dashboard",
    });
    assert.equal(done.status, 200);
    assert.equal(await done.text(), "");
    const dead = await tokenRequest(base, {
      grant_type: "refresh_token",
      refresh_token: live.refresh_token,
      client_id: "dashboard",
    });
    assert.equal(dead.status, 400);
    assert.equal((await dead.json()).error_description, "The session was revoked");
    const again = await revoke({ token: live.refresh_token, client_id: "dashboard" });
    assert.equal(again.status, 200, "revoking twice is fine");
    await again.body?.cancel();
    const unknown = await revoke({ token: "tpr_never-issued", client_id: "dashboard" });
    assert.equal(unknown.status, 200, "an unknown token is answered 200");
    await unknown.body?.cancel();

    const otherSession = await tokenRequest(base, {
      grant_type: "refresh_token",
      refresh_token: other.refresh_token,
      client_id: "dashboard",
    });
    assert.equal(otherSession.status, 200, "another sign-in is untouched");
    await otherSession.body?.cancel();
  });

  await t.step("the metadata announces the endpoints and S256 only", async () => {
    const meta = await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json();
    assert.equal(meta.issuer, base);
    assert.equal(meta.authorization_endpoint, `${base}/oauth2/authorize`);
    assert.equal(meta.token_endpoint, `${base}/oauth2/token`);
    assert.equal(meta.revocation_endpoint, `${base}/oauth2/revoke`);
    assert.deepEqual(meta.code_challenge_methods_supported, ["S256"]);
    const jwks = await (await fetch(meta.jwks_uri)).json();
    assert.ok(jwks.keys.length >= 2);
    assert.ok(jwks.keys.every((k: Record<string, unknown>) => !("d" in k)), "no private parts");
  });

  await t.step("passwords and tokens never reach the logs", () => {
    const logs = server.log.lines.join("\n");
    assert.ok(!logs.includes(ADMIN.password));
    assert.ok(!logs.includes(tokens.refresh_token));
  });
});

Deno.test("[e2e] built-in identity provider: invite-only sign-up", async (t) => {
  await using server = await startTestServer({ env: { SIGNUP: "invite" }, worker: false });
  const base = server.baseUrl;
  const owner = await server.tokenFor("owner");
  const auth = { authorization: `Bearer ${owner}`, "content-type": "application/json" };
  const { organization } = await (await fetch(`${base}/onboarding/bootstrap`, {
    method: "POST",
    headers: auth,
    body: JSON.stringify({ workspaceName: "Acme", projectName: "API" }),
  })).json();
  const invite = await (await fetch(`${base}/organizations/${organization.id}/invitations`, {
    method: "POST",
    headers: auth,
    body: JSON.stringify({ email: "New.Hire@acme.test", role: "member" }),
  })).json();
  const token = invite.acceptUrl.split("#invitation=")[1];
  const hire = { email: "someone.else@acme.test", name: "New Hire", password: "a fine passphrase" };

  await t.step("without an invitation sign-up is closed", async () => {
    const res = await signUp(base, "", hire);
    assert.equal(res.status, 403);
    await res.body?.cancel();
  });

  await t.step("the invitation fixes the email; the account can sign in and accept", async () => {
    const res = await signUp(base, `invitation=${token}`, hire);
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), `/dashboard/?signed-up#invitation=${token}`);
    await res.body?.cancel();
    const tokens = await login(base, { email: "new.hire@acme.test", password: hire.password });
    const accepted = await fetch(`${base}/invitations/${token}/accept`, {
      method: "POST",
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    assert.equal(accepted.status, 200);
    assert.equal((await accepted.json()).membership.role, "member");
  });

  await t.step("a used invitation cannot create another account", async () => {
    const res = await signUp(base, `invitation=${token}`, { ...hire, email: "third@acme.test" });
    assert.equal(res.status, 403);
    await res.body?.cancel();
  });
});
