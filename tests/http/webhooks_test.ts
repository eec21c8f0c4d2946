import assert from "node:assert/strict";
import type { TrustEvent } from "../../src/domain/events.ts";
import { createTestApp, snapshotKv, type TestApp } from "../support/app.ts";
import { startDnsServer } from "../support/dns_server.ts";
import { type Workspace, workspace } from "../support/fixtures.ts";

/** A public address (TEST-NET-3) written as an IP literal, so no lookup is needed. */
/** Global unicast addresses (ones example.com has had); tests never connect to them. */
const PUBLIC_V4 = "93.184.215.14";
const PUBLIC_V6 = "2606:2800:21f:cb07:6820:80da:af6b:8b2c";
const PUBLIC_URL = `https://${PUBLIC_V4}/hooks/trust`;

const base = (ws: Workspace) => `/projects/${ws.project.id}/webhooks`;

async function create(ctx: TestApp, ws: Workspace, body: Record<string, unknown>, token?: string) {
  return await ctx.call("POST", base(ws), {
    token: token ?? ws.token,
    json: { url: PUBLIC_URL, events: ["control.regressed"], ...body },
  });
}

async function created(ctx: TestApp, ws: Workspace, body: Record<string, unknown> = {}) {
  const res = await create(ctx, ws, body);
  assert.equal(res.status, 201, await res.clone().text());
  return await res.json();
}

async function member(ctx: TestApp, ws: Workspace, sub: string): Promise<string> {
  const token = await ctx.tokenFor(sub);
  const invite = await ctx.call("POST", `/organizations/${ws.organization.id}/invitations`, {
    token: ws.token,
    json: { email: `${sub}@example.com`, role: "member" },
  });
  const invitation = (await invite.json()).acceptUrl.split("#invitation=")[1];
  const accepted = await ctx.call("POST", `/invitations/${invitation}/accept`, { token });
  assert.equal(accepted.status, 200);
  await accepted.body?.cancel();
  return token;
}

Deno.test("[http] webhooks: register, read, change, rotate and remove", async (t) => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "owner");

  await t.step("an ed25519 endpoint names the service key; no secret", async () => {
    const body = await created(ctx, ws, { description: "SIEM" });
    assert.equal(body.secret, null);
    assert.equal(body.webhook.signing, "ed25519");
    assert.match(body.webhook.publicKey, /^whpk_[A-Za-z0-9+/]{43}=$/);
    const jwks = await (await ctx.call("GET", "/.well-known/jwks.json")).json();
    const key = jwks.keys.find((k: { kid: string }) => k.kid === body.webhook.keyId);
    assert.equal(key.use, "sig");
    assert.equal(key.crv, "Ed25519");
    const rotate = await ctx.call("POST", `${base(ws)}/${body.webhook.id}/rotate-secret`, {
      token: ws.token,
    });
    assert.equal(rotate.status, 400);
    await rotate.body?.cancel();
  });

  await t.step("an hmac endpoint's secret is shown once, then rotated", async () => {
    const body = await created(ctx, ws, { signing: "hmac", events: ["version.published"] });
    assert.match(body.secret.value, /^whsec_[A-Za-z0-9+/]{43}=$/);
    const id = body.webhook.id;
    const read = await (await ctx.call("GET", `${base(ws)}/${id}`, { token: ws.token })).text();
    assert.ok(!read.includes(body.secret.value.slice(6)), "the secret is not shown again");
    assert.equal(JSON.parse(read).webhook.publicKey, null);
    const rotated = await ctx.call("POST", `${base(ws)}/${id}/rotate-secret`, { token: ws.token });
    assert.equal(rotated.status, 200);
    const next = (await rotated.json()).secret.value;
    assert.match(next, /^whsec_/);
    assert.notEqual(next, body.secret.value);
    const list = await (await ctx.call("GET", base(ws), { token: ws.token })).text();
    assert.ok(!list.includes(next.slice(6)) && !list.includes("whsec_"));
  });

  await t.step("a change keeps what it leaves out; an empty change is refused", async () => {
    const { webhook } = await created(ctx, ws);
    const path = `${base(ws)}/${webhook.id}`;
    const res = await ctx.call("PATCH", path, {
      token: ws.token,
      json: { events: ["control.regressed", "control.recovered"], enabled: false },
    });
    assert.equal(res.status, 200);
    const changed = (await res.json()).webhook;
    assert.deepEqual(changed.events, ["control.regressed", "control.recovered"]);
    assert.equal(changed.enabled, false);
    assert.equal(changed.url, PUBLIC_URL);
    const before = await snapshotKv(ctx.kv);
    const empty = await ctx.call("PATCH", path, { token: ws.token, json: {} });
    assert.equal(empty.status, 400);
    await empty.body?.cancel();
    const bad = await ctx.call("PATCH", path, {
      token: ws.token,
      json: { url: "https://10.1.2.3/x" },
    });
    assert.equal(bad.status, 400);
    await bad.body?.cancel();
    assert.equal(await snapshotKv(ctx.kv), before);
  });

  await t.step("removal: the endpoint is gone", async () => {
    const { webhook } = await created(ctx, ws);
    const path = `${base(ws)}/${webhook.id}`;
    const removed = await ctx.call("DELETE", path, { token: ws.token });
    assert.equal(removed.status, 200);
    assert.equal((await removed.json()).webhook.id, webhook.id);
    for (const method of ["GET", "DELETE"]) {
      const again = await ctx.call(method, path, { token: ws.token });
      assert.equal(again.status, 404);
      assert.equal((await again.json()).error.code, "not_found");
    }
    const deliveries = await ctx.call("GET", `${path}/deliveries`, { token: ws.token });
    assert.equal(deliveries.status, 404);
    await deliveries.body?.cancel();
  });
});

Deno.test("[http] webhooks: who may do what, and a refusal changes nothing", async (t) => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "owner");
  const { webhook } = await created(ctx, ws);
  const item = `${base(ws)}/${webhook.id}`;
  const stranger = await ctx.tokenFor("stranger");
  await (await ctx.call("GET", "/me", { token: stranger })).body?.cancel();
  const memberToken = await member(ctx, ws, "colleague");
  const calls: Array<[string, string, unknown?]> = [
    ["GET", base(ws)],
    ["POST", base(ws), { url: PUBLIC_URL, events: ["version.published"] }],
    ["GET", item],
    ["PATCH", item, { description: "x" }],
    ["DELETE", item],
    ["POST", `${item}/rotate-secret`],
    ["GET", `${item}/deliveries`],
    ["POST", `${item}/deliveries/${crypto.randomUUID()}/redeliver`],
    ["POST", `${item}/test`],
  ];

  await t.step("anonymous: 401; a stranger on a private project: 403", async () => {
    const before = await snapshotKv(ctx.kv);
    for (const [method, path, json] of calls) {
      const anonymous = await ctx.call(method, path, { json });
      assert.equal(anonymous.status, 401, `${method} ${path}`);
      assert.equal((await anonymous.json()).error.code, "unauthorized");
      const res = await ctx.call(method, path, { token: stranger, json });
      assert.equal(res.status, 403, `${method} ${path}`);
      assert.equal((await res.json()).error.code, "forbidden");
    }
    const unknown = await ctx.call("GET", `/projects/${crypto.randomUUID()}/webhooks`, {
      token: stranger,
    });
    assert.equal(unknown.status, 403, "an unknown project answers as a foreign one");
    await unknown.body?.cancel();
    assert.equal(await snapshotKv(ctx.kv), before);
  });

  await t.step("a member manages every endpoint of the project", async () => {
    const list = await (await ctx.call("GET", base(ws), { token: memberToken })).json();
    assert.deepEqual(list.webhooks.map((w: { id: string }) => w.id), [webhook.id]);
    assert.equal(list.webhooks[0].mine, false);
    const res = await ctx.call("PATCH", item, { token: memberToken, json: { description: "m" } });
    assert.equal(res.status, 200);
    await res.body?.cancel();
  });

  await t.step("on a public project a signed-in user manages only their own", async () => {
    const open = await ctx.call("PATCH", `/projects/${ws.project.id}`, {
      token: ws.token,
      json: { visibility: "public" },
    });
    await open.body?.cancel();
    const empty = await (await ctx.call("GET", base(ws), { token: stranger })).json();
    assert.deepEqual(empty.webhooks, [], "the owner's endpoint is not shown");
    const before = await snapshotKv(ctx.kv);
    for (const [method, path, json] of calls.slice(2)) {
      const res = await ctx.call(method, path, { token: stranger, json });
      assert.equal(res.status, 404, `${method} ${path}`);
      await res.body?.cancel();
    }
    assert.equal(await snapshotKv(ctx.kv), before);
    const own = await create(ctx, ws, {}, stranger);
    assert.equal(own.status, 201);
    const ownId = (await own.json()).webhook.id;
    const mine = await (await ctx.call("GET", base(ws), { token: stranger })).json();
    assert.deepEqual(mine.webhooks.map((w: { id: string }) => w.id), [ownId]);
    assert.equal(mine.webhooks[0].mine, true);
    const all = await (await ctx.call("GET", base(ws), { token: ws.token })).json();
    assert.equal(all.webhooks.length, 2, "members see the buyer's endpoint too");
  });
});

Deno.test("[http] webhooks: bad input is refused with 400 and stores nothing", async () => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "owner");
  const bodies: unknown[] = [
    {},
    { url: PUBLIC_URL },
    { url: PUBLIC_URL, events: [] },
    { url: PUBLIC_URL, events: ["control.exploded"] },
    { url: PUBLIC_URL, events: ["version.published", "version.published"] },
    { url: PUBLIC_URL, events: ["version.published"], signing: "rsa" },
    { url: PUBLIC_URL, events: ["version.published"], secret: "mine" },
    { url: 42, events: ["version.published"] },
    { url: `https://93.184.215.14/${"a".repeat(2100)}`, events: ["version.published"] },
    { url: "not a url", events: ["version.published"] },
    { url: "ftp://93.184.215.14/x", events: ["version.published"] },
    { url: "https://user:pw@93.184.215.14/x", events: ["version.published"] },
    { url: PUBLIC_URL, events: ["version.published"], description: "a\u0000b" },
  ];
  const before = await snapshotKv(ctx.kv);
  for (const json of bodies) {
    const res = await ctx.call("POST", base(ws), { token: ws.token, json });
    assert.equal(res.status, 400, JSON.stringify(json).slice(0, 80));
    const body = await res.json();
    assert.equal(body.error.code, "validation_failed");
  }
  const text = await ctx.call("POST", base(ws), {
    token: ws.token,
    body: "url=x",
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
  assert.equal(text.status, 415);
  await text.body?.cancel();
  const badCursor = await ctx.call(
    "GET",
    `${base(ws)}/${crypto.randomUUID()}/deliveries?cursor=x`,
    {
      token: ws.token,
    },
  );
  assert.equal(badCursor.status, 400);
  await badCursor.body?.cancel();
  assert.equal(await snapshotKv(ctx.kv), before);
});

Deno.test("[http] webhooks: only global unicast addresses are accepted: private, loopback, metadata, documentation and transition ranges are refused", async (t) => {
  const dns = await startDnsServer();
  try {
    dns.addresses.set("loopback.hooks.test", ["127.0.0.1"]);
    dns.addresses.set("mixed.hooks.test", [PUBLIC_V4, "10.0.0.8"]);
    dns.addresses.set("public.hooks.test", [PUBLIC_V4, PUBLIC_V6]);
    dns.addresses.set("compatible.hooks.test", ["::7f00:1"]);
    dns.addresses.set("documentation.hooks.test", ["2001:db8::7"]);
    await using ctx = await createTestApp({ env: { DNS_NAMESERVER: `127.0.0.1:${dns.port}` } });
    const ws = await workspace(ctx, "owner");
    const refused = [
      "https://127.0.0.1/hook",
      "https://127.1.2.3:8443/hook",
      "https://2130706433/hook",
      "https://10.0.0.1/hook",
      "https://172.16.5.4/hook",
      "https://192.168.1.20/hook",
      "https://169.254.169.254/latest/meta-data",
      "https://100.64.0.1/hook",
      "https://100.100.100.200/hook",
      "https://0.0.0.0/hook",
      "https://224.0.0.1/hook",
      "https://[::1]/hook",
      "https://[::]/hook",
      "https://[fc00::1]/hook",
      "https://[fd00:ec2::254]/hook",
      "https://[fe80::1]/hook",
      "https://[::ffff:127.0.0.1]/hook",
      "https://[::ffff:10.0.0.1]/hook",
      "https://[64:ff9b::a00:1]/hook",
      "https://localhost/hook",
      "https://api.localhost/hook",
      "https://loopback.hooks.test/hook",
      "https://mixed.hooks.test/hook",
      "https://nowhere.hooks.test/hook",
      "http://93.184.215.14/hook",
      "http://public.hooks.test/hook",
      // Classes the hand-written ranges missed, and the other special-purpose ranges.
      "https://[::127.0.0.1]/hook", // IPv4-compatible (::/96)
      "https://[::a00:1]/hook",
      "https://compatible.hooks.test/hook",
      "https://[2001:db8::1]/hook", // documentation
      "https://documentation.hooks.test/hook",
      "https://[3fff::1]/hook",
      "https://192.0.2.1/hook",
      "https://198.51.100.1/hook",
      "https://203.0.113.10/hook",
      "https://198.18.0.1/hook", // benchmarking
      "https://[2001:2::1]/hook",
      "https://255.255.255.255/hook",
      "https://192.88.99.1/hook", // 6to4 relay anycast
      "https://[2002:7f00:1::1]/hook", // 6to4 (embeds 127.0.0.1)
      "https://[2002:5db8:d70e::1]/hook", // 6to4, even with a public IPv4 inside
      "https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook", // Teredo
      "https://[64:ff9b::7f00:1]/hook", // NAT64 of a loopback address
      "https://[64:ff9b:1::a00:1]/hook", // local-use NAT64 (RFC 8215)
      "https://[::ffff:0:7f00:1]/hook", // IPv4-translated (RFC 6145)
      "https://[100::1]/hook", // discard
      "https://[fec0::1]/hook",
      "https://[ff02::1]/hook",
      "https://[2001:10::1]/hook", // ORCHID
      "https://[5f00::1]/hook", // segment routing
      "https://[4000::1]/hook", // outside 2000::/3
    ];
    const before = await snapshotKv(ctx.kv);
    for (const url of refused) {
      await t.step(url, async () => {
        const res = await ctx.call("POST", base(ws), {
          token: ws.token,
          json: { url, events: ["version.published"] },
        });
        assert.equal(res.status, 400);
        const { error } = await res.json();
        assert.equal(error.code, "validation_failed");
        assert.match(error.message, /non-public|https|resolve|address/);
      });
    }
    assert.equal(await snapshotKv(ctx.kv), before, "nothing was stored");
    const accepted = [
      "https://public.hooks.test/hook",
      `https://${PUBLIC_V4}/hook`,
      `https://[${PUBLIC_V6}]/hook`,
      `https://[::ffff:${PUBLIC_V4}]/hook`, // IPv4-mapped: judged as its IPv4
      "https://[64:ff9b::5db8:d70e]/hook", // NAT64 of the public IPv4 (DNS64 networks)
    ];
    for (const url of accepted) {
      await t.step(`${url} is accepted`, async () => {
        const res = await ctx.call("POST", base(ws), {
          token: ws.token,
          json: { url, events: ["version.published"] },
        });
        assert.equal(res.status, 201, await res.text());
      });
    }
  } finally {
    await dns.close();
  }
});

Deno.test("[http] webhooks: an event makes one delivery per subscribed endpoint", async () => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "owner", { visibility: "public" });
  const regressed = (await created(ctx, ws, { events: ["control.regressed"] })).webhook;
  const both = (await created(ctx, ws, {
    events: ["control.regressed", "subprocessor.changed"],
  })).webhook;
  const published = (await created(ctx, ws, { events: ["version.published"] })).webhook;
  const buyer = await ctx.tokenFor("buyer");
  const buyers = await create(ctx, ws, { events: ["control.regressed"] }, buyer);
  const buyerHook = (await buyers.json()).webhook;
  const second = await ctx.call("POST", "/projects", {
    token: ws.token,
    json: { organizationId: ws.organization.id, name: "Second" },
  });
  const secondWs = { ...ws, project: (await second.json()).project };
  const orgWide = (await created(ctx, secondWs, { events: ["subprocessor.changed"] })).webhook;
  const event = (type: TrustEvent["type"], projectId: string | null): TrustEvent => ({
    id: crypto.randomUUID(),
    type,
    timestamp: ctx.clock.now().toISOString(),
    organizationId: ws.organization.id,
    projectId,
    data: { count: 1 },
  });
  const deliveries = async (id: string, project = ws) =>
    (await (await ctx.call("GET", `${base(project)}/${id}/deliveries`, { token: ws.token }))
      .json()).deliveries;

  const regression = event("control.regressed", ws.project.id);
  await ctx.services.jobs.dispatch({ kind: "event", event: regression });
  await ctx.services.jobs.dispatch({ kind: "event", event: regression });
  for (const hook of [regressed, both, buyerHook]) {
    const list = await deliveries(hook.id);
    assert.equal(list.length, 1, "handed out twice, delivered once");
    assert.equal(list[0].messageId, regression.id);
    assert.equal(list[0].status, "pending");
    assert.deepEqual(list[0].payload, {
      type: "control.regressed",
      timestamp: regression.timestamp,
      data: {
        count: 1,
        eventId: regression.id,
        organizationId: ws.organization.id,
        projectId: ws.project.id,
      },
    });
  }
  assert.deepEqual(await deliveries(published.id), []);

  await ctx.services.jobs.dispatch({ kind: "event", event: event("subprocessor.changed", null) });
  assert.equal((await deliveries(both.id)).length, 2);
  assert.equal((await deliveries(orgWide.id, secondWs)).length, 1, "every project of the org");

  const hidden = await ctx.call("PATCH", `/projects/${ws.project.id}`, {
    token: ws.token,
    json: { visibility: "private" },
  });
  await hidden.body?.cancel();
  await ctx.services.jobs.dispatch({
    kind: "event",
    event: event("control.regressed", ws.project.id),
  });
  assert.equal((await deliveries(regressed.id)).length, 2, "a member's endpoint still receives");
  assert.equal(
    (await deliveries(buyerHook.id)).length,
    1,
    "a buyer's endpoint receives nothing from a private project",
  );
});
