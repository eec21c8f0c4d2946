import assert from "node:assert/strict";
import type { Account } from "../../src/domain/account.ts";
import {
  createAccount,
  getAccount,
  getAccountByEmail,
  getSetupTokenHash,
  hasAnyAccount,
  setSetupToken,
} from "../../src/store/accounts.ts";

function account(email: string): Account {
  return {
    id: crypto.randomUUID(),
    email,
    name: "Ada",
    passwordHash: "hash",
    createdAt: "2026-01-01T00:00:00.000Z",
  };
}

Deno.test("[store] createAccount() rejects a taken email", async (t) => {
  await using kv = await Deno.openKv(":memory:");

  await t.step("the first account is created and found by id and email", async () => {
    assert.equal(await hasAnyAccount(kv), false);
    const first = account("ada@example.com");
    assert.deepEqual(await createAccount(kv, first), first);
    assert.deepEqual(await getAccount(kv, first.id), first);
    assert.deepEqual(await getAccountByEmail(kv, "Ada@Example.com"), first);
    assert.equal(await hasAnyAccount(kv), true);
  });

  await t.step("a second account with the same email is refused", async () => {
    const second = account("ada@example.com");
    assert.equal(await createAccount(kv, second), null);
    assert.equal(await getAccount(kv, second.id), null);
  });

  await t.step("an unknown email or id is null", async () => {
    assert.equal(await getAccountByEmail(kv, "bob@example.com"), null);
    assert.equal(await getAccount(kv, crypto.randomUUID()), null);
  });
});

Deno.test("[store] createAccount() uses up the first-run setup token", async (t) => {
  await using kv = await Deno.openKv(":memory:");

  await t.step("setSetupToken() replaces the stored hash", async () => {
    assert.equal(await getSetupTokenHash(kv), null);
    await setSetupToken(kv, "first");
    await setSetupToken(kv, "second");
    assert.equal(await getSetupTokenHash(kv), "second");
  });

  await t.step("an account created with it deletes it", async () => {
    const created = await createAccount(kv, account("ada@example.com"), {
      consumeSetupToken: true,
    });
    assert.ok(created);
    assert.equal(await getSetupTokenHash(kv), null);
  });

  await t.step("an account created without it leaves it", async () => {
    await setSetupToken(kv, "third");
    assert.ok(await createAccount(kv, account("bob@example.com")));
    assert.equal(await getSetupTokenHash(kv), "third");
  });
});
