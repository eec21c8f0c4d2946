/**
 * Webhook deliveries where the platform refuses raw TCP towards the receiver's port, as Deno
 * Deploy Classic did for 443: a child process (tests/e2e/_webhook_without_raw_tcp.ts) runs with
 * tests/support/refuse_raw_connect.ts preloaded, refusing `Deno.connect`/`Deno.startTls` to the
 * receivers' random ports (standing for 443), and `Deno.connectTls` too when a test says so. The
 * receivers are real HTTPS servers here, with certificates from a throwaway CA
 * (tests/support/tls.ts) the child trusts through the delivery option `caCerts` only.
 */
import assert from "node:assert/strict";
import { StandardWebhook } from "../deps.ts";
import { createTestCa, type TestCertificate } from "../support/tls.ts";
import type { WebhookCase } from "./_webhook_without_raw_tcp.ts";

const ca = await createTestCa();
const CHILD = new URL("./_webhook_without_raw_tcp.ts", import.meta.url).pathname;
const PRELOAD = new URL("../support/refuse_raw_connect.ts", import.meta.url).pathname;
const ROOT = new URL("../../", import.meta.url).pathname;
const LOCK = new URL("../deno.lock", import.meta.url).pathname;
/** A public address the checks may see; nothing ever connects to it (its port is refused). */
const PUBLIC = "9.9.9.9";

/** An HTTPS receiver on 127.0.0.1 (random port) that answers 204. */
function startReceiver(certificate: TestCertificate) {
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

// deno-lint-ignore no-explicit-any
type Result = any;

/** Runs the cases in the child with raw TCP refused to `rawPorts` (and TLS to `tlsPorts`). */
async function runChild(
  cases: WebhookCase[],
  refused: { rawPorts: number[]; tlsPorts?: number[] },
): Promise<{ results: Result[]; stderr: string }> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `--lock=${LOCK}`, "--preload", PRELOAD, CHILD],
    cwd: ROOT,
    env: {
      NO_COLOR: "1",
      WEBHOOK_CA: ca.cert,
      WEBHOOK_CASES: JSON.stringify(cases),
      REFUSE_RAW_CONNECT_PORTS: [...refused.rawPorts, 443, 25, 465, 587].join(","),
      REFUSE_CONNECT_TLS_PORTS: (refused.tlsPorts ?? []).join(","),
    },
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(60_000),
  }).output();
  const out = new TextDecoder().decode(stdout);
  const err = new TextDecoder().decode(stderr);
  const line = out.split("\n").find((l) => l.startsWith("RESULT "));
  assert.equal(code, 0, `the child failed:\n${out}\n${err}`);
  assert.ok(line, `no result from the child:\n${out}\n${err}`);
  return { results: JSON.parse(line.slice("RESULT ".length)), stderr: err };
}

function assertSignedPing(
  receiver: ReturnType<typeof startReceiver>,
  result: Result,
  path: string,
) {
  assert.equal(result.delivery.status, "delivered", JSON.stringify(result.delivery.attempts));
  assert.equal(result.delivery.attempts.length, 1);
  assert.equal(result.delivery.attempts[0].statusCode, 204);
  const requests = receiver.received.filter((r) => r.path === path);
  assert.equal(requests.length, 1);
  const [request] = requests;
  assert.equal(request.headers.host, `localhost:${receiver.port}`);
  const payload = new StandardWebhook(result.secret).verify(request.body, request.headers) as {
    type: string;
  };
  assert.equal(payload.type, "webhook.test");
}

Deno.test("[e2e] raw TCP refused: delivery goes by Deno.connectTls, checks the peer and the certificate's name", async () => {
  const good = startReceiver(await ca.issue({ dns: ["localhost"], ip: ["127.0.0.1"] }));
  const wrong = startReceiver(await ca.issue({ dns: ["wrong.example"] }));
  try {
    const { results, stderr } = await runChild([
      { kind: "service", url: `https://localhost:${good.port}/hook`, allowPrivate: true },
      { kind: "post", url: `https://localhost:${wrong.port}/wrong`, allowPrivate: true },
      // The check saw a public address; Deno's own lookup of the name gives 127.0.0.1.
      {
        kind: "post",
        url: `https://localhost:${good.port}/rebound`,
        allowPrivate: false,
        addresses: [PUBLIC],
      },
      // WEBHOOK_ALLOW_PRIVATE off: a name resolving to 127.0.0.1 is not even registered.
      {
        kind: "service",
        url: `https://hooks.test:${good.port}/private`,
        allowPrivate: false,
        dns: { "hooks.test": ["127.0.0.1"] },
      },
    ], { rawPorts: [good.port, wrong.port] });
    const [delivered, wrongName, rebound, privateName] = results;

    assertSignedPing(good, delivered, "/hook");
    assert.match(stderr, new RegExp(`Refused here: Deno.connect to 127.0.0.1:${good.port}\\b`));

    assert.equal(wrongName.outcome.statusCode, null);
    assert.match(wrongName.outcome.error, /^TLS handshake with "localhost" failed: .*not valid/);
    assert.deepEqual(wrong.received, [], "nothing was sent over the refused certificate");

    assert.equal(rebound.outcome.statusCode, null);
    assert.match(
      rebound.outcome.error,
      /^The connection to "localhost" reached 127\.0\.0\.1, a loopback.*; nothing was sent$/,
    );
    assert.match(stderr, new RegExp(`Refused here: Deno.connect to ${PUBLIC}:${good.port}\\b`));

    assert.equal(privateName.registration.status, 400);
    assert.match(privateName.registration.body.error.message, /resolves to 127\.0\.0\.1/);
    assert.deepEqual(
      good.received.map((r) => r.path),
      ["/hook"],
      "only the allowed delivery arrived",
    );
  } finally {
    await good.close();
    await wrong.close();
  }
});

Deno.test("[e2e] raw TCP and connectTls refused: fetch delivers after checking the name again", async () => {
  const good = startReceiver(await ca.issue({ dns: ["localhost"], ip: ["127.0.0.1"] }));
  const wrong = startReceiver(await ca.issue({ dns: ["wrong.example"] }));
  try {
    const ports = [good.port, wrong.port];
    const { results, stderr } = await runChild([
      { kind: "service", url: `https://localhost:${good.port}/hook`, allowPrivate: true },
      { kind: "post", url: `https://localhost:${wrong.port}/wrong`, allowPrivate: true },
      // DNS rebinding: public to the attempt's check, 127.0.0.1 to the check just before fetch.
      {
        kind: "post",
        url: `https://hooks.test:${good.port}/rebound`,
        allowPrivate: false,
        answers: [[PUBLIC], ["127.0.0.1"]],
      },
      // The check saw a public address; the name, checked again, is loopback.
      {
        kind: "post",
        url: `https://localhost:${good.port}/localhost`,
        allowPrivate: false,
        addresses: [PUBLIC],
      },
    ], { rawPorts: ports, tlsPorts: ports });
    const [delivered, wrongName, rebound, localhost] = results;

    assertSignedPing(good, delivered, "/hook");
    assert.match(stderr, new RegExp(`Refused here: Deno.connect to 127.0.0.1:${good.port}\\b`));
    assert.match(stderr, new RegExp(`Refused here: Deno.connectTls to localhost:${good.port}\\b`));

    assert.equal(wrongName.outcome.statusCode, null);
    assert.match(wrongName.outcome.error, /not valid for name "localhost"|NotValidForName/);
    assert.deepEqual(wrong.received, [], "nothing was sent over the refused certificate");

    assert.equal(rebound.outcome.statusCode, null);
    assert.equal(rebound.resolverAsked, 2, "checked by the attempt, then again before fetch");
    assert.match(
      rebound.outcome.error,
      /^Checked again: The webhook host resolves to 127\.0\.0\.1/,
    );

    assert.equal(localhost.outcome.statusCode, null);
    assert.match(
      localhost.outcome.error,
      /^Checked again: The webhook host resolves to 127\.0\.0\.1/,
    );
    assert.deepEqual(
      good.received.map((r) => r.path),
      ["/hook"],
      "only the allowed delivery arrived",
    );
  } finally {
    await good.close();
    await wrong.close();
  }
});
