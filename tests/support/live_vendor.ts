/**
 * A vendor set up on running service processes, for the live-layer end-to-end tests: an
 * account, a public project with a collector, evidence, subscribers and webhooks, plus a
 * webhook receiver that records every delivery.
 */
import assert from "node:assert/strict";
import { login, signUp } from "./builtin_login.ts";
import type { ServiceProcess } from "./process.ts";
import type { TestSmtp } from "./smtp.ts";

export const ACCOUNT = { email: "ops@acme.test", name: "Ops", password: "live work passphrase" };

/** One delivery as the receiver saw it. */
export interface Received {
  at: number;
  path: string;
  id: string;
  type: string;
  status: number;
  body: string;
  headers: Record<string, string>;
}

/** A webhook receiver on 127.0.0.1; `answer` decides each response's status. */
export function startReceiver(answer: (r: Omit<Received, "status">) => number = () => 204) {
  const received: Received[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const body = await req.text();
    const seen = {
      at: Date.now(),
      path: new URL(req.url).pathname,
      id: req.headers.get("webhook-id") ?? "",
      type: (JSON.parse(body) as { type: string }).type,
      body,
      headers: Object.fromEntries(req.headers),
    };
    const status = answer(seen);
    received.push({ ...seen, status });
    return new Response(null, { status });
  });
  return {
    received,
    url: (path: string) => `http://127.0.0.1:${server.addr.port}${path}`,
    /** Waits (bounded) until `count` deliveries match. */
    async waitFor(match: (r: Received) => boolean, count = 1, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const found = received.filter(match);
        if (found.length >= count) return found;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`Timed out waiting for ${count} deliveries; got ${JSON.stringify(received)}`);
    },
    close: () => server.shutdown(),
  };
}

export type Call = (
  method: string,
  path: string,
  body?: unknown,
  // deno-lint-ignore no-explicit-any
) => Promise<{ status: number; body: any }>;

/** JSON calls with a bearer token to one of `bases` (round robin unless `base` is given). */
export function caller(bases: string[], token: string): Call {
  let next = 0;
  return async (method, path, body) => {
    const base = bases[next++ % bases.length];
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
}

/** Creates the first account on a fresh service and signs in; the access token. */
export async function firstAccount(service: ServiceProcess, base: string): Promise<string> {
  const setup = (await service.waitFor(/\/signup\?setup=/)).trim();
  const res = await signUp(base, new URL(setup).search.slice(1), ACCOUNT);
  await res.body?.cancel();
  return (await login(base, ACCOUNT)).access_token;
}

/** The public project "acme" with a collector; its id and the collector's secret. */
export async function acmeProject(call: Call): Promise<{ projectId: string; secret: string }> {
  const boot = await call("POST", "/onboarding/bootstrap", {
    workspaceName: "Acme",
    projectName: "Acme Cloud",
    projectSlug: "acme",
    projectVisibility: "public",
  });
  assert.equal(boot.status, 201, JSON.stringify(boot.body));
  const projectId: string = boot.body.project.id;
  const collector = await call("POST", `/projects/${projectId}/collectors`, { name: "ci" });
  assert.equal(collector.status, 201);
  return { projectId, secret: collector.body.secret.value };
}

/** Sends a vulnerability scan summary with `critical` findings through `base`. */
export async function sendScan(
  base: string,
  target: { projectId: string; secret: string },
  critical: number,
) {
  const res = await fetch(`${base}/ingest/evidence`, {
    method: "POST",
    headers: { authorization: `Bearer ${target.secret}`, "content-type": "application/json" },
    body: JSON.stringify({
      projectId: target.projectId,
      evidenceType: "vulnerability_scan",
      sourceType: "github_actions",
      sourceRef: "acme/api@refs/heads/main",
      observedAt: new Date(Date.now() - 1000).toISOString(),
      payload: { summary: { critical, high: 0, medium: 0, low: 0 } },
    }),
  });
  // 200: the same payload again, stored once (content-addressed).
  assert.ok(res.status === 201 || res.status === 200, await res.text());
}

/** The public trust.json of "acme" (null before the first version). */
export async function publishedProfile(base: string) {
  const res = await fetch(`${base}/trust/acme/trust.json`);
  if (res.status !== 200) {
    await res.body?.cancel();
    return null;
  }
  return await res.json() as {
    version: number;
    publishedAt: string;
    controls: Array<{ key: string; state: string }>;
  };
}

/** Waits (bounded) for `probe` to return a value. */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | null | undefined>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== null && value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`Timed out waiting for ${what}`);
}

/** Subscribes `email` to the acme page and confirms from the emailed link. */
export async function confirmedSubscriber(base: string, smtp: TestSmtp, email: string) {
  const res = await fetch(`${base}/trust/acme/subscriptions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email }),
  });
  assert.equal(res.status, 202, await res.text());
  const mail = await smtp.next((m) => JSON.stringify(m.to ?? "").includes(email), 20_000);
  const link = (mail.text ?? "").match(
    /https?:\/\/[^\s]+\/subscriptions\/confirm\/[A-Za-z0-9._-]+/,
  );
  assert.ok(link, `no confirmation link in ${mail.text}`);
  const path = new URL(link[0]).pathname;
  const confirmed = await fetch(`${base}${path}`, { method: "POST" });
  assert.equal(confirmed.status, 200);
  await confirmed.body?.cancel();
}
