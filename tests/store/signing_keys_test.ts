import assert from "node:assert/strict";
import { createSigningKeyOnce, getSigningKey } from "../../src/store/signing_keys.ts";

const jwk = (x: string) => ({ kty: "OKP", crv: "Ed25519", x, d: `${x}-private` });

Deno.test("[store] createSigningKeyOnce() keeps the first key of a purpose", async (t) => {
  await using kv = await Deno.openKv(":memory:");

  await t.step("there is no key before one is created", async () => {
    assert.equal(await getSigningKey(kv, "tokens"), null);
  });

  await t.step("the first writer's key is stored and returned", async () => {
    assert.deepEqual(
      await createSigningKeyOnce(kv, { purpose: "tokens", jwk: jwk("a") }),
      jwk("a"),
    );
    assert.deepEqual(await getSigningKey(kv, "tokens"), jwk("a"));
  });

  await t.step("a later writer gets the stored key, not its own", async () => {
    assert.deepEqual(
      await createSigningKeyOnce(kv, { purpose: "tokens", jwk: jwk("b") }),
      jwk("a"),
    );
    assert.deepEqual(await getSigningKey(kv, "tokens"), jwk("a"));
  });

  await t.step("each purpose has its own key", async () => {
    const publications = { purpose: "publications", jwk: jwk("c") };
    assert.deepEqual(await createSigningKeyOnce(kv, publications), jwk("c"));
    assert.deepEqual(await getSigningKey(kv, "tokens"), jwk("a"));
  });
});
