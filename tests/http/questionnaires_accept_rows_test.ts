/**
 * Bulk accept in review (POST …/questionnaires/{id}/accept-rows): by score (every pending row
 * whose best suggestion scores at least minScore) and by the reviewer's selection (chosen rows
 * with a best suggestion, pending or rejected). Edits and earlier accepts are never replaced,
 * rows without a suggestion are never accepted, the coverage follows, and bad bodies are 400
 * without changing anything; a stranger gets 403, an unknown questionnaire 404.
 */
import assert from "node:assert/strict";
import { createTestApp } from "../support/app.ts";
import { fixture, knowledgeBase, ok } from "../support/questionnaires.ts";

interface Row {
  key: string;
  questionId: string | null;
  best: { score: number; by: string } | null;
  decision: { state: string; answer: string | null; suggestion: number | null };
}

Deno.test("[questionnaires] bulk accept by score and by selection", async (t) => {
  await using ctx = await createTestApp();
  const kb = await knowledgeBase(ctx);
  const { questionnaire } = await ok(
    await ctx.call("POST", `/organizations/${kb.orgId}/questionnaires`, {
      token: kb.member,
      body: await fixture("caiq_v4.0.3.xlsx") as Uint8Array<ArrayBuffer>,
    }),
    201,
  );
  const base = `/organizations/${kb.orgId}/questionnaires/${questionnaire.id}`;
  const rows = async (): Promise<Row[]> =>
    (await ok(await ctx.call("GET", `${base}/rows?limit=200`, { token: kb.member }))).rows;
  const accept = (json: unknown, token = kb.member) =>
    ctx.call("POST", `${base}/accept-rows`, { token, json });
  const before = await rows();
  const withBest = before.filter((r) => r.best !== null);
  const textMatches = withBest.filter((r) => r.best!.by === "text");
  assert.ok(textMatches.length >= 1 && withBest.length >= 3, JSON.stringify(withBest));
  const noBest = before.find((r) => r.best === null)!;

  await t.step("bad bodies are 400 and change nothing", async () => {
    for (
      const body of [
        {},
        { keys: [] },
        { minScore: 1.5 },
        { minScore: -0.1 },
        { keys: ["not a key"] },
        { keys: [withBest[0].key], minScore: 0.5 },
        { minScore: "0.5" },
        { keys: Array.from({ length: 5_001 }, (_, i) => `0:${i}`) },
      ]
    ) {
      const res = await accept(body);
      assert.equal(res.status, 400, JSON.stringify(body).slice(0, 80));
      assert.equal((await res.json()).error.code, "validation_failed");
    }
    assert.deepEqual(await rows(), before);
    assert.equal((await accept({ minScore: 0.5 }, kb.stranger)).status, 403);
    const missing = await ctx.call(
      "POST",
      `${base.replace(questionnaire.id, crypto.randomUUID())}/accept-rows`,
      {
        token: kb.member,
        json: { minScore: 0.5 },
      },
    );
    assert.equal(missing.status, 404);
  });

  const [edited, rejected, chosen] = withBest;
  await t.step("by selection: pending and rejected rows with a best; edits stay", async () => {
    await ok(
      await ctx.call("PATCH", `${base}/rows/${edited.key}`, {
        token: kb.member,
        json: { state: "edited", answer: "Our own words." },
      }),
    );
    await ok(
      await ctx.call("PATCH", `${base}/rows/${rejected.key}`, {
        token: kb.member,
        json: { state: "rejected" },
      }),
    );
    const body = await ok(
      await accept({ keys: [noBest.key, chosen.key, "0:9999999", rejected.key, edited.key] }),
    );
    // In the file's order, whatever the order asked.
    const expected = [rejected.key, chosen.key].sort((a, b) =>
      before.findIndex((r) => r.key === a) - before.findIndex((r) => r.key === b)
    );
    assert.deepEqual(body, { accepted: 2, keys: expected });
    const after = new Map((await rows()).map((r) => [r.key, r]));
    assert.equal(after.get(edited.key)!.decision.state, "edited");
    assert.equal(after.get(edited.key)!.decision.answer, "Our own words.");
    assert.equal(after.get(rejected.key)!.decision.state, "accepted");
    assert.equal(after.get(chosen.key)!.decision.suggestion, 0);
    assert.equal(after.get(noBest.key)!.decision.state, "pending", "no suggestion to accept");
  });

  await t.step("by score: pending rows at or above it, and the coverage follows", async () => {
    const current = await rows();
    const pending = current.filter((r) => r.decision.state === "pending" && r.best);
    const cut = Math.min(...textMatches.map((r) => r.best!.score)) + 1e-9;
    const above = pending.filter((r) => r.best!.score >= cut).map((r) => r.key);
    const body = await ok(await accept({ minScore: cut }));
    assert.deepEqual(body.keys, above);
    const after = await rows();
    for (const row of after) {
      const was = current.find((r) => r.key === row.key)!;
      const expected = above.includes(row.key) ? "accepted" : was.decision.state;
      assert.equal(row.decision.state, expected, row.key);
    }
    assert.ok(after.some((r) => r.best && r.decision.state === "pending"), "one stays below");
    const { questionnaire: q } = await ok(await ctx.call("GET", base, { token: kb.member }));
    assert.equal(q.coverage.accepted, after.filter((r) => r.decision.state === "accepted").length);
    // Again: nothing left above it.
    assert.deepEqual(await ok(await accept({ minScore: cut })), { accepted: 0, keys: [] });
    // The lowest: every pending row with a best.
    const rest = await ok(await accept({ minScore: 0 }));
    assert.ok(rest.accepted >= 1);
    const final = await rows();
    assert.ok(final.every((r) => r.best === null || r.decision.state !== "pending"));
    assert.equal(final.find((r) => r.key === edited.key)!.decision.state, "edited");
  });
});
