/**
 * Custom domains end to end: a real DNS server on 127.0.0.1 (npm dns2)
 * answers the TXT lookups, and requests with the domain as Host get the
 * project's trust page.
 */
import assert from "node:assert/strict";
import { startDnsServer } from "../support/dns_server.ts";
import { getWithHost, rawRequest } from "../support/raw_http.ts";
import { startTestServer } from "../support/server.ts";

Deno.test("[e2e] custom domains: DNS TXT verification and Host routing", async (t) => {
  await using dns = await startDnsServerDisposable();
  await using server = await startTestServer({
    worker: false,
    env: { DNS_NAMESERVER: `127.0.0.1:${dns.port}`, TRUST_PAGE_BASE: "http://trust.localhost" },
  });
  const token = await server.tokenFor("alice");
  const auth = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const api = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = auth,
  ) => {
    const res = await fetch(server.baseUrl + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, json: text ? JSON.parse(text) : null };
  };
  const { json: boot } = await api("POST", "/onboarding/bootstrap", {
    workspaceName: "Acme",
    projectName: "Acme Cloud",
    projectSlug: "acme",
    projectVisibility: "public",
    projectHostedSubdomain: "acme",
  });
  const projectId = boot.project.id;
  assert.equal((await api("POST", `/projects/${projectId}/publish`)).status, 201);

  let domain = { id: "", token: "" };
  await t.step("adding a domain normalizes it and returns the TXT instructions", async () => {
    const res = await api("POST", `/projects/${projectId}/domains`, {
      domain: "Trust.Acme.Example.",
    });
    assert.equal(res.status, 201);
    const { domain: summary } = res.json;
    assert.equal(summary.domain.domain, "trust.acme.example");
    assert.equal(summary.domain.verificationStatus, "pending");
    assert.equal(summary.domain.lastCheckedAt, null);
    assert.deepEqual(summary.instructions, {
      method: "dns_txt",
      recordName: "_service.trust.acme.example",
      recordType: "TXT",
      recordValue: `trust-verification=${summary.domain.verificationToken}`,
    });
    domain = { id: summary.domain.id, token: summary.domain.verificationToken };
  });

  const verify = () => api("POST", `/projects/${projectId}/domains/${domain.id}/verify`);

  await t.step("an absent record leaves the domain pending with lastCheckedAt", async () => {
    const res = await verify();
    assert.equal(res.status, 200);
    assert.equal(res.json.domain.domain.verificationStatus, "pending");
    assert.ok(res.json.domain.domain.lastCheckedAt);
    assert.deepEqual(res.json.check.found, []);
    assert.equal(res.json.check.expected, `trust-verification=${domain.token}`);
  });

  await t.step("a wrong value stays pending and shows what was found", async () => {
    dns.records.set("_service.trust.acme.example", [["trust-verification=not-the-token"]]);
    const res = await verify();
    assert.equal(res.json.domain.domain.verificationStatus, "pending");
    assert.deepEqual(res.json.check.found, ["trust-verification=not-the-token"]);
  });

  await t.step("before verification the Host is not served the page", async () => {
    const res = await getWithHost(server.baseUrl, "/trust.json", "trust.acme.example");
    assert.equal(res.status, 404);
  });

  await t.step("a multi-part TXT record verifies", async () => {
    const value = `trust-verification=${domain.token}`;
    dns.records.set("_service.trust.acme.example", [
      ["v=spf1 -all"],
      [value.slice(0, 20), value.slice(20)],
    ]);
    const res = await verify();
    assert.equal(res.json.domain.domain.verificationStatus, "verified");
    assert.ok(res.json.domain.domain.verifiedAt);
    assert.equal(res.json.check, undefined);
  });

  await t.step("Host-header routing serves the project's documents", async () => {
    const get = (path: string, headers: Record<string, string> = {}) =>
      getWithHost(server.baseUrl, path, "trust.acme.example", headers);
    const canonical = await (await fetch(`${server.baseUrl}/trust/acme/trust.json`)).text();
    assert.equal((await get("/trust.json")).body, canonical);
    // HEAD, on the canonical path (answered from memory) and on the domain (routed): headers
    // only, with the GET response's Content-Length.
    const heads = [
      { path: "/trust/acme/trust.json", host: "127.0.0.1" },
      { path: "/trust.json", host: "trust.acme.example" },
    ];
    for (const { path, host } of heads) {
      const head = await rawRequest(server.baseUrl, { method: "HEAD", path, host });
      assert.equal(head.status, 200, path);
      assert.equal(head.body, "", path);
      assert.equal(head.headers.get("content-length"), String(canonical.length), path);
      assert.ok(head.headers.get("etag"), path);
    }
    const page = await get("/", { accept: "text/html" });
    assert.match(page.headers.get("content-type") ?? "", /text\/html/);
    assert.match(page.body, /Acme Cloud/);
    for (const path of ["/trust.json.jws", "/index.md", "/feed.xml", "/badge.svg"]) {
      assert.equal((await get(path)).status, 200, path);
    }
    const other = await get("/me");
    assert.equal(other.status, 404, "only trust documents are served on a custom domain");
    const byDomain = await api("GET", "/trust/domains/trust.acme.example", undefined, {});
    assert.deepEqual(byDomain.json, { profile: JSON.parse(canonical) });
  });

  await t.step("the hosted subdomain serves the page too", async () => {
    const res = await getWithHost(server.baseUrl, "/trust.json", "acme.trust.localhost");
    assert.equal(res.status, 200);
    assert.equal(JSON.parse(res.body).project.slug, "acme");
  });

  await t.step("another project cannot take the domain (409)", async () => {
    const other = await server.tokenFor("bob");
    const { json: bob } = await api("POST", "/onboarding/bootstrap", {
      workspaceName: "Bob",
      projectName: "Bob",
    }, { authorization: `Bearer ${other}`, "content-type": "application/json" });
    const res = await api("POST", `/projects/${bob.project.id}/domains`, {
      domain: "TRUST.acme.example",
    }, {
      authorization: `Bearer ${other}`,
      "content-type": "application/json",
    });
    assert.equal(res.status, 409);
    assert.equal(res.json.error.code, "conflict");
  });

  await t.step("listing shows the domain with instructions", async () => {
    const res = await api("GET", `/projects/${projectId}/domains`);
    assert.equal(res.json.domains.length, 1);
    assert.equal(res.json.domains[0].domain.verificationStatus, "verified");
    assert.equal(res.json.project.id, projectId);
  });

  await t.step(
    "after DELETE the canonical route still serves and the domain does not",
    async () => {
      const res = await api("DELETE", `/projects/${projectId}/domains/${domain.id}`);
      assert.equal(res.status, 204);
      const canonical = await fetch(`${server.baseUrl}/trust/acme/trust.json`);
      assert.equal(canonical.status, 200);
      await canonical.body?.cancel();
      const gone = await api("GET", "/trust/domains/trust.acme.example", undefined, {});
      assert.equal(gone.status, 404);
      const again = await api("POST", `/projects/${projectId}/domains/${domain.id}/verify`);
      assert.equal(again.status, 404);
    },
  );

  await t.step("invalid domains are refused with 400", async () => {
    for (
      const bad of ["127.0.0.1", "localhost", "a..b.example", "x.example:443", "*.example.com"]
    ) {
      const res = await api("POST", `/projects/${projectId}/domains`, { domain: bad });
      assert.equal(res.status, 400, bad);
    }
  });
});

async function startDnsServerDisposable() {
  const dns = await startDnsServer();
  return Object.assign(dns, { [Symbol.asyncDispose]: () => dns.close() });
}
