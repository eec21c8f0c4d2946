/**
 * No silent loss, for an OpenID provider's users (docs/deploy.md): while the KV is not proven
 * to outlive the isolate, a subject's first sign-in, which creates its user, is refused as
 * sign-up is (503 `unavailable`, Retry-After, the same words of what to do) and writes nothing;
 * users that exist go on signing in. Once a second isolate has proven the database, the same
 * token creates the user. The real server and a real OpenID provider on 127.0.0.1.
 */
import assert from "node:assert/strict";
import { createKvPersistence, UNPROVEN_ACTION } from "../../src/store/kv_persistence.ts";
import { getUserByIdpSub, upsertUser } from "../../src/store/users.ts";
import { startTestIdp } from "../support/oidc_provider.ts";
import { startTestServer } from "../support/server.ts";

const RESOURCE = "https://api.trust.test";

Deno.test("[e2e] OIDC first sign-in on an unproven Deploy KV is refused as sign-up is, until proven", async (t) => {
  await using idp = await startTestIdp({ resource: RESOURCE });
  const kv = await Deno.openKv(":memory:");
  // As on Deno Deploy's default database: proven only by another isolate's marker.
  const storage = createKvPersistence(kv, { probe: true, acknowledged: false, recheckMs: 0 });
  await using server = await startTestServer({
    kv,
    storage,
    env: { AUTH_MODE: "oidc", AUTH_ISSUER: idp.issuer, AUTH_AUDIENCE: RESOURCE },
  });
  const me = (token: string) =>
    fetch(`${server.baseUrl}/me`, { headers: { authorization: `Bearer ${token}` } });
  const alice = await idp.tokenFor({ sub: "alice", email: "alice@acme.test", name: "Alice" });

  await t.step("a first sign-in: 503 with what to do, and no user", async () => {
    const res = await me(alice);
    assert.equal(res.status, 503);
    assert.equal(res.headers.get("retry-after"), "60");
    const body = await res.json();
    assert.equal(body.error.code, "unavailable");
    assert.equal(body.error.message, UNPROVEN_ACTION, "the words sign-up and ingest answer");
    assert.equal(await getUserByIdpSub(kv, "alice"), null);
    assert.equal((await storage.check()).writable, false);
  });

  await t.step("a user that exists signs in as before (nothing is created)", async () => {
    await upsertUser(kv, { idpSub: "bob", email: "bob@acme.test", name: "Bob" }, new Date());
    const bob = await idp.tokenFor({ sub: "bob", email: "bob@acme.test", name: "Bob" });
    const res = await me(bob);
    assert.equal(res.status, 200);
    assert.equal((await res.json()).user.idpSub, "bob");
  });

  await t.step(
    "once a second isolate has read this one's marker, the first sign-in works",
    async () => {
      const next = createKvPersistence(kv, { probe: true, acknowledged: false });
      assert.equal((await next.check()).state, "proven");
      const res = await me(alice);
      assert.equal(res.status, 200);
      assert.equal((await res.json()).user.email, "alice@acme.test");
      assert.ok(await getUserByIdpSub(kv, "alice"));
    },
  );
});
