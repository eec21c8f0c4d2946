/**
 * No silent loss on Deno Deploy (docs/deploy.md): an app with no KV database assigned gets a
 * `Deno.openKv()` backed by the isolate's memory (denoland/deploy_feedback#905), emulated here by
 * the Deploy preload opening `:memory:` as the app's database in each process. Under it, deploy.ts
 * refuses to create accounts and to accept evidence (503 in the error envelope, naming what to
 * do), says so in one log line, in `/health/ready` and on the first-run page, in every isolate.
 * With a database assigned (one KV file shared by the processes), the second isolate proves it
 * persistent and sign-up opens; `KV_PERSISTENCE=assigned` opens it from the first.
 */
import assert from "node:assert/strict";
import { signUp } from "../support/builtin_login.ts";
import {
  DEPLOY_DENO_VERSION,
  type DeployHost,
  README_DENO_VERSION,
  startDeployHost,
} from "../support/deploy_host.ts";

const ACCOUNT = {
  email: "owner@acme.test",
  name: "Owner",
  password: "correct horse battery staple",
};

async function readiness(host: DeployHost) {
  const res = await fetch(`${host.url}/health/ready`);
  return { status: res.status, body: await res.json() };
}

/** The refusals every isolate on an unproven database answers. */
async function assertRefused(host: DeployHost) {
  const ready = await readiness(host);
  assert.equal(ready.status, 503, JSON.stringify(ready.body));
  assert.equal(ready.body.storage.state, "unproven");
  assert.equal(ready.body.storage.writable, false);
  assert.match(ready.body.storage.action, /Assign a Deno KV database to the app/);
  assert.ok(ready.body.problems.includes(ready.body.storage.action));
  // The dashboard reads it from its settings (200 whatever readiness says) for its banner.
  const settings = await (await fetch(`${host.url}/dashboard/config.json`)).json();
  assert.equal(settings.storage.writable, false);
  assert.equal(settings.storage.action, ready.body.storage.action);

  const page = await fetch(`${host.url}/signup?setup=anything`);
  assert.equal(page.status, 503);
  assert.equal(page.headers.get("retry-after"), "60");
  assert.match(await page.text(), /Assign a Deno KV database to the app/);

  const form = await fetch(`${host.url}/signup`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      setup: "x",
      csrf: "x",
      email: "a@b.test",
      name: "A",
      password: "x",
    }),
  });
  assert.equal(form.status, 503);
  const envelope = await form.json();
  assert.equal(envelope.error.code, "unavailable");
  assert.match(envelope.error.message, /KV_PERSISTENCE=assigned/);

  for (const path of ["/ingest/evidence", "/ingest/evidence/batch"]) {
    const res = await fetch(`${host.url}${path}`, {
      method: "POST",
      headers: { authorization: "Bearer tp_collector_x", "content-type": "application/json" },
      body: "{}",
    });
    assert.equal(res.status, 503, path);
    assert.equal((await res.json()).error.code, "unavailable");
    assert.equal(res.headers.get("cache-control"), "no-store");
  }
  // Reading goes on: the process answers.
  assert.equal((await fetch(`${host.url}/health`)).status, 200);
}

for (const version of [DEPLOY_DENO_VERSION, README_DENO_VERSION]) {
  Deno.test(`[e2e] deploy storage: per-isolate memory KV refuses accounts and evidence in every isolate (Deno ${version})`, async () => {
    await using host = await startDeployHost({
      denoVersion: version,
      env: { DEPLOY_TEST_KV: ":memory:", KV_PERSISTENCE: "" },
    });
    try {
      await assertRefused(host);
      const lines = host.lines.filter((l) => l.startsWith("Storage: NOT PERSISTENT"));
      assert.equal(lines.length, 1, host.lines.join("\n"));
      assert.ok(!host.lines.some((l) => /one-time link/.test(l)), "no setup link is offered");

      // The next cold start: a new isolate, whose memory is empty again.
      await host.idleNow();
      await assertRefused(host);
      assert.equal(host.starts, 2);
      const after = host.lines.filter((l) => l.startsWith("Storage: NOT PERSISTENT"));
      assert.equal(after.length, 2, "one line per isolate");
    } catch (error) {
      console.log(host.lines.slice(-60).join("\n"));
      throw error;
    }
  });
}

Deno.test("[e2e] deploy storage: an assigned database is proven by the second isolate, then sign-up opens", async () => {
  await using host = await startDeployHost({ env: { KV_PERSISTENCE: "" } });
  try {
    await assertRefused(host);
    await host.idleNow();
    const ready = await readiness(host);
    assert.equal(host.starts, 2);
    assert.equal(ready.body.storage.state, "proven", JSON.stringify(ready.body));
    assert.equal(ready.body.storage.writable, true);
    assert.equal(ready.status, 200, JSON.stringify(ready.body));
    assert.ok(
      host.lines.some((l) => /^Storage: the app's Deno KV database, proven persistent/.test(l)),
    );
    const setup = (await host.waitFor(/\/signup\?setup=/)).trim();
    const signedUp = await signUp(host.url, new URL(setup).search.slice(1), ACCOUNT);
    assert.equal(signedUp.status, 303);
    await signedUp.body?.cancel();
  } catch (error) {
    console.log(host.lines.slice(-60).join("\n"));
    throw error;
  }
});

Deno.test("[e2e] deploy storage: KV_PERSISTENCE=assigned opens sign-up from the first isolate, said in the log", async () => {
  await using host = await startDeployHost({ env: { KV_PERSISTENCE: "assigned" } });
  const ready = await readiness(host);
  assert.equal(ready.body.storage.state, "acknowledged");
  assert.equal(ready.status, 200, JSON.stringify(ready.body));
  assert.ok(
    host.lines.some((l) =>
      /^Storage: KV_PERSISTENCE=assigned: accepted on the operator's word/.test(l)
    ),
  );
  const setup = (await host.waitFor(/\/signup\?setup=/)).trim();
  const signedUp = await signUp(host.url, new URL(setup).search.slice(1), ACCOUNT);
  assert.equal(signedUp.status, 303);
  await signedUp.body?.cancel();
});
