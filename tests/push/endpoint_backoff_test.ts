/**
 * Slow and dead endpoints do not hold the workers: after three failed attempts in a row (here
 * timeouts against a receiver that accepts connections and never answers) an endpoint's next
 * attempt waits for its pause to end instead of being made; an endpoint takes one attempt at a
 * time and a subscriber two, the others waiting without a request; a success ends the pause.
 * The delivery handler is driven directly, as a worker runs it; the fake clock moves the time.
 */
import assert from "node:assert/strict";
import { JobDeferred } from "../../src/domain/jobs.ts";
import {
  CIRCUIT_COOLDOWN_MS,
  CIRCUIT_OPEN_AFTER,
  type WebhookRecord,
} from "../../src/domain/webhooks.ts";
import { deliveryHandler } from "../../src/push/webhook_delivery.ts";
import { newDelivery } from "../../src/push/webhook_fanout.ts";
import { createDelivery, getDelivery, messageOf } from "../../src/store/webhook_deliveries.ts";
import { getCircuit } from "../../src/store/webhook_gate.ts";
import { getWebhook } from "../../src/store/webhooks.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { type Workspace, workspace } from "../support/fixtures.ts";

const TIMEOUT_MS = 300;
const OPTIONS = { retryDelaysMs: [60_000], jitter: 0, timeoutMs: TIMEOUT_MS };

/** A receiver that accepts connections and never answers (until `answer` is set). */
function startSilentReceiver() {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns: Deno.Conn[] = [];
  const state = { connections: 0, answer: false };
  (async () => {
    for await (const conn of listener) {
      state.connections++;
      conns.push(conn);
      if (state.answer) {
        (async () => {
          const buffer = new Uint8Array(16 * 1024);
          await conn.read(buffer).catch(() => null);
          await conn.write(new TextEncoder().encode(
            "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n",
          )).catch(() => {});
          conn.close();
        })();
      }
    }
  })().catch(() => {});
  const { port } = listener.addr as Deno.NetAddr;
  return {
    state,
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    close() {
      listener.close();
      for (const conn of conns) {
        try {
          conn.close();
        } catch {
          // Already closed by the client's timeout.
        }
      }
    },
  };
}

async function setUp() {
  const receiver = startSilentReceiver();
  const ctx = await createTestApp({
    env: { WEBHOOK_ALLOW_PRIVATE: "true" },
    webhookDelivery: OPTIONS,
  });
  const ws = await workspace(ctx, "owner", { visibility: "public" });
  const handle = deliveryHandler({
    ...ctx.services,
    key: ctx.services.keys.webhooks,
    resolver: ctx.services.hostResolver,
    allowPrivate: true,
    options: OPTIONS,
  });
  return { receiver, ctx, ws, handle };
}

async function register(ctx: TestApp, ws: Workspace, token: string, url: string) {
  const res = await ctx.call("POST", `/projects/${ws.project.id}/webhooks`, {
    token,
    json: { url, events: ["version.published"] },
  });
  assert.equal(res.status, 201, await res.clone().text());
  const { webhook } = await res.json();
  return (await getWebhook(ctx.kv, ws.project.id, webhook.id))!;
}

let events = 0;
/** A new pending delivery to `webhook` and the message of its first attempt's job. */
async function pending(ctx: TestApp, webhook: WebhookRecord) {
  const payload = {
    type: "webhook.test",
    timestamp: ctx.clock.now().toISOString(),
    data: { organizationId: webhook.organizationId },
  };
  const delivery = newDelivery(webhook, {
    messageId: `msg_${++events}`,
    payload,
    now: ctx.clock.now(),
  });
  assert.ok(await createDelivery(ctx.kv, delivery, `event-${events}`));
  return { delivery, message: messageOf(delivery) };
}

/** Runs the handler; the JobDeferred it throws, or null when it made its attempt. */
async function run(handle: ReturnType<typeof deliveryHandler>, message: object) {
  try {
    await handle(message as Parameters<typeof handle>[0]);
    return null;
  } catch (error) {
    if (error instanceof JobDeferred) return error;
    throw error;
  }
}

Deno.test("[push] an endpoint that failed three attempts in a row pauses instead of taking a slot", async (t) => {
  const { receiver, ctx, ws, handle } = await setUp();
  try {
    const webhook = await register(ctx, ws, ws.token, receiver.url("/dead"));
    await t.step("three timeouts in a row open its circuit", async () => {
      for (let i = 1; i <= CIRCUIT_OPEN_AFTER; i++) {
        const { message } = await pending(ctx, webhook);
        assert.equal(await run(handle, message), null, `attempt ${i} is made`);
        assert.equal((await getCircuit(ctx.kv, webhook.id))?.failures, i);
      }
      assert.equal(receiver.state.connections, CIRCUIT_OPEN_AFTER);
      const circuit = await getCircuit(ctx.kv, webhook.id);
      assert.equal(circuit?.openUntil, ctx.clock.now().getTime() + CIRCUIT_COOLDOWN_MS);
    });
    await t.step(
      "the next attempt waits for the pause, at once and without a request",
      async () => {
        const { delivery, message } = await pending(ctx, webhook);
        const started = performance.now();
        const deferred = await run(handle, message);
        const ms = performance.now() - started;
        assert.ok(deferred, "the job is deferred");
        assert.ok(deferred.untilMs >= ctx.clock.now().getTime() + CIRCUIT_COOLDOWN_MS);
        assert.ok(ms < TIMEOUT_MS, `it took ${Math.round(ms)} ms, no timeout`);
        assert.equal(receiver.state.connections, CIRCUIT_OPEN_AFTER, "no request was made");
        const stored = (await getDelivery(ctx.kv, webhook.id, delivery.id)).value!;
        assert.equal(stored.status, "pending");
        assert.equal(stored.attemptCount, 0, "nothing was attempted");
        assert.equal(stored.claim, null);
      },
    );
    await t.step(
      "after the pause one attempt is made; its failure pauses twice as long",
      async () => {
        ctx.clock.advance(CIRCUIT_COOLDOWN_MS + 1);
        const { message } = await pending(ctx, webhook);
        assert.equal(await run(handle, message), null);
        const circuit = await getCircuit(ctx.kv, webhook.id);
        assert.equal(circuit?.failures, CIRCUIT_OPEN_AFTER + 1);
        assert.equal(circuit?.openUntil, ctx.clock.now().getTime() + 2 * CIRCUIT_COOLDOWN_MS);
      },
    );
    await t.step("a success ends the pause", async () => {
      ctx.clock.advance(2 * CIRCUIT_COOLDOWN_MS + 1);
      receiver.state.answer = true;
      const { delivery, message } = await pending(ctx, webhook);
      assert.equal(await run(handle, message), null);
      assert.equal((await getDelivery(ctx.kv, webhook.id, delivery.id)).value?.status, "delivered");
      assert.equal(await getCircuit(ctx.kv, webhook.id), null);
    });
  } finally {
    receiver.close();
    await ctx[Symbol.asyncDispose]();
  }
});

Deno.test("[push] one attempt at a time per endpoint, two per subscriber; the others wait without a request", async () => {
  const { receiver, ctx, ws, handle } = await setUp();
  try {
    // A buyer (not a member) registers three endpoints on the public project.
    const buyer = await ctx.tokenFor("buyer");
    const hooks = [];
    for (const path of ["/one", "/two", "/three"]) {
      hooks.push(await register(ctx, ws, buyer, receiver.url(path)));
    }
    const first = await pending(ctx, hooks[0]);
    const second = await pending(ctx, hooks[0]);
    const inFlight = run(handle, first.message);
    for (let i = 0; i < 100 && receiver.state.connections < 1; i++) {
      await new Promise((r) => setTimeout(r, 5));
    }
    const busy = await run(handle, second.message);
    assert.match(busy?.message ?? "", /under way/, "the same endpoint waits");
    const other = run(handle, (await pending(ctx, hooks[1])).message);
    for (let i = 0; i < 100 && receiver.state.connections < 2; i++) {
      await new Promise((r) => setTimeout(r, 5));
    }
    const third = await run(handle, (await pending(ctx, hooks[2])).message);
    assert.match(third?.message ?? "", /subscriber/, "a third endpoint of the subscriber waits");
    assert.equal(receiver.state.connections, 2, "two requests in flight, no more");
    assert.deepEqual(await Promise.all([inFlight, other]), [null, null]);
    const again = await run(handle, second.message);
    assert.equal(again, null, "once the first ended, the next attempt goes");
  } finally {
    receiver.close();
    await ctx[Symbol.asyncDispose]();
  }
});
