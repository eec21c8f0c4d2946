/**
 * Custom domains end to end: a real DNS server on 127.0.0.1 (npm dns2)
 * answers the TXT lookups, and requests with the domain as Host get the
 * project's trust page.
 */
import assert from "node:assert/strict";
import { startDnsServer } from "../support/dns_server.ts";
import { getWithHost, rawRequest } from "../support/raw_http.ts";
import { jsonApi, startTestServer } from "../support/server.ts";
import { fakeClock } from "../../src/lib/clock.ts";
import { PENDING_DOMAIN_TTL_MS } from "../../src/domain/publish.ts";

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
    assert.deepEqual(byDomain.json, {
      profile: JSON.parse(canonical),
      openUpdates: [],
      certifications: [],
    });
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

Deno.test("[e2e] custom domains: a pending claim reserves nothing, the first verified TXT record wins, claims lapse", async (t) => {
  await using dns = await startDnsServerDisposable();
  const clock = fakeClock(new Date());
  await using server = await startTestServer({
    worker: false,
    clock,
    env: { DNS_NAMESERVER: `127.0.0.1:${dns.port}`, TRUST_PAGE_BASE: "http://trust.localhost" },
  });
  const teams = new Map<string, string>();
  /** Signs `name` in again (tokens follow the clock) and calls the API as that user. */
  const as = async (name: string) => jsonApi(server.baseUrl, await server.tokenFor(name));
  for (const name of ["alice", "mallory", "carol"]) {
    const { json } = await (await as(name))("POST", "/onboarding/bootstrap", {
      workspaceName: name,
      projectName: name,
      projectSlug: name,
      projectVisibility: "public",
    });
    teams.set(name, json.project.id);
    assert.equal(
      (await (await as(name))("POST", `/projects/${json.project.id}/publish`)).status,
      201,
    );
  }
  const domains = (name: string) => `/projects/${teams.get(name)}/domains`;
  const claim = async (name: string, domain = "trust.acme.example") =>
    await (await as(name))("POST", domains(name), { domain });
  const verify = async (name: string, id: string) =>
    await (await as(name))("POST", `${domains(name)}/${id}/verify`);
  const remove = async (name: string, id: string) => {
    const res = await fetch(`${server.baseUrl}${domains(name)}/${id}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${await server.tokenFor(name)}` },
    });
    await res.body?.cancel();
    return res.status;
  };
  const record = (...tokens: string[]) =>
    dns.records.set("_service.trust.acme.example", tokens.map((t) => [`trust-verification=${t}`]));

  let mallory = { id: "", token: "" };
  let alice = { id: "", token: "" };
  await t.step("a squatter's pending claim does not refuse the real owner's", async () => {
    const first = await claim("mallory");
    assert.equal(first.status, 201);
    mallory = {
      id: first.json.domain.domain.id,
      token: first.json.domain.domain.verificationToken,
    };
    const second = await claim("alice");
    assert.equal(second.status, 201, JSON.stringify(second.json));
    const summary = second.json.domain;
    assert.equal(summary.domain.verificationStatus, "pending");
    assert.equal(
      Date.parse(summary.expiresAt) - Date.parse(summary.domain.createdAt),
      PENDING_DOMAIN_TTL_MS,
      "the claim lapses after 7 days",
    );
    alice = { id: summary.domain.id, token: summary.domain.verificationToken };
    assert.notEqual(alice.token, mallory.token);
  });

  await t.step("one project claims a name once", async () => {
    const again = await claim("mallory");
    assert.equal(again.status, 409);
    assert.match(again.json.error.message, /already added to this project/);
  });

  await t.step("a claim whose TXT record is absent stays pending", async () => {
    record(alice.token);
    const res = await verify("mallory", mallory.id);
    assert.equal(res.status, 200);
    assert.equal(res.json.domain.domain.verificationStatus, "pending");
    assert.deepEqual(res.json.check.found, [`trust-verification=${alice.token}`]);
  });

  await t.step("the first claim whose TXT record verifies gets the name", async () => {
    const res = await verify("alice", alice.id);
    assert.equal(res.status, 200);
    assert.equal(res.json.domain.domain.verificationStatus, "verified");
    assert.equal(res.json.domain.expiresAt, null);
    const page = await getWithHost(server.baseUrl, "/trust.json", "trust.acme.example");
    assert.equal(JSON.parse(page.body).project.slug, "alice");
  });

  await t.step(
    "the others' verification fails with a clear message, even with their record",
    async () => {
      record(alice.token, mallory.token);
      const res = await verify("mallory", mallory.id);
      assert.equal(res.status, 409);
      assert.equal(res.json.error.code, "conflict");
      assert.match(res.json.error.message, /verified by another project/);
      const listed = await (await as("mallory"))("GET", domains("mallory"));
      assert.equal(listed.json.domains[0].domain.verificationStatus, "pending");
    },
  );

  await t.step("a verified name refuses new claims of other projects", async () => {
    const res = await claim("carol");
    assert.equal(res.status, 409);
    assert.match(res.json.error.message, /verified by another project/);
  });

  await t.step("removing a losing claim leaves the owner's domain served", async () => {
    assert.equal(await remove("mallory", mallory.id), 204);
    const page = await getWithHost(server.baseUrl, "/trust.json", "trust.acme.example");
    assert.equal(page.status, 200);
    assert.equal(JSON.parse(page.body).project.slug, "alice");
  });

  await t.step("a claim not verified within 7 days lapses", async () => {
    const pending = await claim("carol", "status.acme.example");
    assert.equal(pending.status, 201);
    const id = pending.json.domain.domain.id;
    clock.advance(PENDING_DOMAIN_TTL_MS - 1000);
    assert.equal((await (await as("carol"))("GET", domains("carol"))).json.domains.length, 1);
    clock.advance(1000);
    assert.deepEqual((await (await as("carol"))("GET", domains("carol"))).json.domains, []);
    dns.records.set("_service.status.acme.example", [[
      `trust-verification=${pending.json.domain.domain.verificationToken}`,
    ]]);
    const late = await verify("carol", id);
    assert.equal(late.status, 404);
    assert.match(late.json.error.message, /lapsed: it was not verified within 7 days/);
    const renewed = await claim("carol", "status.acme.example");
    assert.equal(renewed.status, 201, "a lapsed claim is replaced by a new one");
    assert.equal((await (await as("carol"))("GET", domains("carol"))).json.domains.length, 1);
  });

  await t.step("once the owner removes its domain, another claim can verify", async () => {
    assert.equal(await remove("alice", alice.id), 204);
    const fresh = await claim("carol");
    assert.equal(fresh.status, 201);
    record(fresh.json.domain.domain.verificationToken);
    const res = await verify("carol", fresh.json.domain.domain.id);
    assert.equal(res.json.domain.domain.verificationStatus, "verified");
    const page = await getWithHost(server.baseUrl, "/trust.json", "trust.acme.example");
    assert.equal(JSON.parse(page.body).project.slug, "carol");
  });
});

async function startDnsServerDisposable() {
  const dns = await startDnsServer();
  return Object.assign(dns, { [Symbol.asyncDispose]: () => dns.close() });
}
