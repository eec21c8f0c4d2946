import assert from "node:assert/strict";
import { serviceHostTest } from "../../src/serve/hosts.ts";
import { createTestApp } from "../support/app.ts";
import { publishVersion, workspace } from "../support/fixtures.ts";
import { getWithHost, postWithHost, rawRequest } from "../support/raw_http.ts";
import { startTestServer } from "../support/server.ts";

const label63 = "a".repeat(63);

Deno.test("[http] Host header: any value that is not a domain name reaches no KV key", async (t) => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "alice", { projectSlug: "acme", visibility: "public" });
  await publishVersion(ctx, ws);
  const patched = await ctx.call("PATCH", `/projects/${ws.project.id}`, {
    token: ws.token,
    json: { hostedSubdomain: "acme" },
  });
  assert.equal(patched.status, 200);
  await patched.body?.cancel();

  const hosts = {
    "2030 bytes": `${"a".repeat(2026)}.com`,
    "5000 bytes in labels of 63": Array.from({ length: 78 }, () => label63).join("."),
    "a label of 64": `${"b".repeat(64)}.example.com`,
    "an underscore": "under_score.example.com",
    "a port past the name": `${"c".repeat(250)}.io:8443`,
    "percent escapes": "%61%62.example.com",
  };
  for (const [name, host] of Object.entries(hosts)) {
    await t.step(`${name}: every route answers as on the service's own host`, async () => {
      for (const path of ["/health", "/", "/trust.json", "/trust/acme/trust.json"]) {
        const res = await ctx.call("GET", path, { headers: { host } });
        const body = await res.text();
        assert.ok(res.status < 500, `${path}: ${res.status} ${body}`);
      }
      const health = await ctx.call("GET", "/health", { headers: { host } });
      assert.equal(health.status, 200);
      await health.body?.cancel();
      const page = await ctx.call("GET", "/trust/acme/trust.json", { headers: { host } });
      assert.equal(page.status, 200);
      assert.equal(page.headers.get("content-type"), "application/json; charset=utf-8");
      await page.body?.cancel();
    });
  }
  assert.deepEqual(ctx.log.lines.filter((line) => line.includes("error")), []);

  await t.step("the hosted subdomain still serves its trust page", async () => {
    const res = await ctx.call("GET", "/trust.json", { headers: { host: "acme.trust.test" } });
    assert.equal(res.status, 200);
    assert.equal((await res.json()).project.slug, "acme");
  });
});

Deno.test("[http] serviceHostTest() sends only valid domain names to a lookup", async (t) => {
  const isServiceHost = serviceHostTest(
    { baseUrl: "http://trust.test", trustPageBase: "http://trust.test" } as Parameters<
      typeof serviceHostTest
    >[0],
  );
  const rows: Array<{ name: string; host: string | undefined; service: boolean }> = [
    { name: "no Host", host: undefined, service: true },
    { name: "the service's host", host: "trust.test", service: true },
    { name: "its host with a port", host: "trust.test:8000", service: true },
    { name: "an IPv4 literal", host: "127.0.0.1:8000", service: true },
    { name: "an IPv6 literal", host: "[::1]:8000", service: true },
    { name: "a single label", host: "localhost", service: true },
    { name: "a custom domain", host: "trust.example.com", service: false },
    { name: "a hosted subdomain", host: "acme.trust.test", service: false },
    { name: "upper case is a domain name too", host: "Trust.Example.COM", service: false },
    {
      name: "the longest domain name",
      host: `${[label63, label63, label63].join(".")}.${"d".repeat(61)}`,
      service: false,
    },
    {
      name: "one octet longer",
      host: `${[label63, label63, label63].join(".")}.${"d".repeat(62)}`,
      service: true,
    },
    { name: "a label of 64", host: `${"b".repeat(64)}.example.com`, service: true },
    { name: "an underscore", host: "_dmarc.example.com", service: true },
    { name: "a 5000-byte value", host: "x.".repeat(2500), service: true },
  ];
  for (const row of rows) {
    await t.step(row.name, () => {
      // Asked twice: the remembered verdict must equal the computed one.
      assert.equal(isServiceHost(row.host), row.service);
      assert.equal(isServiceHost(row.host), row.service);
    });
  }
});

Deno.test("[http] Host header: a value the URL parser refuses is answered as on the service's host, over real HTTP", async (t) => {
  // Deno.serve builds request.url from Host, so only a real server reproduces these; an
  // in-process Request cannot even be built with such a URL.
  await using server = await startTestServer({ worker: false });
  const token = await server.tokenFor("alice");
  const boot = await fetch(`${server.baseUrl}/onboarding/bootstrap`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({
      workspaceName: "Acme",
      projectName: "Acme Cloud",
      projectSlug: "acme",
      projectVisibility: "public",
    }),
  });
  const projectId = (await boot.json()).project.id;
  const published = await fetch(`${server.baseUrl}/projects/${projectId}/publish`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
  });
  assert.equal(published.status, 201);
  await published.body?.cancel();

  const hosts = ["a.1", "1.2.3.4.5", "x.127.0.0.1", "trust.example.0x10", "%", "[::1", "a b"];
  for (const host of hosts) {
    await t.step(`Host: ${host}`, async () => {
      for (const path of ["/nope", "/trust/nope", "/trust.json", "/public/trust/nope"]) {
        const json = await getWithHost(server.baseUrl, path, host, { accept: "application/json" });
        assert.equal(json.status, 404, `${path}: ${json.status} ${json.body}`);
        assert.equal(json.headers.get("content-type"), "application/json");
        assert.equal(JSON.parse(json.body).error.code, "not_found");
        const page = await getWithHost(server.baseUrl, path, host, { accept: "text/html" });
        assert.equal(page.status, 404, `${path}: ${page.status} ${page.body}`);
        assert.equal(page.headers.get("content-type"), "text/html; charset=utf-8");
      }
      const profile = await getWithHost(server.baseUrl, "/trust/acme/trust.json?x=1", host);
      assert.equal(profile.status, 200);
      assert.equal(JSON.parse(profile.body).project.slug, "acme");
      const signals = await getWithHost(server.baseUrl, "/trust/acme/signals", host);
      assert.equal(signals.status, 200);
      const created = await postWithHost(
        server.baseUrl,
        "/projects",
        host,
        JSON.stringify({ name: "x" }),
        { "content-type": "application/json" },
      );
      assert.equal(created.status, 401, created.body);
      const renamed = await rawRequest(server.baseUrl, {
        method: "PATCH",
        path: `/projects/${projectId}`,
        host,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ name: `Acme ${host}` }),
      });
      assert.equal(renamed.status, 200, renamed.body);
      assert.equal(JSON.parse(renamed.body).project.name, `Acme ${host}`);
      const mcp = await postWithHost(
        server.baseUrl,
        "/mcp",
        host,
        JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
        { "content-type": "application/json", accept: "application/json, text/event-stream" },
      );
      assert.equal(mcp.status, 403, mcp.body);
    });
  }
  await t.step(
    "a Host with a path, query, fragment or user part does not move the path",
    async () => {
      for (const host of ["x/trust/nope", "trust.test?x", "trust.test#x", "u@x", "a\\b"]) {
        const health = await getWithHost(server.baseUrl, "/health", host);
        assert.equal(health.status, 200, `${host}: ${health.status} ${health.body}`);
        const signals = await getWithHost(server.baseUrl, "/trust/acme/signals", host);
        assert.equal(signals.status, 200, `${host}: ${signals.status} ${signals.body}`);
      }
    },
  );
  assert.deepEqual(server.log.lines.filter((line) => line.includes('"error"')), []);
});
