/**
 * Test pings are limited: TEST_PINGS_PER_WEBHOOK per endpoint and TEST_PINGS_PER_PROJECT per
 * project in each window; beyond either, 429 `rate_limited` with Retry-After and nothing stored.
 */
import assert from "node:assert/strict";
import {
  TEST_PING_WINDOW_MS,
  TEST_PINGS_PER_PROJECT,
  TEST_PINGS_PER_WEBHOOK,
} from "../../src/domain/webhooks.ts";
import { createTestApp, snapshotKv, type TestApp } from "../support/app.ts";
import { workspace } from "../support/fixtures.ts";

async function addHook(ctx: TestApp, projectId: string, token: string, n: number) {
  const res = await ctx.call("POST", `/projects/${projectId}/webhooks`, {
    token,
    json: { url: `http://127.0.0.1:9/hook-${n}`, events: ["version.published"] },
  });
  assert.equal(res.status, 201, await res.clone().text());
  return `/projects/${projectId}/webhooks/${(await res.json()).webhook.id}`;
}

async function refused(ctx: TestApp, path: string, token: string, limit: RegExp) {
  const before = await snapshotKv(ctx.kv);
  const res = await ctx.call("POST", `${path}/test`, { token });
  assert.equal(res.status, 429);
  assert.match(res.headers.get("content-type") ?? "", /application\/json/);
  const retryAfter = Number(res.headers.get("retry-after"));
  assert.ok(retryAfter >= 1 && retryAfter <= TEST_PING_WINDOW_MS / 1000, `${retryAfter}`);
  const { error } = await res.json();
  assert.equal(error.code, "rate_limited");
  assert.match(error.message, limit);
  assert.equal(await snapshotKv(ctx.kv), before, "a refused ping stores nothing");
}

Deno.test("[http] POST …/webhooks/{id}/test: five per endpoint a minute, then 429 with Retry-After", async () => {
  // No worker runs: pings are queued, never sent.
  await using ctx = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: "true" } });
  const ws = await workspace(ctx, "owner", { visibility: "public" });
  const path = await addHook(ctx, ws.project.id, ws.token, 0);
  for (let i = 0; i < TEST_PINGS_PER_WEBHOOK; i++) {
    const res = await ctx.call("POST", `${path}/test`, { token: ws.token });
    assert.equal(res.status, 202, `ping ${i + 1}`);
    await res.body?.cancel();
  }
  await refused(ctx, path, ws.token, /at most 5 test pings per endpoint/i);
  const deliveries = await (await ctx.call("GET", `${path}/deliveries`, { token: ws.token }))
    .json();
  assert.equal(deliveries.deliveries.length, TEST_PINGS_PER_WEBHOOK);
  ctx.clock.advance(TEST_PING_WINDOW_MS);
  const later = await ctx.call("POST", `${path}/test`, { token: ws.token });
  assert.equal(later.status, 202, "the next window takes pings again");
  await later.body?.cancel();
});

Deno.test("[http] POST …/webhooks/{id}/test: thirty per project a minute, all callers together", async () => {
  // No worker runs: pings are queued, never sent.
  await using ctx = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: "true" } });
  const ws = await workspace(ctx, "owner", { visibility: "public" });
  // Two buyers who are not members, as in the review: their endpoints share the project's cap.
  const buyers = [await ctx.tokenFor("buyer-1"), await ctx.tokenFor("buyer-2")];
  const hooks: Array<{ path: string; token: string }> = [];
  for (let n = 0; n < 8; n++) {
    const token = buyers[n % 2];
    hooks.push({ path: await addHook(ctx, ws.project.id, token, n), token });
  }
  let accepted = 0;
  for (const { path, token } of hooks) {
    for (let i = 0; i < TEST_PINGS_PER_WEBHOOK && accepted < TEST_PINGS_PER_PROJECT; i++) {
      const res = await ctx.call("POST", `${path}/test`, { token });
      assert.equal(res.status, 202);
      await res.body?.cancel();
      accepted++;
    }
  }
  assert.equal(accepted, TEST_PINGS_PER_PROJECT);
  const fresh = hooks.at(-1)!;
  await refused(ctx, fresh.path, fresh.token, /at most 30 test pings per project/i);
});
