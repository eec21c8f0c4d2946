/**
 * Email through Amazon SES v2 from the service as it runs: main.ts in its own process with
 * SES_* set, sending a subscriber's confirmation to aws-ses-v2-local (tests/support/ses.ts),
 * which checks the request's SigV4 signature and keeps the message. The secret key appears in
 * no output, and a configuration with both SMTP and SES stops start-up with one line.
 */
import assert from "node:assert/strict";
import { acmeProject, caller, firstAccount, sendScan } from "../support/live_vendor.ts";
import { freePort, startService } from "../support/process.ts";
import { startSes } from "../support/ses.ts";

Deno.test("[e2e] SES v2: a subscriber's confirmation leaves through SES; no secret is printed", async (t) => {
  const dir = await Deno.makeTempDir();
  await using ses = await startSes({ region: "eu-west-1" });
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = { PORT: String(port), KV_PATH: `${dir}/kv.sqlite3`, BASE_URL: base };
  try {
    await t.step("sends a confirmation through SES v2 local", async () => {
      const service = startService({ ...env, ...ses.env });
      try {
        const email = await service.waitFor(/^Email: /);
        assert.equal(
          email.trim(),
          `Email: sending through SES v2 (region eu-west-1, endpoint ${ses.url})`,
        );
        const token = await firstAccount(service, base);
        const call = caller([base], token);
        const target = await acmeProject(call);
        await sendScan(base, target, 0);
        assert.equal((await call("POST", `/projects/${target.projectId}/publish`)).status, 201);

        const res = await fetch(`${base}/trust/acme/subscriptions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ email: "buyer@customer.test" }),
        });
        assert.equal(res.status, 202, await res.text());
        const sent = await ses.next(
          (e) => e.stored.destination.to.includes("buyer@customer.test"),
          20_000,
        );
        assert.equal(sent.stored.from, '"Trust Profile Service" <no-reply@127.0.0.1>');
        assert.equal(sent.stored.subject, "Confirm your subscription to Acme Cloud trust updates");
        assert.match(sent.mime.messageId ?? "", /^<[\w-]+\.0@127\.0\.0\.1>$/);
        assert.match(
          sent.request.authorization,
          new RegExp(`^AWS4-HMAC-SHA256 Credential=${ses.accessKeyId}/\\d{8}/eu-west-1/ses/`),
        );
        const link = (sent.stored.body.text ?? "").match(
          /https?:\/\/[^\s]+\/subscriptions\/confirm\/[A-Za-z0-9._-]+/,
        );
        assert.ok(link, `no confirmation link in ${sent.stored.body.text}`);
        const confirmed = await fetch(`${base}${new URL(link[0]).pathname}`, { method: "POST" });
        assert.equal(confirmed.status, 200);
        await confirmed.body?.cancel();

        const status = await fetch(`${base}/service/status`, {
          headers: { authorization: `Bearer ${token}` },
        });
        const text = await status.text();
        assert.equal(status.status, 200, text);
        assert.deepEqual(JSON.parse(text).mail, { configured: true });
        assert.equal(text.includes(ses.secretAccessKey), false);
        assert.equal(ses.requests.length, 1, "one request, accepted");
        assert.equal(ses.requests[0].status, 200);
      } finally {
        await service.stop();
      }
      assert.ok(!service.lines.some((l) => l.includes(ses.secretAccessKey)));
    });

    await t.step("SMTP and SES together, or SES without its key, stop start-up", async () => {
      const both = startService({ ...env, ...ses.env, SMTP_URL: "smtp://127.0.0.1:2525" });
      assert.equal((await both.exited()).code, 1);
      assert.deepEqual(both.lines.filter((l) => l.trim() && !l.includes("Download")), [
        "Invalid configuration: SMTP_URL: set either SMTP_URL (SMTP) or SES_REGION (Amazon SES v2), not both",
      ]);
      const keyless = startService({ ...env, ...ses.env, SES_ACCESS_KEY_ID: "" });
      assert.equal((await keyless.exited()).code, 1);
      assert.deepEqual(keyless.lines.filter((l) => l.trim() && !l.includes("Download")), [
        "Invalid configuration: SES_ACCESS_KEY_ID: required when SES_REGION is set",
      ]);
      for (const line of [...both.lines, ...keyless.lines]) {
        assert.equal(line.includes(ses.secretAccessKey), false);
      }
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
