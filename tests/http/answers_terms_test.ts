/**
 * Answers search (`q`) through the word index (src/store/answer_terms.ts): it finds what a
 * search over every answer finds, in the same order, with the same counts and cursors; a
 * selective search reads the answers its words name, not all of them; additions, edits and
 * deletions keep the index; answers written before it are searched all the same (every answer
 * read once, the index mended); case and accents are ignored, a restricted answer is never
 * found by its text, and a word matches from the start of a word.
 */
import assert from "node:assert/strict";
import { createTestApp, type TestApp } from "../support/app.ts";
import { addAnswer, deleteAnswer, editAnswer, listAnswers } from "../../src/store/answers.ts";

const actor = { userId: "test", email: null };
const SIZE = 120;

async function org(t: TestApp) {
  const token = await t.tokenFor("tess");
  const boot = await (await t.call("POST", "/onboarding/bootstrap", {
    token,
    json: { workspaceName: "Searched", projectName: "Searched" },
  })).json();
  return boot.organization as { id: string; slug: string };
}

const TOPICS = ["Encryption at rest", "Accès contrôlé", "Backups", "Incident response"];

function request(i: number) {
  const topic = TOPICS[i % TOPICS.length];
  return {
    question: `How is ${topic.toLowerCase()} handled for service ${i}?`,
    answer: `We use AES-256 and TLS 1.3; policy ${i} is reviewed yearly. Région ${i % 7}.`,
    category: topic,
    visibility: (i % 5 === 0 ? "restricted" : "public") as "public" | "restricted",
    questionnaireRefs: i % 4 === 0 ? [{ questionnaire: "caiq-v4" as const, id: `DSP-${i}` }] : [],
  };
}

/** Every page of a search, with the KV entries each request read. */
async function search(t: TestApp, slug: string, q: string, limit = 7) {
  const ids: string[] = [];
  const counts: string[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 100; i++) {
    const query = `q=${encodeURIComponent(q)}&limit=${limit}` +
      (cursor ? `&cursor=${encodeURIComponent(cursor)}` : "");
    const res = await t.call("GET", `/public/trust/${slug}/answers?${query}`);
    assert.equal(res.status, 200);
    const body = await res.json();
    ids.push(...body.answers.map((a: { id: string }) => a.id));
    counts.push(`${body.total}/${body.matched}`);
    cursor = body.nextCursor;
    if (!cursor) return { ids, counts: [...new Set(counts)] };
  }
  throw new Error("too many pages");
}

/** Removes the whole word index (as on a database written before it). */
async function dropIndex(t: TestApp, organizationId: string) {
  for (const collection of ["answers_by_term", "answer_terms_of"]) {
    for await (const entry of t.kv.list({ prefix: [collection, organizationId] })) {
      await t.kv.delete(entry.key);
    }
  }
  await t.kv.delete(["answers_by_term_counts", organizationId]);
}

const QUERIES = [
  "encryption",
  "ENCRYPTION rest",
  "acces controle",
  "aes-256 tls",
  "service 17",
  "dsp-8",
  "caiq v4",
  "region 3",
  "policy 4 yearly",
  "backups incident",
  "crypt",
  "-",
  "zzz",
  "service",
];

Deno.test("search through the word index finds what a search of every answer finds", async () => {
  await using t = await createTestApp();
  const o = await org(t);
  for (let i = 0; i < SIZE; i++) {
    await addAnswer(t.kv, o.id, { request: request(i), actor, now: t.clock.now() });
  }
  const indexed = new Map<string, Awaited<ReturnType<typeof search>>>();
  for (const q of QUERIES) indexed.set(q, await search(t, o.slug, q));
  await dropIndex(t, o.id);
  // The first search reads every answer and mends the index; each is compared after it too.
  for (const q of QUERIES) {
    assert.deepEqual(await search(t, o.slug, q), indexed.get(q), q);
  }
  assert.equal((await t.kv.get(["answers_by_term_counts", o.id])).value, SIZE);

  const found = (q: string) => indexed.get(q)!;
  assert.equal(found("encryption").ids.length, SIZE / 4);
  assert.deepEqual(found("ENCRYPTION rest"), found("encryption"));
  assert.equal(found("acces controle").ids.length, SIZE / 4, "accents and case are ignored");
  assert.equal(found("service 17").ids[0], await idOf(t, o.id, 17), "the best match first");
  assert.deepEqual(found("dsp-8").ids.slice(0, 1), [await idOf(t, o.id, 8)]);
  assert.deepEqual(found("crypt").ids, [], "a word matches from the start of a word");
  assert.deepEqual(found("zzz").ids, []);
  // Restricted answers (every fifth) are found by their question, never by their text.
  const restricted = new Set(await restrictedIds(t, o.id));
  assert.ok(found("service").ids.some((id) => restricted.has(id)));
  assert.ok(!found("aes-256 tls").ids.some((id) => restricted.has(id)));
  assert.equal(found("aes-256 tls").ids.length, SIZE - restricted.size);
});

async function idOf(t: TestApp, organizationId: string, i: number) {
  const all = await listAnswers(t.kv, organizationId);
  return all.find((a) => a.question.endsWith(`service ${i}?`))!.id;
}

async function restrictedIds(t: TestApp, organizationId: string) {
  return (await listAnswers(t.kv, organizationId)).filter((a) => a.visibility === "restricted")
    .map((a) => a.id);
}

Deno.test("a selective search reads the answers its words name, not every answer", async () => {
  await using t = await createTestApp();
  const o = await org(t);
  for (let i = 0; i < 300; i++) {
    await addAnswer(t.kv, o.id, { request: request(i), actor, now: t.clock.now() });
  }
  const counter = { on: false, entries: 0 };
  const kv = t.kv as unknown as Record<string, (...args: unknown[]) => unknown>;
  const list = kv.list.bind(t.kv);
  const getMany = kv.getMany.bind(t.kv);
  kv.list = (...args) => {
    const iterator = list(...args) as Deno.KvListIterator<unknown>;
    const next = iterator.next.bind(iterator);
    iterator.next = async () => {
      const result = await next();
      if (counter.on && !result.done) counter.entries++;
      return result;
    };
    return iterator;
  };
  kv.getMany = (...args) => {
    if (counter.on) counter.entries += (args[0] as unknown[]).length;
    return getMany(...args);
  };
  const measure = async (q: string) => {
    counter.entries = 0;
    counter.on = true;
    const result = await search(t, o.slug, q, 50);
    counter.on = false;
    return { result, reads: counter.entries };
  };
  const selective = await measure("service 217");
  assert.deepEqual(selective.result.ids, [await idOf(t, o.id, 217)]);
  assert.ok(selective.reads < 60, `${selective.reads} entries read`);
  // Every word common: every answer is read (the search matches most of them).
  const common = await measure("service policy");
  assert.equal(common.result.ids.length, 240, "restricted answers are not found by their text");
  assert.ok(common.reads >= 300, `${common.reads} entries read`);
});

Deno.test("additions, edits and deletions keep the word index", async () => {
  await using t = await createTestApp();
  const o = await org(t);
  const first = await addAnswer(t.kv, o.id, { request: request(1), actor, now: t.clock.now() });
  const second = await addAnswer(t.kv, o.id, { request: request(2), actor, now: t.clock.now() });
  assert.deepEqual((await search(t, o.slug, "backups")).ids, [second.id]);
  await editAnswer(t.kv, o.id, {
    id: second.id,
    change: { category: "Continuity", question: "Do you keep offsite copies?" },
    actor,
    now: t.clock.now(),
  });
  assert.deepEqual((await search(t, o.slug, "backups")).ids, []);
  assert.deepEqual((await search(t, o.slug, "offsite")).ids, [second.id]);
  await deleteAnswer(t.kv, o.id, second.id);
  assert.deepEqual((await search(t, o.slug, "offsite")).ids, []);
  let left = 0;
  for await (const entry of t.kv.list({ prefix: ["answers_by_term", o.id] })) {
    assert.equal(entry.key[3], first.id);
    left++;
  }
  assert.ok(left > 0);
  assert.equal((await t.kv.get(["answer_terms_of", o.id, second.id])).versionstamp, null);
  assert.equal((await t.kv.get(["answers_by_term_counts", o.id])).value, 1);
});
