/**
 * The live layer under faults, with KV queues unavailable as on Deno Deploy: a service killed
 * while a webhook delivery is due delivers it once after a restart, and two instances on one
 * KV file under evidence load publish one version per state change and push nothing twice.
 */
import assert from "node:assert/strict";
import {
  acmeProject,
  caller,
  confirmedSubscriber,
  eventually,
  firstAccount,
  publishedProfile,
  sendScan,
  startReceiver,
} from "../support/live_vendor.ts";
import { freePort, NO_KV_QUEUES, type ServiceProcess, startService } from "../support/process.ts";
import { startSmtpServer } from "../support/smtp.ts";

Deno.test("[e2e] SIGKILL while a webhook delivery is due: delivered once after a restart, same id", async () => {
  const dir = await Deno.makeTempDir();
  let answered = 0;
  // The first attempt fails, so the delivery waits for its retry (5 s later) when killed.
  const receiver = startReceiver(() => (answered++ === 0 ? 500 : 204));
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = {
    PORT: String(port),
    KV_PATH: `${dir}/kv.sqlite3`,
    BASE_URL: base,
    WEBHOOK_ALLOW_PRIVATE: "true",
  };
  let service: ServiceProcess = startService(env, { preload: NO_KV_QUEUES });
  try {
    const call = caller([base], await firstAccount(service, base));
    const { projectId } = await acmeProject(call);
    const hook = await call("POST", `/projects/${projectId}/webhooks`, {
      url: receiver.url("/hook"),
      events: ["version.published"],
    });
    assert.equal(hook.status, 201);
    assert.equal((await call("POST", `/projects/${projectId}/publish`)).status, 201);
    const [first] = await receiver.waitFor(() => true);
    assert.equal(first.status, 500);

    const killed = await service.stop("SIGKILL");
    assert.equal(killed.signal, "SIGKILL");
    service = startService(env, { preload: NO_KV_QUEUES });
    await service.waitFor(/^Live work: /);

    const [, second] = await receiver.waitFor(() => true, 2, 30_000);
    assert.equal(second.status, 204);
    assert.equal(second.id, first.id, "the same webhook-id");
    assert.equal(second.type, "version.published");
    await new Promise((r) => setTimeout(r, 1_500));
    assert.equal(receiver.received.length, 2, "delivered once after the failure, not again");
    const deliveries = await call(
      "GET",
      `/projects/${projectId}/webhooks/${hook.body.webhook.id}/deliveries`,
    );
    assert.equal(deliveries.status, 200);
    const [delivery] = deliveries.body.deliveries;
    assert.equal(delivery.status, "delivered");
    assert.equal(delivery.attempts.length, 2);
  } finally {
    await service.stop();
    await receiver.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[e2e] two instances on one KV under evidence load: one version per change, nothing pushed twice", async () => {
  const dir = await Deno.makeTempDir();
  await using smtp = await startSmtpServer();
  const receiver = startReceiver();
  const ports = [freePort(), freePort()];
  const bases = ports.map((port) => `http://127.0.0.1:${port}`);
  const env = (port: number) => ({
    PORT: String(port),
    KV_PATH: `${dir}/kv.sqlite3`,
    BASE_URL: bases[0],
    SMTP_URL: smtp.url,
    WEBHOOK_ALLOW_PRIVATE: "true",
  });
  const services = [startService(env(ports[0]), { preload: NO_KV_QUEUES })];
  try {
    const token = await firstAccount(services[0], bases[0]);
    services.push(startService(env(ports[1]), { preload: NO_KV_QUEUES }));
    await services[1].waitFor(/^Live work: /);
    const call = caller(bases, token);
    const target = await acmeProject(call);
    const { projectId } = target;
    await sendScan(bases[0], target, 0);
    assert.equal((await call("POST", `/projects/${projectId}/publish`)).status, 201);
    assert.equal(
      (await call("PATCH", `/projects/${projectId}`, { autoPublish: true })).status,
      200,
    );
    const hook = await call("POST", `/projects/${projectId}/webhooks`, {
      url: receiver.url("/hook"),
      events: ["version.published", "control.regressed"],
    });
    assert.equal(hook.status, 201);
    await confirmedSubscriber(bases[1], smtp, "buyer@customer.test");

    const CHANGES = 6;
    for (let change = 1; change <= CHANGES; change++) {
      const critical = change % 2 === 1 ? 2 : 0;
      // Twenty records of the same state, through both instances at once.
      await Promise.all(
        Array.from({ length: 20 }, (_, i) => sendScan(bases[i % 2], target, critical)),
      );
      const want = critical > 0 ? "fail" : "pass";
      await eventually(`version ${change + 1} (${want})`, async () => {
        const p = await publishedProfile(bases[change % 2]);
        return p && p.version >= change + 1 ? p : null;
      }, 30_000);
    }
    // Time for any duplicate to show up.
    await new Promise((r) => setTimeout(r, 4_000));
    const profile = (await publishedProfile(bases[0]))!;
    assert.equal(profile.version, CHANGES + 1, "one version per state change");

    const published = receiver.received.filter((r) => r.type === "version.published");
    const regressed = receiver.received.filter((r) => r.type === "control.regressed");
    // The endpoint was registered after version 1.
    assert.equal(published.length, CHANGES);
    assert.equal(new Set(published.map((r) => r.id)).size, published.length, "no id twice");
    assert.equal(regressed.length, CHANGES / 2);
    assert.equal(new Set(regressed.map((r) => r.id)).size, regressed.length);
    const versions = published.map((r) => JSON.parse(r.body).data.version).sort((a, b) => a - b);
    assert.deepEqual(versions, Array.from({ length: CHANGES }, (_, i) => i + 2));

    const emails = smtp.messages.filter((m) => /regressed/i.test(m.subject ?? ""));
    assert.equal(emails.length, CHANGES / 2, "one email per regression");
    const errors = services.flatMap((s) => s.lines.filter((l) => l.includes('"level":"error"')));
    assert.deepEqual(errors, []);
  } finally {
    await Promise.all(services.map((s) => s.stop()));
    await receiver.close();
    await Deno.remove(dir, { recursive: true });
  }
});
