/**
 * The answers list reads a page, not every answer: the order index (src/store/answers.ts)
 * gives the same pages and cursors as ordering every answer, follows additions, edits and
 * deletions, and answers written before it existed are listed all the same (read whole once,
 * the index mended, then read from it).
 */
import assert from "node:assert/strict";
import { createTestApp, type TestApp } from "../support/app.ts";
import { addAnswer, deleteAnswer, editAnswer, listAnswers } from "../../src/store/answers.ts";
import { inAnswerOrder } from "../../src/serve/answers.ts";

const actor = { userId: "test", email: null };

async function pages(t: TestApp, slug: string, limit: number) {
  const ids: string[] = [];
  const totals: number[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 50; i++) {
    const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
    const res = await t.call("GET", `/public/trust/${slug}/answers?limit=${limit}${query}`);
    assert.equal(res.status, 200);
    const body = await res.json();
    ids.push(...body.answers.map((a: { id: string }) => a.id));
    totals.push(body.total, body.matched);
    cursor = body.nextCursor;
    if (!cursor) break;
  }
  return { ids, totals: [...new Set(totals)] };
}

async function org(t: TestApp) {
  const token = await t.tokenFor("ola");
  const boot = await (await t.call("POST", "/onboarding/bootstrap", {
    token,
    json: { workspaceName: "Ordered", projectName: "Ordered" },
  })).json();
  return boot.organization as { id: string; slug: string };
}

function request(i: number, category: string) {
  return {
    question: `Question ${String((i * 7) % 23).padStart(2, "0")} about ${category}?`,
    answer: `Answer ${i}.`,
    category,
    visibility: (i % 3 === 0 ? "restricted" : "public") as "public" | "restricted",
  };
}

Deno.test("answer pages come from the order index, in reading order", async () => {
  await using t = await createTestApp();
  const o = await org(t);
  const categories = ["Encryption", "access control", "Backups"];
  for (let i = 0; i < 23; i++) {
    await addAnswer(t.kv, o.id, {
      request: request(i, categories[i % 3]),
      actor,
      now: t.clock.now(),
    });
  }
  const expected = () => listAnswers(t.kv, o.id).then((all) => inAnswerOrder(all).map((a) => a.id));
  let listed = await pages(t, o.slug, 5);
  assert.deepEqual(listed.ids, await expected());
  assert.deepEqual(listed.totals, [23]);

  const all = inAnswerOrder(await listAnswers(t.kv, o.id));
  await editAnswer(t.kv, o.id, {
    id: all[0].id,
    change: { category: "zzz last" },
    actor,
    now: t.clock.now(),
  });
  await deleteAnswer(t.kv, o.id, all[10].id);
  listed = await pages(t, o.slug, 4);
  assert.deepEqual(listed.ids, await expected());
  assert.equal(listed.ids.at(-1), all[0].id);
  assert.deepEqual(listed.totals, [22]);
});

Deno.test("answers written before the index are listed, and the index is mended", async () => {
  await using t = await createTestApp();
  const o = await org(t);
  for (let i = 0; i < 12; i++) {
    await addAnswer(t.kv, o.id, { request: request(i, "Legacy"), actor, now: t.clock.now() });
  }
  // What an instance before the index holds: the answers and their count, no order entries.
  const op = t.kv.atomic();
  for await (const e of t.kv.list({ prefix: ["answers_by_order", o.id] })) op.delete(e.key);
  op.delete(["answers_by_order_counts", o.id]);
  assert.ok((await op.commit()).ok);

  const expected = inAnswerOrder(await listAnswers(t.kv, o.id)).map((a) => a.id);
  assert.deepEqual((await pages(t, o.slug, 5)).ids, expected, "read whole, mended");
  let indexed = 0;
  for await (const _ of t.kv.list({ prefix: ["answers_by_order", o.id] })) indexed++;
  assert.equal(indexed, 12);
  assert.equal((await t.kv.get(["answers_by_order_counts", o.id])).value, 12);
  assert.deepEqual((await pages(t, o.slug, 5)).ids, expected, "then from the index");

  const searched = await (await t.call("GET", `/public/trust/${o.slug}/answers?q=legacy`)).json();
  assert.equal(searched.matched, 12, "a search still reads them all");
});

Deno.test("the members' list of answers pages from the order index too", async () => {
  await using t = await createTestApp();
  const o = await org(t);
  const token = await t.tokenFor("ola");
  for (let i = 0; i < 23; i++) {
    await addAnswer(t.kv, o.id, { request: request(i, "Backups"), actor, now: t.clock.now() });
  }
  const expected = inAnswerOrder(await listAnswers(t.kv, o.id)).map((a) => a.id);
  const members = async () => {
    const ids: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 20; i++) {
      const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
      const res = await t.call("GET", `/organizations/${o.id}/answers?limit=5${query}`, { token });
      assert.equal(res.status, 200);
      const body = await res.json();
      assert.equal(body.total, 23);
      ids.push(...body.answers.map((a: { id: string }) => a.id));
      cursor = body.nextCursor;
      if (!cursor) return ids;
    }
    throw new Error("too many pages");
  };
  assert.deepEqual(await members(), expected);
  // Answers written before the index: read whole once, the index mended, the same pages.
  const op = t.kv.atomic().delete(["answers_by_order_counts", o.id]);
  for await (const e of t.kv.list({ prefix: ["answers_by_order", o.id] })) op.delete(e.key);
  assert.ok((await op.commit()).ok);
  assert.deepEqual(await members(), expected);
  assert.equal((await t.kv.get(["answers_by_order_counts", o.id])).value, 23);
});
