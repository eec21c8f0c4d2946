import assert from "node:assert/strict";
import { loadConfig } from "../../src/config.ts";
import { customDomainSetup } from "../../src/http/routes/dashboard.ts";
import { createTestApp } from "../support/app.ts";

async function customDomains(env: Record<string, string>) {
  await using ctx = await createTestApp({ env });
  const res = await ctx.call("GET", "/dashboard/config.json");
  assert.equal(res.status, 200);
  return (await res.json()).customDomains;
}

Deno.test("[http] dashboard config: where a custom domain points, and who provides TLS", async () => {
  assert.deepEqual(
    await customDomains({ TRUST_PAGE_BASE: "https://pages.trust.example" }),
    { cnameTarget: "pages.trust.example", tls: "reverse-proxy" },
  );
  for (const base of ["http://localhost:8000", "http://127.0.0.1:8000", "http://[::1]:8000"]) {
    assert.deepEqual(
      await customDomains({ TRUST_PAGE_BASE: base }),
      { cnameTarget: null, tls: "reverse-proxy" },
      `${base}: a CNAME cannot name it`,
    );
  }
});

Deno.test("[http] dashboard config: on Deno Deploy, Deno Deploy's custom domains provide TLS", () => {
  const config = loadConfig(
    { BASE_URL: "https://api.trust.example", TRUST_PAGE_BASE: "https://trust.example" },
    { onDeploy: true },
  );
  assert.equal(config.onDeploy, true);
  assert.deepEqual(customDomainSetup(config), { cnameTarget: "trust.example", tls: "deno-deploy" });
  assert.equal(loadConfig({}).onDeploy, false);
});

Deno.test("[http] dashboard config: whether the service sends email", async () => {
  for (
    const [env, mail] of [
      [{}, false],
      [{ SMTP_URL: "smtp://127.0.0.1:2525" }, true],
    ] as const
  ) {
    await using ctx = await createTestApp({ env });
    const res = await ctx.call("GET", "/dashboard/config.json");
    assert.equal(res.status, 200);
    assert.equal((await res.json()).mail, mail, JSON.stringify(env));
  }
});
