/**
 * postWebhook over a host's several checked addresses: the next address is tried only when a
 * connection cannot be made, never after an HTTP answer or a connection that stays silent,
 * and everything stays within the attempt's budget.
 */
import assert from "node:assert/strict";
import { postWebhook } from "../../src/push/webhook_http.ts";
import { createTestCa } from "../support/tls.ts";

const options = { headers: { "content-type": "application/json" }, body: "{}", timeoutMs: 2000 };

/** Serves `status` on `hostname` (port 0: any), counting requests. */
function serve(hostname: string, status: number, port = 0) {
  let requests = 0;
  const server = Deno.serve({ hostname, port, onListen: () => {} }, () => {
    requests++;
    return new Response(null, { status });
  });
  return { port: server.addr.port, requests: () => requests, close: () => server.shutdown() };
}

Deno.test("[push] postWebhook(): an HTTP error from the first address is the outcome: the second is not tried", async () => {
  const first = serve("127.0.0.1", 500);
  const second = serve("127.0.0.2", 204, first.port);
  try {
    const url = new URL(`http://hooks.test:${first.port}/`);
    const outcome = await postWebhook({ url, addresses: ["127.0.0.1", "127.0.0.2"] }, options);
    assert.equal(outcome.statusCode, 500);
    assert.equal(outcome.error, null);
    assert.equal(first.requests(), 1);
    assert.equal(second.requests(), 0);
  } finally {
    await first.close();
    await second.close();
  }
});

Deno.test("[push] postWebhook(): when every address refuses, the error names each of them", async () => {
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = probe.addr.port;
  probe.close();
  const url = new URL(`http://hooks.test:${port}/`);
  const outcome = await postWebhook({ url, addresses: ["127.0.0.2", "127.0.0.3"] }, options);
  assert.equal(outcome.statusCode, null);
  assert.match(outcome.error!, /^Could not connect to 127\.0\.0\.2: .+; 127\.0\.0\.3: .+/);
});

Deno.test("[push] postWebhook(): a first address that accepts but never answers uses the budget; no second try", async () => {
  const silent = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of silent) held.push(conn);
  })();
  const other = serve("127.0.0.2", 204, silent.addr.port);
  try {
    const url = new URL(`http://hooks.test:${silent.addr.port}/`);
    const started = performance.now();
    const outcome = await postWebhook({ url, addresses: ["127.0.0.1", "127.0.0.2"] }, {
      ...options,
      timeoutMs: 500,
    });
    const took = performance.now() - started;
    assert.equal(outcome.statusCode, null);
    assert.match(outcome.error!, /No answer within/);
    assert.ok(took >= 450 && took < 1500, `took ${took} ms`);
    assert.equal(other.requests(), 0);
  } finally {
    silent.close();
    await accepting.catch(() => {});
    held.forEach((conn) => conn.close());
    await other.close();
  }
});

Deno.test("[push] postWebhook(): https where raw TCP is allowed takes the pinned path (TCP to the checked address)", async () => {
  const ca = await createTestCa();
  const certificate = await ca.issue({ dns: ["hooks.test"] });
  let requests = 0;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {}, ...certificate },
    () => {
      requests++;
      return new Response(null, { status: 204 });
    },
  );
  try {
    // hooks.test resolves nowhere but in this target: only a connection to its checked
    // address, with the name used for TLS, can reach the receiver.
    const url = new URL(`https://hooks.test:${server.addr.port}/`);
    const outcome = await postWebhook(
      { url, addresses: ["127.0.0.1"] },
      { ...options, caCerts: [ca.cert] },
    );
    assert.deepEqual([outcome.statusCode, outcome.error, outcome.path], [204, null, "pinned"]);
    assert.equal(requests, 1);
  } finally {
    await server.shutdown();
  }
});
