/**
 * Webhook deliveries over https and to hosts with several addresses, end to end: the real
 * service (queue running) delivers to receivers served by `Deno.serve` with certificates from
 * a certificate authority made for the run (tests/support/tls.ts), trusted through the
 * delivery option `caCerts` only; host names come from a real DNS server
 * (tests/support/dns_server.ts) the service is pointed at with DNS_NAMESERVER.
 */
import assert from "node:assert/strict";
import { StandardWebhook } from "../deps.ts";
import { startDnsServer } from "../support/dns_server.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { createTestCa, type TestCertificate } from "../support/tls.ts";

const ca = await createTestCa();
const RETRIES = { retryDelaysMs: [100, 100], jitter: 0, timeoutMs: 3000 };

/** A receiver on 127.0.0.1, over TLS when given a certificate; it answers 204. */
function startReceiver(certificate?: TestCertificate) {
  const received: { path: string; headers: Record<string, string>; body: string }[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {}, ...certificate },
    async (req) => {
      const headers = Object.fromEntries(req.headers);
      received.push({ path: new URL(req.url).pathname, headers, body: await req.text() });
      return new Response(null, { status: 204 });
    },
  );
  return { received, port: server.addr.port, close: () => server.shutdown() };
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

/** A public project with one endpoint at `url`; returns its API caller and paths. */
async function withEndpoint(server: TestServer, url: string, signing = "ed25519") {
  const call = api(server, await server.tokenFor("owner"));
  const boot = await call("POST", "/onboarding/bootstrap", {
    workspaceName: "Acme",
    projectName: "API",
    projectSlug: "acme",
    projectVisibility: "public",
  });
  assert.equal(boot.status, 201);
  const hooks = `/projects/${boot.body.project.id}/webhooks`;
  const hook = await call("POST", hooks, { url, events: ["version.published"], signing });
  assert.equal(hook.status, 201, JSON.stringify(hook.body));
  return { call, hooks, path: `${hooks}/${hook.body.webhook.id}`, created: hook.body };
}

/** Sends a test ping and waits until its delivery is over; returns the delivery. */
async function pingAndWait(call: ReturnType<typeof api>, path: string) {
  assert.equal((await call("POST", `${path}/test`)).status, 202);
  for (let i = 0; i < 100; i++) {
    const [delivery] = (await call("GET", `${path}/deliveries`)).body.deliveries;
    if (delivery.status !== "pending") return delivery;
    await new Promise((wake) => setTimeout(wake, 100));
  }
  throw new Error("The delivery did not finish");
}

Deno.test("[e2e] an https delivery verifies the receiver's certificate and is accepted", async () => {
  const receiver = startReceiver(await ca.issue({ dns: ["localhost"], ip: ["127.0.0.1"] }));
  await using server = await startTestServer({
    env: { WEBHOOK_ALLOW_PRIVATE: "true" },
    webhookDelivery: { ...RETRIES, caCerts: [ca.cert] },
  });
  try {
    const url = `https://localhost:${receiver.port}/secure`;
    const { call, path, created } = await withEndpoint(server, url, "hmac");
    const delivery = await pingAndWait(call, path);
    assert.equal(delivery.status, "delivered", JSON.stringify(delivery.attempts));
    assert.equal(delivery.attempts.length, 1);
    assert.equal(delivery.attempts[0].statusCode, 204);
    assert.equal(receiver.received.length, 1);
    const [request] = receiver.received;
    assert.equal(request.path, "/secure");
    assert.equal(request.headers.host, `localhost:${receiver.port}`);
    const payload = new StandardWebhook(created.secret.value).verify(
      request.body,
      request.headers,
    ) as { type: string };
    assert.equal(payload.type, "webhook.test");
  } finally {
    await receiver.close();
  }
});

Deno.test("[e2e] a certificate for another name is refused, logged and retried per policy", async () => {
  const receiver = startReceiver(await ca.issue({ dns: ["wrong.example"] }));
  await using server = await startTestServer({
    env: { WEBHOOK_ALLOW_PRIVATE: "true" },
    webhookDelivery: { ...RETRIES, caCerts: [ca.cert] },
  });
  try {
    const { call, path } = await withEndpoint(server, `https://localhost:${receiver.port}/x`);
    const delivery = await pingAndWait(call, path);
    assert.equal(delivery.status, "failed");
    assert.equal(delivery.attempts.length, RETRIES.retryDelaysMs.length + 1, "every retry");
    for (const attempt of delivery.attempts) {
      assert.equal(attempt.statusCode, null);
      assert.match(attempt.error, /^TLS handshake with "localhost" failed: .*not valid for name/);
    }
    assert.deepEqual(receiver.received, [], "no request was sent over the refused connection");
  } finally {
    await receiver.close();
  }
});

Deno.test("[e2e] without the test CA among its roots the service refuses the same receiver", async () => {
  const receiver = startReceiver(await ca.issue({ dns: ["localhost"], ip: ["127.0.0.1"] }));
  await using server = await startTestServer({
    env: { WEBHOOK_ALLOW_PRIVATE: "true" },
    webhookDelivery: { ...RETRIES, retryDelaysMs: [] },
  });
  try {
    const { call, path } = await withEndpoint(server, `https://localhost:${receiver.port}/x`);
    const delivery = await pingAndWait(call, path);
    assert.equal(delivery.status, "failed");
    assert.match(
      delivery.attempts[0].error,
      /^TLS handshake with "localhost" failed: .*UnknownIssuer/,
    );
    assert.deepEqual(receiver.received, []);
  } finally {
    await receiver.close();
  }
});

Deno.test("[e2e] plain http to a host that is not loopback is refused, at registration and at delivery", async () => {
  const receiver = startReceiver();
  const dns = await startDnsServer();
  dns.addresses.set("hooks.test", ["127.0.0.1"]);
  await using server = await startTestServer({
    env: { WEBHOOK_ALLOW_PRIVATE: "true", DNS_NAMESERVER: `127.0.0.1:${dns.port}` },
    webhookDelivery: RETRIES,
  });
  try {
    const { call, hooks, path } = await withEndpoint(
      server,
      `http://hooks.test:${receiver.port}/plain`,
    );
    dns.addresses.set("elsewhere.test", ["198.51.100.7"]);
    const refused = await call("POST", hooks, {
      url: "http://elsewhere.test/plain",
      events: ["version.published"],
    });
    assert.equal(refused.status, 400);
    assert.match(refused.body.error.message, /must use https \(http only for loopback/);

    // The name now points at a public address: the next attempt refuses plain http to it.
    dns.addresses.set("hooks.test", ["198.51.100.7"]);
    const delivery = await pingAndWait(call, path);
    assert.equal(delivery.status, "failed");
    assert.equal(delivery.attempts.length, 1, "a refused target is not retried");
    assert.match(delivery.attempts[0].error, /must use https \(http only for loopback/);
    assert.deepEqual(receiver.received, []);
  } finally {
    await receiver.close();
    await dns.close();
  }
});

Deno.test("[e2e] a host with two addresses is reached through the second when the first refuses", async () => {
  const receiver = startReceiver();
  const dns = await startDnsServer();
  // Nothing listens on 127.0.0.2 (the receiver is bound to 127.0.0.1 only): refused.
  dns.addresses.set("hooks.test", ["127.0.0.2", "127.0.0.1"]);
  await using server = await startTestServer({
    env: { WEBHOOK_ALLOW_PRIVATE: "true", DNS_NAMESERVER: `127.0.0.1:${dns.port}` },
    webhookDelivery: RETRIES,
  });
  try {
    const url = `http://hooks.test:${receiver.port}/two`;
    const { call, path } = await withEndpoint(server, url);
    const delivery = await pingAndWait(call, path);
    assert.equal(delivery.status, "delivered", JSON.stringify(delivery.attempts));
    assert.equal(delivery.attempts.length, 1, "one attempt, through the second address");
    assert.equal(receiver.received.length, 1);
    assert.equal(receiver.received[0].headers.host, `hooks.test:${receiver.port}`);
  } finally {
    await receiver.close();
    await dns.close();
  }
});
