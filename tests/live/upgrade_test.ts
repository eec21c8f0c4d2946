/**
 * The one-time upgrade from the KV queue of earlier releases: a local database that still
 * holds queue messages (and records whose delayed messages never came) has them turned into
 * jobs at the first start, once; the work they stood for then happens.
 */
import assert from "node:assert/strict";
import { createServices } from "../../src/app.ts";
import { createKvBlobStore } from "../../src/blobs/kv.ts";
import { loadConfig } from "../../src/config.ts";
import { trustEvent } from "../../src/domain/events.ts";
import { systemClock } from "../../src/lib/clock.ts";
import { memoryLogger } from "../../src/lib/log.ts";
import { upgradeFromKvQueue } from "../../src/live/legacy_queue.ts";
import { newDelivery } from "../../src/push/webhook_fanout.ts";
import { listWebhooks } from "../../src/store/webhooks.ts";
import { webhookDeliveryKey } from "../../src/store/keys.ts";
import { startReceiver } from "../support/live_vendor.ts";
import { bootstrapAcme, jsonApi, startTestServer } from "../support/server.ts";

Deno.test("[live] an old KV queue's messages and pending deliveries become jobs, once", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/kv.sqlite3`;
  const receiver = startReceiver();
  try {
    // The database as an earlier release left it: a project with a webhook…
    const kv = await Deno.openKv(path);
    const server = await startTestServer({
      kv,
      worker: false,
      env: { WEBHOOK_ALLOW_PRIVATE: "true" },
    });
    const api = jsonApi(server.baseUrl, await server.tokenFor("alice"));
    const projectId = await bootstrapAcme(api);
    const hook = await api("POST", `/projects/${projectId}/webhooks`, {
      url: receiver.url("/hook"),
      events: ["version.published", "update.posted"],
    });
    assert.equal(hook.status, 201);
    await server.close();
    const [webhook] = await listWebhooks(kv, projectId);
    const organizationId = webhook.organizationId;
    // …an event still in its queue, a recompute delayed by an hour…
    const event = trustEvent({
      type: "update.posted",
      timestamp: new Date(),
      organizationId,
      projectId,
      data: { note: "from the old queue" },
    });
    await kv.enqueue({ kind: "event", event });
    await kv.enqueue({ kind: "recompute", projectId, dueAt: Date.now() + 3_600_000 }, {
      delay: 3_600_000,
    });
    // …and a delivery whose next attempt was a delayed message.
    const pending = newDelivery(webhook, {
      messageId: crypto.randomUUID(),
      now: new Date(),
      payload: { type: "version.published", timestamp: new Date().toISOString(), data: {} },
    });
    await kv.set(webhookDeliveryKey(webhook.id, pending.id), pending);
    kv.close();

    // The first start of this release.
    const reopened = await Deno.openKv(path);
    const log = memoryLogger();
    const config = loadConfig({ KV_PATH: path, WEBHOOK_ALLOW_PRIVATE: "true" });
    const services = await createServices({
      config,
      kv: reopened,
      blobs: createKvBlobStore(reopened),
      clock: systemClock,
      log,
    });
    try {
      const report = await upgradeFromKvQueue(path, services);
      assert.deepEqual(report, { ran: true, messages: 1, rebuilt: 1, projects: 1 });
      services.jobs.start();
      const delivered = await receiver.waitFor(() => true, 2);
      assert.deepEqual(delivered.map((r) => r.type).sort(), ["update.posted", "version.published"]);
      assert.equal(delivered.find((r) => r.type === "version.published")!.id, pending.messageId);
      assert.ok(delivered.some((r) => r.id === event.id), "the event kept its id");
      const again = await upgradeFromKvQueue(path, services);
      assert.equal(again.ran, false, "the upgrade runs once");
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(receiver.received.length, 2, "nothing was delivered twice");
    } finally {
      await services.jobs.stop(() => reopened.close());
    }
  } finally {
    await receiver.close();
    await Deno.remove(dir, { recursive: true });
  }
});
