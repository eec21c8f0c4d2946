import assert from "node:assert/strict";
import type { AuthorizationCode, RefreshToken } from "../../src/domain/account.ts";
import {
  getAuthorizationCode,
  getRefreshToken,
  isRefreshFamilyLive,
  redeemAuthorizationCode,
  revokeRefreshFamily,
  rotateRefreshToken,
  saveAuthorizationCode,
} from "../../src/store/oauth_grants.ts";

const ACCOUNT = "00000000-0000-4000-8000-000000000001";
/** The store sets KV expiry from the real clock, so expiry times are in the real future. */
const NOW = new Date("2026-11-01T12:00:00Z");
const inAnHour = () => NOW.getTime() + 3600 * 1000;

function code(): AuthorizationCode {
  return {
    accountId: ACCOUNT,
    clientId: "dashboard",
    redirectUri: "http://127.0.0.1/callback",
    codeChallenge: "challenge",
    scope: "api",
    expiresAt: inAnHour(),
    familyId: null,
  };
}

function refreshToken(familyId: string): RefreshToken {
  return {
    accountId: ACCOUNT,
    clientId: "dashboard",
    scope: "api",
    familyId,
    expiresAt: inAnHour(),
    used: false,
  };
}

Deno.test("[store] redeemAuthorizationCode() redeems a code once", async (t) => {
  await using kv = await Deno.openKv(":memory:");
  const saved = code();
  await saveAuthorizationCode(kv, saved, { hash: "code-hash", ttlMs: 60_000 });
  const entry = await getAuthorizationCode(kv, "code-hash");

  await t.step("the saved code is read back by its hash; an unknown hash is null", async () => {
    assert.deepEqual(entry?.value, saved);
    assert.equal(await getAuthorizationCode(kv, "other-hash"), null);
  });

  await t.step("redemption marks the code and starts a live family", async () => {
    const refresh = { hash: "refresh-hash", token: refreshToken("family-1") };
    assert.equal(
      await redeemAuthorizationCode(kv, entry!, { familyId: "family-1", refresh, now: NOW }),
      true,
    );
    assert.equal((await getAuthorizationCode(kv, "code-hash"))?.value.familyId, "family-1");
    assert.deepEqual((await getRefreshToken(kv, "refresh-hash"))?.value, refresh.token);
    assert.equal(await isRefreshFamilyLive(kv, "family-1"), true);
  });

  await t.step("a second redemption of the same read fails and starts nothing", async () => {
    const refresh = { hash: "refresh-hash-2", token: refreshToken("family-2") };
    assert.equal(
      await redeemAuthorizationCode(kv, entry!, { familyId: "family-2", refresh, now: NOW }),
      false,
    );
    assert.equal(await getRefreshToken(kv, "refresh-hash-2"), null);
    assert.equal(await isRefreshFamilyLive(kv, "family-2"), false);
  });
});

Deno.test("[store] rotateRefreshToken() rotates a token once", async (t) => {
  await using kv = await Deno.openKv(":memory:");
  const refresh = { hash: "first", token: refreshToken("family") };
  await saveAuthorizationCode(kv, code(), { hash: "code", ttlMs: 60_000 });
  const codeEntry = await getAuthorizationCode(kv, "code");
  await redeemAuthorizationCode(kv, codeEntry!, { familyId: "family", refresh, now: NOW });
  const entry = await getRefreshToken(kv, "first");

  await t.step("the old token is marked used and the next one stored", async () => {
    const next = { hash: "second", token: refreshToken("family") };
    assert.equal(await rotateRefreshToken(kv, entry!, { next, now: NOW }), true);
    assert.equal((await getRefreshToken(kv, "first"))?.value.used, true);
    assert.deepEqual((await getRefreshToken(kv, "second"))?.value, next.token);
  });

  await t.step("rotating the same read again fails", async () => {
    const next = { hash: "third", token: refreshToken("family") };
    assert.equal(await rotateRefreshToken(kv, entry!, { next, now: NOW }), false);
    assert.equal(await getRefreshToken(kv, "third"), null);
  });
});

Deno.test("[store] revokeRefreshFamily() ends the session", async () => {
  await using kv = await Deno.openKv(":memory:");
  await saveAuthorizationCode(kv, code(), { hash: "code", ttlMs: 60_000 });
  const entry = await getAuthorizationCode(kv, "code");
  const refresh = { hash: "token", token: refreshToken("family") };
  await redeemAuthorizationCode(kv, entry!, { familyId: "family", refresh, now: NOW });
  assert.equal(await isRefreshFamilyLive(kv, "family"), true);
  await revokeRefreshFamily(kv, "family");
  assert.equal(await isRefreshFamilyLive(kv, "family"), false);
  await revokeRefreshFamily(kv, "family");
  assert.equal(await isRefreshFamilyLive(kv, "family"), false);
});

Deno.test("[store] a redeemed code is kept as long as the session it started", async () => {
  await using kv = await Deno.openKv(":memory:");
  const expiries = new Map<string, number | undefined>();
  // Records the expiry each atomic write asks for, by the key's first part.
  const spy = new Proxy(kv, {
    get(target, property) {
      if (property !== "atomic") {
        const value = Reflect.get(target, property);
        return typeof value === "function" ? value.bind(target) : value;
      }
      return () => {
        const op = target.atomic();
        const set = op.set.bind(op);
        op.set = (key, value, options) => {
          expiries.set(String(key[0]), options?.expireIn);
          set(key, value, options);
          return op;
        };
        return op;
      };
    },
  });
  await saveAuthorizationCode(kv, code(), { hash: "code", ttlMs: 60_000 });
  const entry = await getAuthorizationCode(kv, "code");
  const token = { ...refreshToken("family"), expiresAt: NOW.getTime() + 30 * 86_400_000 };
  await redeemAuthorizationCode(spy, entry!, {
    familyId: "family",
    refresh: { hash: "token", token },
    now: NOW,
  });
  assert.equal(expiries.get("refresh_families"), 30 * 86_400_000);
  const kept = [...expiries].find(([name]) => name.includes("code"));
  assert.ok(kept, `the code is rewritten on redemption: ${[...expiries.keys()]}`);
  assert.equal(kept[1], 30 * 86_400_000);
});
