import assert from "node:assert/strict";
import * as jose from "jose";
import { startTestIdp } from "./oidc_provider.ts";

const API = "http://127.0.0.1:8000";
const OTHER_API = "https://other-api.example.test";

Deno.test("[support] test IdP issues a JWT access token for the resource", async (t) => {
  await using idp = await startTestIdp({ resource: API, extraResources: [OTHER_API] });
  assert.match(idp.issuer, /^http:\/\/127\.0\.0\.1:\d+$/);

  const discovery = await (await fetch(idp.discoveryUrl)).json();
  assert.equal(discovery.issuer, idp.issuer);
  assert.equal(discovery.jwks_uri, idp.jwksUri);
  assert.ok(discovery.code_challenge_methods_supported.includes("S256"));

  const jwks = await (await fetch(idp.jwksUri)).json() as jose.JSONWebKeySet;
  assert.equal(jwks.keys.length, 1);
  assert.equal(jwks.keys[0].d, undefined, "JWKS must only expose public keys");

  const keySet = jose.createRemoteJWKSet(new URL(idp.jwksUri));
  const verify = (token: string, audience: string) =>
    jose.jwtVerify(token, keySet, { issuer: idp.issuer, audience, typ: "at+jwt" });

  await t.step("token for the default resource carries sub, email, name", async () => {
    const token = await idp.tokenFor({ sub: "user-1", email: "ada@example.com", name: "Ada" });
    const { payload, protectedHeader } = await verify(token, API);
    assert.equal(protectedHeader.typ, "at+jwt");
    assert.equal(protectedHeader.alg, "RS256");
    assert.equal(protectedHeader.kid, jwks.keys[0].kid);
    assert.equal(payload.iss, idp.issuer);
    assert.equal(payload.aud, API);
    assert.equal(payload.sub, "user-1");
    assert.equal(payload.email, "ada@example.com");
    assert.equal(payload.name, "Ada");
    assert.equal(payload.client_id, idp.clientId);
    assert.equal(payload.scope, "api");
    assert.equal(typeof payload.jti, "string");
    assert.ok(typeof payload.exp === "number" && payload.exp > Date.now() / 1000);
    await assert.rejects(verify(token, OTHER_API), jose.errors.JWTClaimValidationFailed);
  });

  await t.step("token for an extra resource has that audience", async () => {
    const token = await idp.tokenFor({ sub: "user-1", email: "ada@example.com", name: "Ada" }, {
      resource: OTHER_API,
    });
    const { payload } = await verify(token, OTHER_API);
    assert.equal(payload.aud, OTHER_API);
    assert.equal(payload.sub, "user-1");
    await assert.rejects(verify(token, API), jose.errors.JWTClaimValidationFailed);
  });

  await t.step("a user without email has no email claim", async () => {
    const token = await idp.tokenFor({ sub: "user-2", name: "No Mail" });
    const { payload } = await verify(token, API);
    assert.equal(payload.sub, "user-2");
    assert.equal(payload.name, "No Mail");
    assert.equal("email" in payload, false);
  });

  await t.step("an unknown resource is refused by the provider", async () => {
    await assert.rejects(
      idp.tokenFor({ sub: "user-1" }, { resource: "https://unknown.example.test" }),
      /invalid_target/,
    );
  });

  await t.step("a second instance is a different issuer with different keys", async () => {
    await using other = await startTestIdp({ resource: API, alg: "ES256" });
    assert.notEqual(other.issuer, idp.issuer);
    const token = await other.tokenFor({ sub: "user-1", email: "ada@example.com" });
    // Same audience, but neither the issuer nor the signing key of the first provider.
    await assert.rejects(verify(token, API), jose.errors.JWKSNoMatchingKey);
    const { payload, protectedHeader } = await jose.jwtVerify(
      token,
      jose.createRemoteJWKSet(new URL(other.jwksUri)),
      { issuer: other.issuer, audience: API },
    );
    assert.equal(protectedHeader.alg, "ES256");
    assert.equal(payload.iss, other.issuer);
    assert.equal(payload.email, "ada@example.com");
    assert.equal("name" in payload, false);
  });
});

Deno.test("[support] test IdP close() frees the port", async () => {
  const idp = await startTestIdp({ resource: API });
  const { port } = new URL(idp.issuer);
  await idp.close();
  await idp.close(); // idempotent
  await assert.rejects(fetch(`${idp.issuer}/.well-known/openid-configuration`));
  const listener = Deno.listen({ hostname: "127.0.0.1", port: Number(port) });
  listener.close();
});
