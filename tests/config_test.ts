import assert from "node:assert/strict";
import { ConfigError, loadConfig } from "../src/config.ts";

Deno.test("[config] defaults give the embedded zero-ops setup", () => {
  const config = loadConfig({});
  assert.equal(config.port, 8000);
  assert.equal(config.hostname, "127.0.0.1");
  assert.equal(config.baseUrl, "http://localhost:8000");
  assert.equal(config.trustPageBase, config.baseUrl);
  assert.equal(config.kvPath, "./data/kv.sqlite3");
  assert.deepEqual(config.blobStore, { kind: "kv" });
  assert.equal(config.auth.mode, "builtin");
  assert.equal(config.auth.issuer, config.baseUrl);
  assert.equal(config.auth.clientId, "dashboard");
  assert.equal(config.signup, "first-run");
  assert.equal(config.maxEvidenceBytes, 10 * 1024 * 1024);
  assert.deepEqual(config.evidenceRetention, { days: 90, recordsPerType: 100 });
  const deploy = loadConfig({
    BASE_URL: "https://trust.acme.test",
    DENO_DEPLOY: "true",
    DENO_DEPLOYMENT_ID: "abc123",
    DENO_TIMELINE: "production",
  }, { onDeploy: true });
  assert.equal(deploy.kvPath, undefined);
  assert.deepEqual(deploy.edge, { purge: "deno", purgeUrls: [] });
  assert.deepEqual(deploy.kvPersistence, { probe: true, acknowledged: false });
  // DENO_DEPLOY alone is not Deploy's runtime: no CDN at cache.localhost to purge.
  const alone = loadConfig({ BASE_URL: "https://trust.acme.test", DENO_DEPLOY: "true" }, {
    onDeploy: true,
  });
  assert.deepEqual(alone.edge, { purge: "none", purgeUrls: [] });
  assert.deepEqual(config.edge, { purge: "none", purgeUrls: [] });
});

Deno.test("[config] on Deno Deploy BASE_URL is required, in one line that says what to set", () => {
  assert.throws(
    () => loadConfig({}, { onDeploy: true }),
    /^ConfigError: Invalid configuration: BASE_URL: required on Deno Deploy: set it to the deployment's public URL/,
  );
});

Deno.test("[config] on Deno Deploy each timeline gets its own *.deno.net URL; BASE_URL is production's", () => {
  const runtime = {
    DENO_DEPLOY: "true",
    DENO_DEPLOY_APP_SLUG: "trust",
    DENO_DEPLOY_ORG_SLUG: "acme",
  };
  const at = (env: Record<string, string>) =>
    loadConfig({ ...runtime, ...env }, { onDeploy: true });
  assert.equal(at({ DENO_TIMELINE: "production" }).baseUrl, "https://trust.acme.deno.net");
  assert.equal(
    at({ DENO_TIMELINE: "production", BASE_URL: "https://trust.acme.test" }).baseUrl,
    "https://trust.acme.test",
  );
  const preview = at({ DENO_TIMELINE: "preview/a1b2c3", BASE_URL: "https://trust.acme.test" });
  assert.equal(preview.baseUrl, "https://trust-a1b2c3.acme.deno.net");
  assert.equal(preview.baseUrlSource, "timeline");
  assert.match(
    preview.baseUrlNote ?? "",
    /BASE_URL=https:\/\/trust\.acme\.test is left to production/,
  );
  assert.equal(preview.auth.issuer, "https://trust-a1b2c3.acme.deno.net");
  assert.equal(
    at({ DENO_TIMELINE: "git-branch/staging" }).baseUrl,
    "https://trust--staging.acme.deno.net",
  );
  // A branch name that is not a DNS label: Deploy does not document its URL, BASE_URL decides.
  assert.throws(() => at({ DENO_TIMELINE: "git-branch/feat/x" }), /BASE_URL: required/);
  assert.equal(
    at({ DENO_TIMELINE: "git-branch/feat/x", BASE_URL: "https://x.acme.test" }).baseUrl,
    "https://x.acme.test",
  );
  assert.throws(() => loadConfig({ KV_PERSISTENCE: "yes" }), /KV_PERSISTENCE: Expected "assigned"/);
});

Deno.test("[config] the edge's purge driver: as set, Varnish URLs checked", () => {
  const xkey = loadConfig({ CDN_PURGE_URL: "http://127.0.0.1:6081/, http://127.0.0.1:6082/" });
  assert.deepEqual(xkey.edge, {
    purge: "xkey",
    purgeUrls: ["http://127.0.0.1:6081/", "http://127.0.0.1:6082/"],
  });
  assert.equal(
    loadConfig({ CDN_PURGE: "none", CDN_PURGE_URL: "http://a.test/" }).edge.purge,
    "none",
  );
  assert.throws(
    () => loadConfig({ CDN_PURGE: "xkey" }),
    /CDN_PURGE_URL: required with CDN_PURGE=xkey/,
  );
  assert.throws(() => loadConfig({ CDN_PURGE_URL: "ftp://a.test/" }), /CDN_PURGE_URL: "ftp/);
  assert.throws(() => loadConfig({ CDN_PURGE: "fastly" }), /CDN_PURGE/);
});

Deno.test("[config] every variable is read", () => {
  const config = loadConfig({
    PORT: "9000",
    HOSTNAME: "0.0.0.0",
    BASE_URL: "https://api.acme.test/",
    TRUST_PAGE_BASE: "https://trust.acme.test",
    KV_PATH: ":memory:",
    BLOB_STORE: "s3",
    S3_ENDPOINT: "http://127.0.0.1:9000",
    S3_BUCKET: "blobs",
    S3_REGION: "eu-west-1",
    S3_ACCESS_KEY_ID: "id",
    S3_SECRET_ACCESS_KEY: "secret",
    S3_FORCE_PATH_STYLE: "true",
    AUTH_MODE: "oidc",
    AUTH_ISSUER: "https://idp.acme.test",
    AUTH_AUDIENCE: "https://api.acme.test",
    AUTH_JWKS_URL: "https://idp.acme.test/keys",
    AUTH_CLIENT_ID: "console",
    SIGNUP: "invite",
    DNS_NAMESERVER: "127.0.0.1:5353",
    MAX_EVIDENCE_BYTES: "2048",
    TRUSTED_PROXIES: "10.0.0.0/8, ::1",
    BODY_TIMEOUT_SECONDS: "5",
    EVIDENCE_RETENTION_DAYS: "30",
    EVIDENCE_RETENTION_RECORDS: "7",
  });
  assert.equal(config.baseUrl, "https://api.acme.test");
  assert.equal(config.trustPageBase, "https://trust.acme.test");
  assert.deepEqual(config.blobStore, {
    kind: "s3",
    endpoint: "http://127.0.0.1:9000",
    bucket: "blobs",
    region: "eu-west-1",
    accessKeyId: "id",
    secretAccessKey: "secret",
    forcePathStyle: true,
  });
  assert.deepEqual(config.auth, {
    mode: "oidc",
    issuer: "https://idp.acme.test",
    audience: "https://api.acme.test",
    jwksUrl: "https://idp.acme.test/keys",
    authUrl: "https://idp.acme.test",
    clientId: "console",
  });
  assert.deepEqual(config.dnsNameserver, { host: "127.0.0.1", port: 5353 });
  assert.equal(config.maxEvidenceBytes, 2048);
  assert.deepEqual(config.trustedProxies.map(([ip, bits]) => `${ip}/${bits}`), [
    "10.0.0.0/8",
    "::1/128",
  ]);
  assert.equal(config.bodyTimeoutMs, 5000);
  assert.deepEqual(config.evidenceRetention, { days: 30, recordsPerType: 7 });
});

Deno.test("[config] a bad value names its variable in one line", async (t) => {
  const cases: Array<[Record<string, string>, string]> = [
    [{ PORT: "http" }, "PORT"],
    [{ PORT: "70000" }, "PORT"],
    [{ BASE_URL: "not a url" }, "BASE_URL"],
    [{ BASE_URL: "ftp://x.test" }, "BASE_URL"],
    [{ BLOB_STORE: "disk" }, "BLOB_STORE"],
    [{ BLOB_STORE: "s3" }, "S3_ENDPOINT"],
    [{ BLOB_STORE: "s3", S3_ENDPOINT: "http://s3.test" }, "S3_BUCKET"],
    [{ AUTH_MODE: "saml" }, "AUTH_MODE"],
    [{ AUTH_MODE: "oidc" }, "AUTH_ISSUER"],
    [{ AUTH_MODE: "oidc", AUTH_ISSUER: "https://idp.test" }, "AUTH_AUDIENCE"],
    [{ SIGNUP: "anyone" }, "SIGNUP"],
    [{ DNS_NAMESERVER: "localhost" }, "DNS_NAMESERVER"],
    [{ DNS_NAMESERVER: "127.0.0.1:0" }, "DNS_NAMESERVER"],
    [{ MAX_EVIDENCE_BYTES: "10" }, "MAX_EVIDENCE_BYTES"],
    [{ S3_FORCE_PATH_STYLE: "yes" }, "S3_FORCE_PATH_STYLE"],
    [{ TRUSTED_PROXIES: "10.0.0.0/33" }, "TRUSTED_PROXIES"],
    [{ TRUSTED_PROXIES: "proxy.internal" }, "TRUSTED_PROXIES"],
    [{ BODY_TIMEOUT_SECONDS: "0" }, "BODY_TIMEOUT_SECONDS"],
    [{ EVIDENCE_RETENTION_DAYS: "0" }, "EVIDENCE_RETENTION_DAYS"],
    [{ EVIDENCE_RETENTION_RECORDS: "many" }, "EVIDENCE_RETENTION_RECORDS"],
  ];
  for (const [env, variable] of cases) {
    await t.step(`${JSON.stringify(env)} → ${variable}`, () => {
      assert.throws(() => loadConfig(env), (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.equal(error.variable, variable);
        assert.ok(!error.message.includes("\n"));
        assert.match(error.message, new RegExp(`^Invalid configuration: ${variable}: `));
        return true;
      });
    });
  }
});
