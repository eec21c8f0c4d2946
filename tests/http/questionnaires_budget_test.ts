/**
 * An organization's questionnaires share a storage budget (QUESTIONNAIRE_STORAGE_BYTES,
 * docs/questionnaires.md): uploads are taken until the next would pass it, which is refused
 * with a 409 naming the budget and what is used, leaving the KV and the blob store as they
 * were; deleting a questionnaire frees its share. What a questionnaire counts is what the KV
 * holds for it, measured here the way the usage report measures: serialized keys and values of
 * its record and rows, plus its file.
 */
import assert from "node:assert/strict";
import { sha256Hex } from "../../src/lib/hash.ts";
import { serializedSize } from "../../src/store/_chunks.ts";
import { createTestApp, snapshotKv } from "../support/app.ts";
import { team } from "../support/fixtures.ts";
import { ok } from "../support/questionnaires.ts";

const BUDGET = 600 * 1024;

/** A CSV of 300 questions of its own (`seed` makes its bytes and blob unique), ~60 KB. */
function csv(seed: number): Uint8Array {
  const lines = ["ID,Question,Answer"];
  for (let i = 1; i <= 300; i++) {
    lines.push(
      `Q${seed}-${i},"Does control ${i} of set ${seed} cover the data centre’s ${
        "physical and logical access reviews ".repeat(4)
      }?",`,
    );
  }
  return new TextEncoder().encode(`${lines.join("\r\n")}\r\n`);
}

/** What the KV holds for the organization's questionnaires: serialized key and value. */
async function kvBytes(kv: Deno.Kv, orgId: string): Promise<number> {
  let bytes = 0;
  for (const prefix of ["questionnaires", "questionnaire_rows"]) {
    for await (const entry of kv.list({ prefix: [prefix, orgId] })) {
      bytes += serializedSize(entry.key) + serializedSize(entry.value);
    }
  }
  return bytes;
}

Deno.test("[questionnaires] uploads stop at the organization's storage budget; a deletion frees it", async () => {
  await using ctx = await createTestApp({ env: { QUESTIONNAIRE_STORAGE_BYTES: String(BUDGET) } });
  const acme = await team(ctx);
  const upload = (bytes: Uint8Array) =>
    ctx.call("POST", `/organizations/${acme.orgId}/questionnaires`, {
      token: acme.member,
      body: bytes as Uint8Array<ArrayBuffer>,
      headers: { "content-type": "application/octet-stream" },
    });
  const ids: string[] = [];
  let fileBytes = 0;
  let refused: { status: number; message: string; bytes: Uint8Array } | null = null;
  for (let seed = 1; seed <= 20 && !refused; seed++) {
    const bytes = csv(seed);
    const before = await snapshotKv(ctx.kv);
    const res = await upload(bytes);
    const body = await res.json();
    if (res.status === 201) {
      ids.push(body.questionnaire.id);
      fileBytes += bytes.length;
      continue;
    }
    refused = { status: res.status, message: body.error?.message, bytes };
    assert.equal(body.error.code, "conflict");
    assert.equal(await snapshotKv(ctx.kv), before, "no KV entry changed");
    assert.equal(await ctx.services.blobs.has(`document/${await sha256Hex(bytes)}`), false);
  }
  assert.ok(refused, "an upload was refused within 20");
  assert.ok(ids.length >= 2, `${ids.length} uploads were taken first`);
  assert.equal(refused.status, 409);
  assert.match(refused.message, new RegExp(`at most ${BUDGET} bytes`));
  const used = Number(/they store (\d+) bytes/.exec(refused.message)?.[1]);
  const needed = Number(/this one needs (\d+)/.exec(refused.message)?.[1]);
  assert.ok(used + needed > BUDGET && used <= BUDGET, refused.message);
  // The count is what the KV holds for them (the usage report's measure) and their files.
  const measured = fileBytes + await kvBytes(ctx.kv, acme.orgId);
  assert.ok(Math.abs(used - measured) <= 64 * ids.length, `${used} counted, ${measured} held`);

  const again = await upload(refused.bytes);
  assert.equal(again.status, 409, "still full");
  await again.body?.cancel();
  const removed = await ctx.call(
    "DELETE",
    `/organizations/${acme.orgId}/questionnaires/${ids[0]}`,
    { token: acme.member },
  );
  assert.equal(removed.status, 204);
  await ok(await upload(refused.bytes), 201);
});
