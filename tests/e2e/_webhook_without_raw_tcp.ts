/**
 * The child of tests/e2e/webhooks_without_raw_tcp_test.ts: run with
 * tests/support/refuse_raw_connect.ts preloaded, it makes the webhook attempts listed in
 * WEBHOOK_CASES (JSON) and prints `RESULT <json>` with what each came to. WEBHOOK_CA is the PEM
 * root the receivers' certificates chain to.
 *
 * - `service`: the real service (queue running) with WEBHOOK_ALLOW_PRIVATE as given, and host
 *   names from a DNS server answering `dns`: registers an endpoint at `url` (HMAC signing), sends
 *   a test ping and reports the registration, the secret and the finished delivery.
 * - `post`: `postWebhook` alone, on a target `checkTarget` accepted, or, given `addresses`, on
 *   one that stands for a check that saw those addresses. Its resolver answers `answers` in turn
 *   (the last one again and again), so a name can change between two checks.
 */
import { postWebhook } from "../../src/push/webhook_http.ts";
import {
  type CheckedTarget,
  checkTarget,
  type HostResolver,
  TargetRefused,
} from "../../src/push/webhook_target.ts";
import { startDnsServer } from "../support/dns_server.ts";
import { startTestServer } from "../support/server.ts";

export type WebhookCase =
  | { kind: "service"; url: string; allowPrivate: boolean; dns?: Record<string, string[]> }
  | {
    kind: "post";
    url: string;
    allowPrivate: boolean;
    addresses?: string[];
    answers?: string[][];
  };

const caCerts = [Deno.env.get("WEBHOOK_CA")!];
const TIMEOUT_MS = 3000;

function resolverOf(answers: string[][] = [[]]): HostResolver & { asked: number } {
  const resolver = {
    asked: 0,
    resolve: () => Promise.resolve(answers[Math.min(resolver.asked++, answers.length - 1)]),
  };
  return resolver;
}

async function post(c: Extract<WebhookCase, { kind: "post" }>) {
  const resolver = resolverOf(c.answers);
  const policy = { allowPrivate: c.allowPrivate, resolver };
  let target: CheckedTarget;
  if (c.addresses) {
    target = { url: new URL(c.url), addresses: c.addresses, policy };
  } else {
    try {
      target = await checkTarget(c.url, policy);
    } catch (error) {
      if (!(error instanceof TargetRefused)) throw error;
      return { refused: error.message };
    }
  }
  const outcome = await postWebhook(target, {
    headers: { "content-type": "application/json" },
    body: "{}",
    timeoutMs: TIMEOUT_MS,
    caCerts,
  });
  return { outcome, resolverAsked: resolver.asked };
}

async function service(c: Extract<WebhookCase, { kind: "service" }>) {
  const dns = await startDnsServer();
  for (const [name, addresses] of Object.entries(c.dns ?? {})) dns.addresses.set(name, addresses);
  try {
    await using server = await startTestServer({
      env: {
        WEBHOOK_ALLOW_PRIVATE: String(c.allowPrivate),
        DNS_NAMESERVER: `127.0.0.1:${dns.port}`,
      },
      webhookDelivery: { retryDelaysMs: [], jitter: 0, timeoutMs: TIMEOUT_MS, caCerts },
    });
    const token = await server.tokenFor("owner");
    const call = async (method: string, path: string, json?: unknown) => {
      const res = await fetch(`${server.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: json === undefined ? undefined : JSON.stringify(json),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    };
    const boot = await call("POST", "/onboarding/bootstrap", {
      workspaceName: "Acme",
      projectName: "API",
      projectSlug: "acme",
      projectVisibility: "public",
    });
    if (boot.status !== 201) throw new Error(`bootstrap: ${JSON.stringify(boot.body)}`);
    const hooks = `/projects/${boot.body.project.id}/webhooks`;
    const registration = await call("POST", hooks, {
      url: c.url,
      events: ["version.published"],
      signing: "hmac",
    });
    if (registration.status !== 201) return { registration };
    const path = `${hooks}/${registration.body.webhook.id}`;
    const ping = await call("POST", `${path}/test`);
    if (ping.status !== 202) throw new Error(`test ping: ${JSON.stringify(ping.body)}`);
    for (let i = 0; i < 100; i++) {
      const [delivery] = (await call("GET", `${path}/deliveries`)).body.deliveries;
      if (delivery.status !== "pending") {
        return { registration: { status: 201 }, secret: registration.body.secret.value, delivery };
      }
      await new Promise((wake) => setTimeout(wake, 100));
    }
    throw new Error("The delivery did not finish");
  } finally {
    await dns.close();
  }
}

const cases = JSON.parse(Deno.env.get("WEBHOOK_CASES") ?? "[]") as WebhookCase[];
const results = [];
for (const c of cases) results.push(c.kind === "post" ? await post(c) : await service(c));
console.log(`RESULT ${JSON.stringify(results)}`);
Deno.exit(0);
