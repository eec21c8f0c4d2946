/**
 * Endpoints that keep failing are disabled: five deliveries in a row that end `failed` turn
 * the endpoint off with the reason and time, a delivered one resets the count, fan-out skips
 * the disabled endpoint, and `PATCH { enabled: true }` turns it back on with a fresh count.
 * Deliveries go to a real receiver on 127.0.0.1 (WEBHOOK_ALLOW_PRIVATE=true), each with one
 * attempt (no retries), through the app's own job worker or its delivery handler. Each ping
 * comes a minute after the last (the fake clock moves), past the test ping limit's window and
 * the endpoint's pause after failed attempts in a row (both have their own tests).
 */
import assert from "node:assert/strict";
import { DISABLE_AFTER_FAILED_DELIVERIES } from "../../src/domain/webhooks.ts";
import { deliveryHandler } from "../../src/push/webhook_delivery.ts";
import { newDelivery } from "../../src/push/webhook_fanout.ts";
import { createDelivery } from "../../src/store/webhook_deliveries.ts";
import { getWebhook, updateWebhook } from "../../src/store/webhooks.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { publishVersion, type Workspace, workspace } from "../support/fixtures.ts";

const ONE_ATTEMPT = { retryDelaysMs: [], jitter: 0, timeoutMs: 2000 };

/** A receiver answering `status` (changeable), or holding answers until `hold` requests came. */
function startReceiver() {
  const state = { status: 500, hold: 0, requests: 0 };
  const waiting: Array<() => void> = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (r) => {
    await r.body?.cancel();
    state.requests++;
    if (state.hold > 0) await new Promise<void>((go) => waiting.push(go));
    return new Response(null, { status: state.status });
  });
  // Held requests are answered together once `hold` of them are waiting.
  const release = setInterval(() => {
    if (waiting.length >= state.hold) waiting.splice(0).forEach((go) => go());
  }, 20);
  return {
    state,
    url: (path: string) => `http://127.0.0.1:${server.addr.port}${path}`,
    close: async () => {
      clearInterval(release);
      waiting.splice(0).forEach((go) => go());
      await server.shutdown();
    },
  };
}

async function setUp(receiver: ReturnType<typeof startReceiver>, worker: boolean) {
  const ctx = await createTestApp({
    env: { WEBHOOK_ALLOW_PRIVATE: "true" },
    worker,
    webhookDelivery: ONE_ATTEMPT,
  });
  const ws = await workspace(ctx, "owner");
  const hooks = `/projects/${ws.project.id}/webhooks`;
  const add = async (path: string) => {
    const res = await ctx.call("POST", hooks, {
      token: ws.token,
      json: { url: receiver.url(path), events: ["version.published"] },
    });
    assert.equal(res.status, 201);
    return `${hooks}/${(await res.json()).webhook.id}`;
  };
  return { ctx, ws, add };
}

async function read(ctx: TestApp, ws: Workspace, path: string) {
  return (await (await ctx.call("GET", path, { token: ws.token })).json()).webhook;
}

/** A minute and a second: past the ping window and the longest pause these tests reach. */
const PAUSE_MS = 61_000;

/** Sends a test ping and waits until its delivery is over; returns its status. */
async function ping(ctx: TestApp, ws: Workspace, path: string): Promise<string> {
  ctx.clock.advance(PAUSE_MS);
  const res = await ctx.call("POST", `${path}/test`, { token: ws.token });
  assert.equal(res.status, 202);
  const { id } = (await res.json()).delivery;
  for (let i = 0; i < 200; i++) {
    const list = await (await ctx.call("GET", `${path}/deliveries`, { token: ws.token })).json();
    const delivery = list.deliveries.find((d: { id: string }) => d.id === id);
    if (delivery.status !== "pending") return delivery.status;
    await new Promise((wake) => setTimeout(wake, 20));
  }
  throw new Error("The ping's delivery did not finish");
}

Deno.test("[push] five failed deliveries in a row disable an endpoint; re-enabling resets", async (t) => {
  const receiver = startReceiver();
  const { ctx, ws, add } = await setUp(receiver, true);
  try {
    const path = await add("/failing");

    await t.step("failures count, and a delivered one resets the count", async () => {
      for (let i = 1; i < DISABLE_AFTER_FAILED_DELIVERIES; i++) {
        assert.equal(await ping(ctx, ws, path), "failed");
        assert.equal((await read(ctx, ws, path)).consecutiveFailures, i);
      }
      receiver.state.status = 204;
      assert.equal(await ping(ctx, ws, path), "delivered");
      const webhook = await read(ctx, ws, path);
      assert.equal(webhook.consecutiveFailures, 0);
      assert.equal(webhook.enabled, true);
      assert.equal(webhook.disabled, null);
    });

    await t.step("the fifth failure in a row disables it, with the reason and time", async () => {
      receiver.state.status = 500;
      for (let i = 0; i < DISABLE_AFTER_FAILED_DELIVERIES; i++) {
        assert.equal(await ping(ctx, ws, path), "failed");
      }
      const webhook = await read(ctx, ws, path);
      assert.equal(webhook.enabled, false);
      assert.deepEqual(webhook.disabled, {
        reason: "failing",
        at: ctx.clock.now().toISOString(),
        failedDeliveries: DISABLE_AFTER_FAILED_DELIVERIES,
        message: `Disabled after ${DISABLE_AFTER_FAILED_DELIVERIES} consecutive failed deliveries`,
      });
      assert.ok(ctx.log.lines.some((line) => line.includes("was disabled after consecutive")));
    });

    await t.step("a disabled endpoint gets no new deliveries", async () => {
      receiver.state.status = 204;
      const other = await add("/healthy");
      const before = receiver.state.requests;
      await publishVersion(ctx, ws);
      for (let i = 0; i < 200 && receiver.state.requests === before; i++) {
        await new Promise((wake) => setTimeout(wake, 20));
      }
      const listOf = async (p: string) =>
        (await (await ctx.call("GET", `${p}/deliveries`, { token: ws.token })).json()).deliveries;
      assert.deepEqual((await listOf(other)).map((d: { type: string }) => d.type), [
        "version.published",
      ]);
      const types = (await listOf(path)).map((d: { type: string }) => d.type);
      assert.ok(!types.includes("version.published"), "fan-out skipped the disabled endpoint");
      assert.equal(await ping(ctx, ws, path), "failed", "a ping to it is not sent");
      assert.equal(receiver.state.requests, before + 1, "only the healthy endpoint was called");
      assert.equal((await read(ctx, ws, path)).consecutiveFailures, 5, "and it is not counted");
    });

    await t.step("PATCH enabled: true turns it back on with a fresh count", async () => {
      const res = await ctx.call("PATCH", path, { token: ws.token, json: { enabled: true } });
      assert.equal(res.status, 200);
      const { webhook } = await res.json();
      assert.equal(webhook.enabled, true);
      assert.equal(webhook.disabled, null);
      assert.equal(webhook.consecutiveFailures, 0);
      assert.equal(await ping(ctx, ws, path), "delivered");
    });

    await t.step("an owner's own disabling says so", async () => {
      const res = await ctx.call("PATCH", path, { token: ws.token, json: { enabled: false } });
      const { webhook } = await res.json();
      assert.equal(webhook.disabled.reason, "user");
      assert.equal(webhook.disabled.message, "Disabled by a user");
    });
  } finally {
    await ctx[Symbol.asyncDispose]();
    await receiver.close();
  }
});

Deno.test("[push] deliveries ending at once on two workers both count, and only once each", async () => {
  const receiver = startReceiver();
  const { ctx, ws, add } = await setUp(receiver, false);
  try {
    const path = await add("/both");
    const webhookId = path.split("/").at(-1)!;
    const projectId = ws.project.id;
    await updateWebhook(ctx.kv, projectId, webhookId, (w) => ({ ...w, consecutiveFailures: 3 }));
    const webhook = (await getWebhook(ctx.kv, projectId, webhookId))!;
    const messages = [];
    for (const n of [1, 2]) {
      const payload = { type: "webhook.test", timestamp: ctx.clock.now().toISOString(), data: {} };
      const delivery = newDelivery(webhook, {
        messageId: `msg_${n}`,
        payload,
        now: ctx.clock.now(),
      });
      assert.ok(await createDelivery(ctx.kv, delivery, `event-${n}`));
      messages.push({
        kind: "webhook-delivery",
        projectId,
        webhookId,
        deliveryId: delivery.id,
        sequence: 1,
      });
    }
    // Two handlers (two instances) attempt together; the receiver answers both at once.
    const handlers = [1, 2].map(() =>
      deliveryHandler({
        ...ctx.services,
        key: ctx.services.keys.webhooks,
        resolver: ctx.services.hostResolver,
        allowPrivate: true,
        options: ONE_ATTEMPT,
      })
    );
    // An endpoint takes one attempt at a time; two at once happen only when an attempt's
    // in-flight mark lapsed while it still ran. The first attempt is held by the receiver,
    // its mark removed as if lapsed, and the second sent beside it.
    receiver.state.hold = 2;
    const first = handlers[0](messages[0]);
    for (let i = 0; i < 200 && receiver.state.requests < 1; i++) {
      await new Promise((wake) => setTimeout(wake, 10));
    }
    for await (const entry of ctx.kv.list({ prefix: ["webhook_in_flight"] })) {
      await ctx.kv.delete(entry.key);
    }
    await Promise.all([first, handlers[1](messages[1])]);
    assert.equal(receiver.state.requests, 2);
    let stored = (await getWebhook(ctx.kv, projectId, webhookId))!;
    assert.equal(stored.consecutiveFailures, 5, "both failures counted");
    assert.equal(stored.enabled, false);
    assert.equal(stored.disabled?.failedDeliveries, 5);

    // The same jobs again (a job may run twice): nothing more is counted.
    await Promise.all(messages.map((message, i) => handlers[1 - i](message)));
    stored = (await getWebhook(ctx.kv, projectId, webhookId))!;
    assert.equal(stored.consecutiveFailures, 5);
    assert.equal(receiver.state.requests, 2);
  } finally {
    await ctx[Symbol.asyncDispose]();
    await receiver.close();
  }
});
