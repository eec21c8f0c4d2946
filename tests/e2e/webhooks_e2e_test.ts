/**
 * Webhooks end to end: the real service (queue running, real clock) delivers to a real
 * receiver on 127.0.0.1 (WEBHOOK_ALLOW_PRIVATE=true), which verifies each delivery with the
 * `standardwebhooks` npm package (HMAC `v1`) or with the specification's Ed25519 algorithm
 * and the key from /.well-known/jwks.json (`v1a`).
 */
import assert from "node:assert/strict";
import { StandardWebhook } from "../deps.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
  answered: number;
}

/** A receiver that answers each request with the next status of `plan` (then 204). */
function startReceiver(plan: Record<string, number[]> = {}) {
  const received: Received[] = [];
  const waiters: Array<() => void> = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const path = new URL(req.url).pathname;
    const answered = plan[path]?.shift() ?? 204;
    received.push({
      path,
      headers: Object.fromEntries(req.headers),
      body: await req.text(),
      at: Date.now(),
      answered,
    });
    waiters.splice(0).forEach((wake) => wake());
    return new Response(null, { status: answered });
  });
  const url = (path: string) => `http://127.0.0.1:${server.addr.port}${path}`;
  async function next(match: (r: Received) => boolean, count = 1, timeoutMs = 15_000) {
    const deadline = Date.now() + timeoutMs;
    while (received.filter(match).length < count) {
      if (Date.now() > deadline) throw new Error(`Timed out waiting for ${count} deliveries`);
      await new Promise<void>((wake) => {
        waiters.push(wake);
        setTimeout(wake, 200);
      });
    }
    return received.filter(match);
  }
  return { received, url, next, close: () => server.shutdown() };
}

function api(server: TestServer, token: string) {
  return async (method: string, path: string, json?: unknown) => {
    const res = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(json === undefined ? {} : { "content-type": "application/json" }),
      },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
}

async function setUp(server: TestServer) {
  const call = api(server, await server.tokenFor("owner"));
  const boot = await call("POST", "/onboarding/bootstrap", {
    workspaceName: "Acme",
    projectName: "API",
    projectSlug: "acme",
    projectVisibility: "public",
  });
  assert.equal(boot.status, 201);
  return { call, project: boot.body.project as { id: string } };
}

// An endpoint's pause after three failed attempts in a row is shortened with the schedule.
const FAST = {
  retryDelaysMs: [300, 300, 300, 300],
  jitter: 0,
  timeoutMs: 3000,
  circuitCooldownMs: 300,
};

/** Verifies a `v1a` signature as the Standard Webhooks specification describes. */
async function verifyEd25519(server: TestServer, delivery: Received): Promise<void> {
  const { keys } = await (await fetch(`${server.baseUrl}/.well-known/jwks.json`)).json();
  const jwk = keys.find((k: { kid: string }) => k.kid === delivery.headers["webhook-key-id"]);
  assert.ok(jwk, "the signing key is published in the JWKS");
  assert.equal(jwk.use, "sig");
  const key = await crypto.subtle.importKey("jwk", jwk, "Ed25519", false, ["verify"]);
  const { "webhook-id": id, "webhook-timestamp": ts, "webhook-signature": header } =
    delivery.headers;
  assert.ok(Math.abs(Date.now() / 1000 - Number(ts)) < 300, "a current timestamp");
  const signatures = header.split(" ").filter((s) => s.startsWith("v1a,"));
  assert.equal(signatures.length, 1);
  const signature = Uint8Array.from(atob(signatures[0].slice(4)), (c) => c.charCodeAt(0));
  const content = new TextEncoder().encode(`${id}.${ts}.${delivery.body}`);
  assert.ok(await crypto.subtle.verify("Ed25519", key, signature, content), "v1a verifies");
  const tampered = new TextEncoder().encode(`${id}.${ts}.${delivery.body} `);
  assert.equal(await crypto.subtle.verify("Ed25519", key, signature, tampered), false);
}

Deno.test("[e2e] control.regressed reaches verifying receivers seconds after a failing scan", async () => {
  const receiver = startReceiver();
  await using server = await startTestServer({
    env: { WEBHOOK_ALLOW_PRIVATE: "true" },
    webhookDelivery: FAST,
  });
  try {
    const { call, project } = await setUp(server);
    const collector = await call("POST", `/projects/${project.id}/collectors`, { name: "ci" });
    const secret = collector.body.secret.value;
    const scan = async (critical: number) => {
      const res = await fetch(`${server.baseUrl}/ingest/evidence`, {
        method: "POST",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
        body: JSON.stringify({
          projectId: project.id,
          evidenceType: "vulnerability_scan",
          sourceType: "github_actions",
          sourceRef: "acme/api@refs/heads/main",
          observedAt: new Date(Date.now() - 1000).toISOString(),
          payload: { summary: { critical, high: 0, medium: 0, low: 0 } },
        }),
      });
      assert.equal(res.status, 201, await res.text());
    };
    await scan(0);
    await call("POST", `/projects/${project.id}/evaluations/recompute`);
    assert.equal((await call("POST", `/projects/${project.id}/publish`)).status, 201);
    assert.equal(
      (await call("PATCH", `/projects/${project.id}`, { autoPublish: true })).status,
      200,
    );
    const hooks = `/projects/${project.id}/webhooks`;
    const hmac = await call("POST", hooks, {
      url: receiver.url("/hmac"),
      events: ["control.regressed"],
      signing: "hmac",
    });
    assert.equal(hmac.status, 201, JSON.stringify(hmac.body));
    const ed = await call("POST", hooks, {
      url: receiver.url("/ed25519"),
      events: ["control.regressed", "version.published"],
    });
    assert.equal(ed.status, 201);

    const failedAt = Date.now();
    await scan(2);
    const [viaHmac] = await receiver.next((r) => r.path === "/hmac");
    assert.ok(viaHmac.at - failedAt < 10_000, `arrived ${viaHmac.at - failedAt} ms later`);
    const payload = new StandardWebhook(hmac.body.secret.value).verify(
      viaHmac.body,
      viaHmac.headers,
    ) as { type: string; data: { controls: { key: string; to: string }[]; version: number } };
    assert.equal(payload.type, "control.regressed");
    assert.equal(payload.data.version, 2);
    assert.deepEqual(
      payload.data.controls.filter((c) => c.key === "evidence.vulnerability_scan")
        .map((c) => c.to),
      ["fail"],
    );
    assert.throws(() =>
      new StandardWebhook(hmac.body.secret.value).verify(`${viaHmac.body} `, viaHmac.headers)
    );

    const typeOf = (r: Received) => JSON.parse(r.body).type;
    await receiver.next((r) => r.path === "/ed25519" && typeOf(r) === "control.regressed");
    await receiver.next((r) => r.path === "/ed25519" && typeOf(r) === "version.published");
    const toEd = receiver.received.filter((r) => r.path === "/ed25519");
    for (const delivery of toEd) await verifyEd25519(server, delivery);
    const jwks = await (await fetch(`${server.baseUrl}/.well-known/jwks.json`)).json();
    const jwk = jwks.keys.find((k: { kid: string }) => k.kid === ed.body.webhook.keyId);
    const raw = Uint8Array.from(atob(ed.body.webhook.publicKey.slice(5)), (c) => c.charCodeAt(0));
    assert.equal(btoa(String.fromCharCode(...raw)).length, 44);
    assert.equal(
      jwk.x,
      btoa(String.fromCharCode(...raw)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=/g, ""),
      "whpk_ is the JWKS key",
    );
  } finally {
    await receiver.close();
  }
});

Deno.test("[e2e] a receiver failing three times then succeeding gets one accepted delivery", async () => {
  const receiver = startReceiver({ "/flaky": [500, 503, 500] });
  await using server = await startTestServer({
    env: { WEBHOOK_ALLOW_PRIVATE: "true" },
    webhookDelivery: FAST,
  });
  try {
    const { call, project } = await setUp(server);
    const hook = await call("POST", `/projects/${project.id}/webhooks`, {
      url: receiver.url("/flaky"),
      events: ["version.published"],
    });
    const path = `/projects/${project.id}/webhooks/${hook.body.webhook.id}`;
    assert.equal((await call("POST", `/projects/${project.id}/publish`)).status, 201);
    const requests = await receiver.next((r) => r.answered === 204);
    await new Promise((wake) => setTimeout(wake, 1000));
    assert.equal(receiver.received.filter((r) => r.answered === 204).length, 1);
    assert.deepEqual(receiver.received.map((r) => r.answered), [500, 503, 500, 204]);
    assert.equal(new Set(receiver.received.map((r) => r.headers["webhook-id"])).size, 1);
    assert.equal(requests.length, 1);

    let { body } = await call("GET", `${path}/deliveries`);
    for (let i = 0; i < 50 && body.deliveries[0]?.status !== "delivered"; i++) {
      await new Promise((wake) => setTimeout(wake, 100));
      ({ body } = await call("GET", `${path}/deliveries`));
    }
    assert.equal(body.deliveries.length, 1);
    const [delivery] = body.deliveries;
    assert.equal(delivery.status, "delivered");
    assert.equal(delivery.attemptCount, 4);
    assert.deepEqual(delivery.attempts.map((a: { statusCode: number }) => a.statusCode), [
      500,
      503,
      500,
      204,
    ]);
    assert.match(delivery.attempts[0].error, /answered 500/);
    assert.equal(delivery.messageId, receiver.received[0].headers["webhook-id"]);

    const again = await call("POST", `${path}/deliveries/${delivery.id}/redeliver`);
    assert.equal(again.status, 202);
    await receiver.next(() => true, 5);
    assert.equal(receiver.received[4].headers["webhook-id"], delivery.messageId);
    // The receiver has answered; the attempt is recorded right after, so wait for it (bounded).
    let after = (await call("GET", `${path}/deliveries`)).body.deliveries[0];
    for (let i = 0; i < 50 && after.attempts.length < 5; i++) {
      await new Promise((wake) => setTimeout(wake, 100));
      after = (await call("GET", `${path}/deliveries`)).body.deliveries[0];
    }
    assert.equal(after.attempts.length, 5);
    assert.equal(after.attempts[4].manual, true);
    assert.equal(after.status, "delivered");
  } finally {
    await receiver.close();
  }
});

Deno.test("[e2e] a private address is refused at registration and again at delivery", async () => {
  const receiver = startReceiver();
  const kv = await Deno.openKv(":memory:");
  try {
    // Registered while private addresses were allowed (no queue consumer runs here)…
    const permissive = await startTestServer({
      kv,
      worker: false,
      env: { WEBHOOK_ALLOW_PRIVATE: "true" },
    });
    const { call: allowed, project } = await setUp(permissive);
    const hook = await allowed("POST", `/projects/${project.id}/webhooks`, {
      url: receiver.url("/private"),
      events: ["version.published"],
    });
    assert.equal(hook.status, 201);
    await permissive.close();

    // …then the service runs in production mode.
    await using strict = await startTestServer({ kv, webhookDelivery: FAST });
    const call = api(strict, await strict.tokenFor("owner"));
    const refused = await call("POST", `/projects/${project.id}/webhooks`, {
      url: receiver.url("/again"),
      events: ["version.published"],
    });
    assert.equal(refused.status, 400);
    assert.match(refused.body.error.message, /https/);
    const loopback = await call("POST", `/projects/${project.id}/webhooks`, {
      url: `https://127.0.0.1:${new URL(receiver.url("/")).port}/again`,
      events: ["version.published"],
    });
    assert.equal(loopback.status, 400);
    assert.match(loopback.body.error.message, /non-public/);

    const path = `/projects/${project.id}/webhooks/${hook.body.webhook.id}`;
    const ping = await call("POST", `${path}/test`);
    assert.equal(ping.status, 202);
    let delivery;
    for (let i = 0; i < 50; i++) {
      delivery = (await call("GET", `${path}/deliveries`)).body.deliveries[0];
      if (delivery.status !== "pending") break;
      await new Promise((wake) => setTimeout(wake, 100));
    }
    assert.equal(delivery.status, "failed");
    assert.equal(delivery.attempts.length, 1, "a refused address is not retried");
    assert.match(delivery.attempts[0].error, /must use https/);
    assert.deepEqual(receiver.received, [], "nothing reached the receiver");
  } finally {
    await receiver.close();
    kv.close();
  }
});
