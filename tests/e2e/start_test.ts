/**
 * The start command as a newcomer runs it: a real process, a KV file, the
 * printed setup link, and data that survives a restart.
 */
import assert from "node:assert/strict";
import { login, signUp } from "../support/builtin_login.ts";
import { freePort, startService } from "../support/process.ts";
import { startSmtpServer } from "../support/smtp.ts";

Deno.test("[e2e] start: prints the setup link, keeps data across a restart", async (t) => {
  const dir = await Deno.makeTempDir();
  const port = freePort();
  const env = { PORT: String(port), KV_PATH: `${dir}/data/kv.sqlite3` };
  const base = `http://localhost:${port}`;
  const account = { email: "first@acme.test", name: "First", password: "a long passphrase" };
  try {
    let setupUrl = "";
    await t.step("first start prints where to go next", async () => {
      const service = startService(env);
      try {
        await service.waitFor(/listening on http:\/\/127\.0\.0\.1:\d+/);
        await service.waitFor(/^Email: not configured \(set SMTP_URL,/);
        setupUrl = (await service.waitFor(/\/signup\?setup=/)).trim();
        assert.ok(setupUrl.startsWith(`${base}/signup?setup=`));
        // Where to go next is printed on the first start too, after the setup link.
        const dashboard = await service.waitFor(/^Dashboard: /);
        assert.equal(
          dashboard.trim(),
          `Dashboard: ${base}/dashboard/   API description: ${base}/openapi.json`,
        );
        const pages = await service.waitFor(/^Public trust pages: /);
        assert.equal(
          pages.trim(),
          `Public trust pages: ${base}/trust/<project-slug>   Setup guide: ${base}/setup.md`,
        );
        assert.ok(service.lines.some((l) => l.startsWith("Live work: job worker running")));
        const health = await fetch(`${base}/health`);
        assert.deepEqual(await health.json(), { status: "ok" });
        const res = await signUp(base, new URL(setupUrl).search.slice(1), account);
        assert.equal(res.status, 303);
        await res.body?.cancel();
      } finally {
        await service.stop();
      }
    });

    await t.step(
      "after a restart the account is still there and no setup link is printed",
      async () => {
        await using smtp = await startSmtpServer();
        const service = startService({
          ...env,
          SMTP_URL: smtp.url.replace("smtp://", "smtp://mailer:hunter2-secret@"),
        });
        try {
          // Where mail goes is said at start, never the credentials in SMTP_URL.
          const email = await service.waitFor(/^Email: /);
          assert.equal(email.trim(), `Email: sending through ${smtp.url}`);
          const line = await service.waitFor(/Dashboard: /);
          assert.match(line, new RegExp(`${base}/dashboard/`));
          assert.ok(!service.lines.some((l) => l.includes("setup=")));
          const tokens = await login(base, account);
          const me = await fetch(`${base}/me`, {
            headers: { authorization: `Bearer ${tokens.access_token}` },
          });
          assert.equal((await me.json()).user.email, account.email);
          assert.ok(!service.lines.some((l) => l.includes("hunter2-secret")));
        } finally {
          await service.stop();
        }
      },
    );

    await t.step("a bad variable stops start-up with one line naming it", async () => {
      const service = startService({ ...env, AUTH_MODE: "oidc" });
      const status = await service.exited();
      assert.equal(status.code, 1);
      const output = service.lines.filter((l) => l.trim() && !l.includes("Download"));
      assert.deepEqual(output, [
        "Invalid configuration: AUTH_ISSUER: required when AUTH_MODE=oidc",
      ]);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
