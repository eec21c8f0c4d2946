/**
 * The live layer as it runs on Deno Deploy and over KV Connect: main.ts in its own process
 * with a preloaded module that makes every KV queue and watch call fail. Over real HTTP, with
 * a real SMTP server and a webhook receiver: a failing scan publishes by itself, a webhook
 * and an email say so, and freshness decays and publishes with no request at all.
 */
import assert from "node:assert/strict";
import { StandardWebhook } from "../deps.ts";
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
import { freePort, NO_KV_QUEUES, startService } from "../support/process.ts";
import { startSmtpServer } from "../support/smtp.ts";

const stateOf = (p: { controls: Array<{ key: string; state: string }> } | null, key: string) =>
  p?.controls.find((c) => c.key === key)?.state;

Deno.test("[e2e] without KV queues: auto-publish, webhook, email and decay over real HTTP", async (t) => {
  const dir = await Deno.makeTempDir();
  await using smtp = await startSmtpServer();
  const receiver = startReceiver();
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const service = startService({
    PORT: String(port),
    KV_PATH: `${dir}/kv.sqlite3`,
    BASE_URL: base,
    SMTP_URL: smtp.url,
    WEBHOOK_ALLOW_PRIVATE: "true",
  }, { preload: NO_KV_QUEUES });
  try {
    const call = caller([base], await firstAccount(service, base));
    const target = await acmeProject(call);
    const { projectId } = target;

    await t.step("the start-up banner and the readiness route say live work runs", async () => {
      assert.match(await service.waitFor(/^Live work: /), /job worker running \(loop\)/);
      const ready = await fetch(`${base}/health/ready`);
      assert.equal(ready.status, 200);
      const body = await ready.json();
      assert.equal(body.ready, true);
      assert.equal(body.worker.mode, "loop");
    });

    let hookSecret = "";
    await t.step("a first version, a webhook and a confirmed email subscriber", async () => {
      await sendScan(base, target, 0);
      assert.equal((await call("POST", `/projects/${projectId}/publish`)).status, 201);
      const patch = await call("PATCH", `/projects/${projectId}`, { autoPublish: true });
      assert.equal(patch.status, 200);
      const hook = await call("POST", `/projects/${projectId}/webhooks`, {
        url: receiver.url("/hook"),
        events: ["control.regressed"],
        signing: "hmac",
      });
      assert.equal(hook.status, 201, JSON.stringify(hook.body));
      hookSecret = hook.body.secret.value;
      await confirmedSubscriber(base, smtp, "buyer@customer.test");
    });

    await t.step("a failing scan: published by itself, webhook within 10 s, an email", async () => {
      const failedAt = Date.now();
      await sendScan(base, target, 3);
      const [delivery] = await receiver.waitFor((r) => r.type === "control.regressed");
      assert.ok(delivery.at - failedAt < 10_000, `arrived ${delivery.at - failedAt} ms later`);
      const payload = new StandardWebhook(hookSecret).verify(delivery.body, delivery.headers) as {
        data: { controls: Array<{ key: string; to: string }> };
      };
      assert.ok(payload.data.controls.some((c) => c.to === "fail"), delivery.body);
      const profile = await eventually("version 2", async () => {
        const p = await publishedProfile(base);
        return p && p.version >= 2 ? p : null;
      });
      assert.equal(profile.version, 2);
      assert.ok(profile.controls.some((c) => c.state === "fail"));
      const mail = await smtp.next((m) => /regress|fail/i.test(m.subject ?? ""), 20_000);
      assert.match(JSON.stringify(mail.to), /buyer@customer\.test/);
      assert.ok(
        mail.headerLines.some((h) => h.key === "list-unsubscribe"),
        "the notification can be unsubscribed",
      );
    });

    await t.step(
      "decay with no request: degraded, then stale, each published by itself",
      async () => {
        const { body } = await call("GET", `/projects/${projectId}/controls`);
        const sbom = body.controls.find((c: { key: string }) => c.key === "evidence.sbom");
        const patched = await call("PATCH", `/projects/${projectId}/controls/${sbom.id}`, {
          freshnessPolicyJson: { kind: "time_window", windowSeconds: 3 },
          degradationPolicyJson: { staleAfterSeconds: 6, degradedAfterSeconds: null },
        });
        assert.equal(patched.status, 200);
        const observedAt = Date.now();
        const res = await fetch(`${base}/ingest/evidence`, {
          method: "POST",
          headers: { authorization: `Bearer ${target.secret}`, "content-type": "application/json" },
          body: JSON.stringify({
            projectId,
            evidenceType: "sbom",
            sourceType: "collector",
            sourceRef: "ci",
            observedAt: new Date(observedAt).toISOString(),
            payload: { bomFormat: "CycloneDX", specVersion: "1.5", components: [{ name: "a" }] },
          }),
        });
        assert.equal(res.status, 201);
        // No request at all until the control is past its stale time.
        await new Promise((r) => setTimeout(r, 6_000 + 5_000));
        const versions = [];
        for (let v = 3; v <= 8; v++) {
          const res = await fetch(`${base}/trust/acme/versions/${v}/trust.json`);
          if (res.status !== 200) {
            await res.body?.cancel();
            break;
          }
          versions.push(await res.json());
        }
        const sbomStates = versions.map((p) => stateOf(p, "evidence.sbom"));
        assert.deepEqual(sbomStates.slice(-3), ["pass", "degraded", "stale"], sbomStates.join());
        const degraded = versions.at(-2)!;
        const stale = versions.at(-1)!;
        assert.ok(Date.parse(degraded.publishedAt) >= observedAt + 3_000);
        assert.ok(Date.parse(stale.publishedAt) >= observedAt + 6_000);
        assert.ok(Date.parse(stale.publishedAt) < observedAt + 6_000 + 4_000, "on time");
      },
    );

    await t.step("nothing tried a queue; nothing failed", () => {
      const lines = service.lines.join("\n");
      assert.doesNotMatch(lines, /KV operation not supported here/);
      assert.doesNotMatch(lines, /"level":"error"/);
    });
  } finally {
    await service.stop();
    await receiver.close();
    await Deno.remove(dir, { recursive: true });
  }
});
