/**
 * End to end against a real OpenID provider (npm oidc-provider issuing JWT
 * access tokens) and the real server listening on 127.0.0.1.
 */
import assert from "node:assert/strict";
import { encodeBase64Url } from "../../src/lib/encoding.ts";
import { startTestIdp } from "../support/oidc_provider.ts";
import { startTestServer } from "../support/server.ts";

const RESOURCE = "https://api.trust.test";

function bearer(token: string) {
  return { authorization: `Bearer ${token}` };
}

Deno.test("[e2e] OIDC mode: tokens from a real provider", async (t) => {
  await using idp = await startTestIdp({
    resource: RESOURCE,
    extraResources: ["https://other-api.test"],
  });
  await using rogue = await startTestIdp({ resource: RESOURCE });
  let skewMs = 0;
  await using server = await startTestServer({
    env: { AUTH_MODE: "oidc", AUTH_ISSUER: idp.issuer, AUTH_AUDIENCE: RESOURCE },
    clock: { now: () => new Date(Date.now() + skewMs) },
  });
  const api = (path: string, init: RequestInit = {}) => fetch(server.baseUrl + path, init);
  const post = (path: string, token: string, body: unknown, method = "POST") =>
    api(path, {
      method,
      headers: { ...bearer(token), "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  const alice = await idp.tokenFor({ sub: "alice", email: "alice@acme.test", name: "Alice" });

  await t.step("GET /me with a valid token creates the user from its claims", async () => {
    const res = await api("/me", { headers: bearer(alice) });
    assert.equal(res.status, 200);
    const me = await res.json();
    assert.equal(me.user.idpSub, "alice");
    assert.equal(me.user.email, "alice@acme.test");
    assert.equal(me.user.name, "Alice");
  });

  const [header, payload] = alice.split(".");
  const unsigned = `${
    encodeBase64Url(new TextEncoder().encode('{"alg":"none","typ":"at+jwt"}'))
  }.${payload}.`;
  const tampered = `${header}.${
    encodeBase64Url(new TextEncoder().encode(JSON.stringify({
      ...JSON.parse(
        new TextDecoder().decode(
          Uint8Array.from(atob(payload.replace(/-/g, "+").replace(/_/g, "/")), (c) =>
            c.charCodeAt(0)),
        ),
      ),
      sub: "mallory",
    })))
  }.${alice.split(".")[2]}`;
  const cases: Array<[string, () => Promise<Record<string, string>>]> = [
    ["missing", () => Promise.resolve({})],
    ["not Bearer", () => Promise.resolve({ authorization: `Basic ${btoa("a:b")}` })],
    ["malformed", () => Promise.resolve(bearer("not.a.jwt!"))],
    ["unsigned (alg none)", () => Promise.resolve(bearer(unsigned))],
    ["tampered payload", () => Promise.resolve(bearer(tampered))],
    ["wrong issuer", async () => bearer(await rogue.tokenFor({ sub: "alice", email: "a@a.test" }))],
    [
      "wrong audience",
      async () =>
        bearer(
          await idp.tokenFor({ sub: "alice", email: "a@a.test" }, {
            resource: "https://other-api.test",
          }),
        ),
    ],
  ];
  for (const [name, headers] of cases) {
    await t.step(`401 for a ${name} token, with WWW-Authenticate`, async () => {
      const res = await api("/me", { headers: await headers() });
      assert.equal(res.status, 401);
      assert.match(res.headers.get("www-authenticate") ?? "", /^Bearer /);
      assert.equal((await res.json()).error.code, "unauthorized");
    });
  }

  await t.step("401 for an expired token, with WWW-Authenticate", async () => {
    skewMs = 2 * 3600 * 1000;
    try {
      const res = await api("/me", { headers: bearer(alice) });
      assert.equal(res.status, 401);
      assert.match(res.headers.get("www-authenticate") ?? "", /expired/);
      assert.match((await res.json()).error.message, /expired/);
    } finally {
      skewMs = 0;
    }
  });

  let org = { id: "" };
  let project = { id: "", slug: "" };
  await t.step("bootstrap answers 201, then 409", async () => {
    const res = await post("/onboarding/bootstrap", alice, {
      workspaceName: "Acme",
      projectName: "Acme Cloud",
      projectSlug: "acme-cloud",
    });
    assert.equal(res.status, 201);
    ({ organization: org, project } = await res.json());
    const again = await post("/onboarding/bootstrap", alice, {
      workspaceName: "Acme",
      projectName: "Other",
    });
    assert.equal(again.status, 409);
    await again.body?.cancel();
  });

  const bob = await idp.tokenFor({ sub: "bob", email: "bob@other.test", name: "Bob" });

  await t.step("20 concurrent bootstraps by one user over HTTP give exactly one 201", async () => {
    const responses = await Promise.all(
      Array.from(
        { length: 20 },
        () =>
          post("/onboarding/bootstrap", bob, { workspaceName: "Bob Co", projectName: "Bob App" }),
      ),
    );
    const statuses = responses.map((r) => r.status).sort();
    await Promise.all(responses.map((r) => r.body?.cancel()));
    assert.deepEqual(statuses, [201, ...Array(19).fill(409)]);
  });

  await t.step("project slugs are unique across organizations", async () => {
    const bobMe = await (await api("/me", { headers: bearer(bob) })).json();
    const res = await post("/projects", bob, {
      organizationId: bobMe.organizations[0].id,
      name: "Copy",
      slug: "acme-cloud",
    });
    assert.equal(res.status, 409);
    assert.equal((await res.json()).error.code, "conflict");
  });

  await t.step("403 for a member of another organization on every route", async () => {
    const routes: Array<[string, string, unknown?]> = [
      ["GET", `/organizations/${org.id}`],
      ["GET", `/organizations/${org.id}/projects`],
      ["GET", `/organizations/${org.id}/members`],
      ["POST", `/organizations/${org.id}/invitations`, { email: "x@y.test", role: "member" }],
      ["DELETE", `/organizations/${org.id}/members/${crypto.randomUUID()}`],
      ["POST", "/projects", { organizationId: org.id, name: "Intruder" }],
      ["GET", `/projects/${project.id}`],
      ["PATCH", `/projects/${project.id}`, { name: "Hijacked" }],
      ["GET", `/projects/${project.id}/controls`],
    ];
    for (const [method, path, body] of routes) {
      const res = await api(path, {
        method,
        headers: { ...bearer(bob), "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      assert.equal(res.status, 403, `${method} ${path}`);
      const { error } = await res.json();
      assert.equal(error.code, "forbidden");
      assert.doesNotMatch(error.message, /Acme/);
    }
    const unknownProject = await api(`/projects/${crypto.randomUUID()}`, { headers: bearer(bob) });
    assert.equal(unknownProject.status, 403, "an unknown id looks like a foreign one");
    await unknownProject.body?.cancel();
    const check = await (await api(`/projects/${project.id}`, { headers: bearer(alice) })).json();
    assert.equal(check.project.name, "Acme Cloud");
  });

  await t.step("PATCH with slug answers 400 and changes nothing", async () => {
    const res = await post(`/projects/${project.id}`, alice, { slug: "renamed" }, "PATCH");
    assert.equal(res.status, 400);
    assert.equal((await res.json()).error.code, "validation_failed");
    const after = await (await api(`/projects/${project.id}`, { headers: bearer(alice) })).json();
    assert.equal(after.project.slug, "acme-cloud");
    assert.equal(after.project.updatedAt, after.project.createdAt);
  });

  await t.step("the authorization server metadata describes the external provider", async () => {
    const meta = await (await api("/.well-known/oauth-authorization-server")).json();
    assert.equal(meta.issuer, idp.issuer);
    assert.ok(meta.token_endpoint.startsWith(idp.issuer));
  });

  await t.step("no token ever appears in the logs", () => {
    const logs = server.log.lines.join("\n");
    assert.ok(!logs.includes(alice.split(".")[2]));
  });
});
