/**
 * One tenant cannot slow another, on a real service process (KV queues unavailable, as on
 * Deno Deploy). Tenant A, a vendor with a public project, is flooded the way an outside review
 * did it: two accounts that are not members register 40 webhooks on A's project pointing at a
 * server that accepts connections and never answers, and send 600 test pings in about a
 * second; on top, thousands of due jobs of A wait in the store (2 000 deliveries to those
 * endpoints and 1 000 render jobs, written into the service's KV file as a backlog of events
 * would leave them). Meanwhile tenant B, another organization, sends a failing scan: its
 * automatic publish and its webhook must arrive within a generous bound (printed; the bound is
 * a liveness check, timing on two busy cores is noise), and /health/ready must stay ready.
 */
import assert from "node:assert/strict";
import { newDelivery } from "../../src/push/webhook_fanout.ts";
import { withKvRetry } from "../../src/store/kv_retry.ts";
import { insertJob } from "../../src/store/jobs.ts";
import { createDelivery } from "../../src/store/webhook_deliveries.ts";
import { getWebhook } from "../../src/store/webhooks.ts";
import { login, signUp } from "../support/builtin_login.ts";
import { caller, sendScan, startReceiver } from "../support/live_vendor.ts";
import { freePort, NO_KV_QUEUES, startService } from "../support/process.ts";

/** B's publish and webhook must come within this (the review measured about 215 s). */
const BOUND_MS = 30_000;
const FLOOD_DELIVERIES = 2_000;
const FLOOD_RENDERS = 1_000;
const PINGS = 600;

/** A server that accepts connections and never answers. */
function startSilentServer() {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns: Deno.Conn[] = [];
  (async () => {
    for await (const conn of listener) conns.push(conn);
  })().catch(() => {});
  const { port } = listener.addr as Deno.NetAddr;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    connections: () => conns.length,
    close() {
      listener.close();
      for (const conn of conns) {
        try {
          conn.close();
        } catch {
          // Closed by the client's timeout already.
        }
      }
    },
  };
}

async function account(base: string, email: string): Promise<string> {
  const credentials = { email, name: email.split("@")[0], password: "fairness passphrase" };
  (await signUp(base, "", credentials)).body?.cancel();
  return (await login(base, credentials)).access_token;
}

async function betaVersion(base: string) {
  const res = await fetch(`${base}/trust/beta/trust.json`);
  if (res.status !== 200) {
    await res.body?.cancel();
    return null;
  }
  const profile = await res.json();
  const scan = profile.controls.find((c: { key: string }) =>
    c.key === "evidence.vulnerability_scan"
  );
  return { version: profile.version as number, state: scan?.state as string };
}

Deno.test("[e2e] a flood of one tenant's work does not hold up another tenant's publish and webhook", async () => {
  const dir = await Deno.makeTempDir();
  const silent = startSilentServer();
  const healthy = startReceiver();
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const kvPath = `${dir}/kv.sqlite3`;
  const service = startService({
    PORT: String(port),
    KV_PATH: kvPath,
    BASE_URL: base,
    WEBHOOK_ALLOW_PRIVATE: "true",
    SIGNUP: "open",
  }, { preload: NO_KV_QUEUES });
  let kv: Deno.Kv | null = null;
  const ready: number[] = [];
  let watching = true;
  let watcher: Promise<void> = Promise.resolve();
  try {
    await service.waitFor(/^Live work: /);
    const owner = caller([base], await account(base, "owner@acme.test"));

    // Tenant A: a vendor with a public project.
    const boot = await owner("POST", "/onboarding/bootstrap", {
      workspaceName: "Acme",
      projectName: "Acme Cloud",
      projectSlug: "acme",
      projectVisibility: "public",
    });
    assert.equal(boot.status, 201, JSON.stringify(boot.body));
    const acme = boot.body.project.id as string;

    // Tenant B: another organization, publishing by itself.
    const org = await owner("POST", "/organizations", { name: "Beta" });
    assert.equal(org.status, 201, JSON.stringify(org.body));
    const made = await owner("POST", "/projects", {
      organizationId: org.body.organization.id,
      name: "Beta API",
      slug: "beta",
      visibility: "public",
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const beta = made.body.project.id as string;
    const collector = await owner("POST", `/projects/${beta}/collectors`, { name: "ci" });
    const target = { projectId: beta, secret: collector.body.secret.value as string };
    await sendScan(base, target, 0);
    assert.equal((await owner("POST", `/projects/${beta}/publish`)).status, 201);
    assert.equal((await owner("PATCH", `/projects/${beta}`, { autoPublish: true })).status, 200);
    const betaHook = await owner("POST", `/projects/${beta}/webhooks`, {
      url: healthy.url("/beta"),
      events: ["version.published"],
    });
    assert.equal(betaHook.status, 201);

    // The flood: 40 endpoints that never answer, registered by two accounts that are not members.
    const attackers = [
      caller([base], await account(base, "mallory@evil.test")),
      caller([base], await account(base, "trudy@evil.test")),
    ];
    const hooks: Array<{ id: string; call: typeof owner }> = [];
    for (let i = 0; i < 40; i++) {
      const call = attackers[i % 2];
      const res = await call("POST", `/projects/${acme}/webhooks`, {
        url: silent.url(`/hook-${i}`),
        events: ["version.published", "control.regressed", "control.recovered"],
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      hooks.push({ id: res.body.webhook.id, call });
    }
    watcher = (async () => {
      while (watching) {
        const res = await fetch(`${base}/health/ready`);
        ready.push(res.status);
        if (res.status !== 200) console.log(`not ready: ${await res.text()}`);
        else await res.body?.cancel();
        await new Promise((r) => setTimeout(r, 250));
      }
    })();

    const pingsStarted = performance.now();
    const statuses = await Promise.all(Array.from({ length: PINGS }, (_, i) => {
      const { id, call } = hooks[i % hooks.length];
      return call("POST", `/projects/${acme}/webhooks/${id}/test`).then((r) => r.status);
    }));
    const accepted = statuses.filter((s) => s === 202).length;
    const limited = statuses.filter((s) => s === 429).length;
    console.log(
      `${PINGS} pings in ${
        Math.round(performance.now() - pingsStarted)
      } ms: ${accepted} queued, ${limited} answered 429`,
    );
    assert.equal(accepted + limited, PINGS);
    assert.ok(accepted <= 30, "at most 30 pings a minute per project");

    // Thousands of A's jobs, due now, written into the service's own KV file.
    kv = withKvRetry(await Deno.openKv(kvPath));
    const records = await Promise.all(hooks.map((h) => getWebhook(kv!, acme, h.id)));
    const now = new Date();
    for (let i = 0; i < FLOOD_DELIVERIES; i++) {
      const webhook = records[i % records.length]!;
      const delivery = newDelivery(webhook, {
        messageId: `flood-${i}`,
        now,
        payload: {
          type: "version.published",
          timestamp: now.toISOString(),
          data: { organizationId: webhook.organizationId, projectId: acme, flood: i },
        },
      });
      await createDelivery(kv, delivery, `flood-${i}`);
    }
    for (let i = 0; i < FLOOD_RENDERS; i++) {
      await insertJob(kv, { kind: "edge.render", organizationId: records[0]!.organizationId }, {
        now,
      });
    }
    console.log(`${FLOOD_DELIVERIES + FLOOD_RENDERS} jobs of tenant A are due`);

    // Tenant B's change, while A's flood is under way.
    const changed = performance.now();
    await sendScan(base, target, 2);
    let published = NaN;
    for (let i = 0; i < BOUND_MS / 100; i++) {
      const v = await betaVersion(base);
      if (v && v.version >= 2 && v.state === "fail") {
        published = performance.now() - changed;
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const [delivered] = await healthy.waitFor(
      (r) => r.path === "/beta" && JSON.parse(r.body).data.version === 2,
      1,
      Math.max(1_000, BOUND_MS - (performance.now() - changed)),
    );
    console.log(
      `tenant B: failing scan published after ${Math.round(published)} ms, its webhook after ${
        Math.round(delivered.at - (Date.now() - (performance.now() - changed)))
      } ms (bound ${BOUND_MS} ms); the never-answering server saw ${silent.connections()} connections`,
    );
    assert.ok(Number.isFinite(published), `B's version 2 was not published within ${BOUND_MS} ms`);
    watching = false;
    await watcher;
    assert.ok(ready.length > 0);
    assert.deepEqual(ready.filter((s) => s !== 200), [], "/health/ready stayed ready");
    const live = await (await fetch(`${base}/health/ready`)).json();
    console.log(`readiness: ${JSON.stringify({ oldest: live.oldestDueSeconds, ...live.backlog })}`);
    assert.ok(live.backlog.tenants >= 1, "A's backlog is reported apart");
  } finally {
    watching = false;
    await watcher.catch(() => {});
    kv?.close();
    await service.stop();
    silent.close();
    await healthy.close();
    await Deno.remove(dir, { recursive: true });
  }
});
