/**
 * The index from a buyer token's hash to its vendor organization (what MCP reads, not naming a
 * trust center) is backfilled for tokens made before it existed: once per database, only for
 * unexpired tokens, never over an entry a newer write made, and compared with the index a
 * fresh save of the same tokens gives.
 */
import assert from "node:assert/strict";
import type { BuyerToken } from "../../src/domain/buyers.ts";
import {
  backfillBuyerTokenIndex,
  ensureBuyerTokenIndex,
  getBuyerTokenOrganization,
  saveBuyerToken,
} from "../../src/store/buyer_tokens.ts";

const NOW = new Date();
const DAY = 24 * 60 * 60 * 1000;

function token(id: string, expiresInDays: number): BuyerToken {
  return {
    id,
    kind: "service",
    name: id,
    domain: "customer.test",
    email: "ada@customer.test",
    documentIds: null,
    createdAt: new Date(NOW.getTime() - DAY).toISOString(),
    expiresAt: new Date(NOW.getTime() + expiresInDays * DAY).toISOString(),
    revokedAt: null,
  };
}

/** Every index entry, as [hash, orgId] pairs, sorted. */
async function indexOf(kv: Deno.Kv): Promise<[string, string][]> {
  const out: [string, string][] = [];
  for await (const e of kv.list<string>({ prefix: ["buyer_tokens_by_hash"] })) {
    out.push([e.key[1] as string, e.value]);
  }
  return out.sort((a, b) => a[0].localeCompare(b[0]));
}

Deno.test("[store] buyer tokens made before the hash index are indexed once, as a save would", async () => {
  const tokens: [string, string, BuyerToken][] = [
    ["org-a", "hash-1", token("t1", 30)],
    ["org-a", "hash-2", token("t2", 5)],
    ["org-b", "hash-3", token("t3", 90)],
  ];
  // What a fresh save of the same tokens gives: the index to reach.
  const fresh = await Deno.openKv(":memory:");
  for (const [org, hash, t] of tokens) await saveBuyerToken(fresh, org, hash, t, NOW);
  const expected = await indexOf(fresh);
  fresh.close();
  assert.equal(expected.length, 3);

  // Tokens as stored before the index: the records alone, one of them past its expiry.
  await using kv = await Deno.openKv(":memory:");
  for (const [org, hash, t] of tokens) await kv.set(["buyer_tokens", org, hash], t);
  await kv.set(["buyer_tokens", "org-b", "hash-old"], token("old", -1));
  assert.equal(await getBuyerTokenOrganization(kv, "hash-1"), null, "MCP could not find it");

  await ensureBuyerTokenIndex(kv, NOW);
  assert.deepEqual(await indexOf(kv), expected);
  assert.equal(await getBuyerTokenOrganization(kv, "hash-3"), "org-b");
  assert.equal(await getBuyerTokenOrganization(kv, "hash-old"), null, "an expired token stays out");
  const marker = (await kv.get<{ added: number; scanned: number }>(["buyer_tokens_meta", "index"]))
    .value;
  assert.deepEqual(marker && { added: marker.added, scanned: marker.scanned }, {
    added: 3,
    scanned: 4,
  });

  // Once per database: a token written later without an entry is not looked for again.
  await kv.set(["buyer_tokens", "org-a", "hash-4"], token("t4", 30));
  await ensureBuyerTokenIndex(kv, NOW);
  assert.equal(await getBuyerTokenOrganization(kv, "hash-4"), null);

  // An entry already there (a newer write) is kept, not overwritten.
  await kv.set(["buyer_tokens_by_hash", "hash-1"], "org-newer");
  assert.equal(await backfillBuyerTokenIndex(kv, NOW), 1, "only hash-4 was missing");
  assert.equal(await getBuyerTokenOrganization(kv, "hash-1"), "org-newer");
  assert.equal(await getBuyerTokenOrganization(kv, "hash-4"), "org-a");
});
