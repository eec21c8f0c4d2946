/**
 * Personal access tokens (docs/api_access.md): shown once and stored hashed, accepted on their
 * organization's routes within their scope, listed with last use, revocable, expiring.
 */
import assert from "node:assert/strict";
import { sha256Hex } from "../../src/lib/hash.ts";
import { createTestApp, snapshotKv, type TestApp } from "../support/app.ts";
import { team } from "../support/fixtures.ts";

async function status(ctx: TestApp, method: string, path: string, token?: string, json?: unknown) {
  const res = await ctx.call(method, path, { token, json });
  await res.body?.cancel();
  return res.status;
}

async function create(
  ctx: TestApp,
  orgId: string,
  session: string,
  json: Record<string, unknown>,
) {
  const res = await ctx.call("POST", `/organizations/${orgId}/access-tokens`, {
    token: session,
    json,
  });
  assert.equal(res.status, 201, await res.clone().text());
  assert.equal(res.headers.get("cache-control"), "no-store");
  return await res.json() as { token: string; accessToken: { id: string; lastUsedAt: unknown } };
}

async function allKv(ctx: TestApp): Promise<string> {
  const parts: string[] = [];
  for await (const entry of ctx.kv.list({ prefix: [] })) {
    parts.push(
      JSON.stringify(entry.key),
      JSON.stringify(
        entry.value,
        (_, v) => typeof v === "bigint" ? `${v}` : v instanceof Uint8Array ? "" : v,
      ),
    );
  }
  return parts.join("\n");
}

Deno.test("[http] personal access tokens: scope, organization, last use, revocation, expiry", async (t) => {
  await using ctx = await createTestApp();
  const { owner, member, stranger, orgId, project } = await team(ctx);
  const read = await create(ctx, orgId, owner, {
    name: "CI read",
    scope: "read",
    expiresInDays: 30,
  });
  ctx.clock.advance(1000);
  const write = await create(ctx, orgId, owner, {
    name: "Ops",
    scope: "read-write",
    expiresInDays: 365,
  });
  const retention = `/projects/${project.id}/retention`;
  const setting = { days: 30, recordsPerType: 5 };

  await t.step("only the hash is stored", async () => {
    assert.match(read.token, /^tpat_[A-Za-z0-9_-]{40,}$/);
    const stored = await allKv(ctx);
    assert.ok(!stored.includes(read.token) && !stored.includes(write.token.slice(5)));
    assert.ok(stored.includes(await sha256Hex(read.token)));
    assert.equal(read.accessToken.lastUsedAt, null);
  });

  const usedAt = ctx.clock.now().toISOString();
  await t.step("a read-only token reads and is refused with 403 on writes", async () => {
    assert.equal(await status(ctx, "GET", `/organizations/${orgId}`, read.token), 200);
    assert.equal(await status(ctx, "GET", retention, read.token), 200);
    const before = await snapshotKv(ctx.kv);
    const res = await ctx.call("PUT", retention, { token: read.token, json: setting });
    assert.equal(res.status, 403);
    assert.match((await res.json()).error.message, /read-only/);
    assert.equal(await snapshotKv(ctx.kv), before);
  });

  await t.step("a read-write token writes as its holder", async () => {
    assert.equal(await status(ctx, "PUT", retention, write.token, setting), 200);
    const { retention: rule } = await (await ctx.call("GET", retention, { token: owner })).json();
    assert.deepEqual(rule.setting, setting);
  });

  await t.step("other organizations, tokens, deletion and the keys are out of reach", async () => {
    const other = await ctx.call("POST", "/organizations", {
      token: stranger,
      json: { name: "Else", slug: "else" },
    });
    const otherId = (await other.json()).organization.id;
    for (
      const [method, path] of [
        ["GET", `/organizations/${otherId}`],
        ["GET", "/me"],
        ["POST", "/organizations"],
        ["GET", `/organizations/${orgId}/access-tokens`],
        ["POST", `/organizations/${orgId}/access-tokens`],
        ["POST", `/organizations/${orgId}/deletion`],
        ["POST", `/projects/${project.id}/deletion`],
        ["GET", `/organizations/${orgId}/export?include=keys-and-log`],
      ]
    ) {
      const before = await snapshotKv(ctx.kv);
      const json = method === "GET" ? undefined : {};
      assert.equal(await status(ctx, method, path, write.token, json), 403, `${method} ${path}`);
      assert.equal(await snapshotKv(ctx.kv), before);
    }
    const exported = await ctx.call("GET", `/organizations/${orgId}/export`, { token: read.token });
    assert.equal(exported.status, 200);
    await exported.body?.cancel();
  });

  await t.step(
    "listed with last use, without the token; a member sees only their own",
    async () => {
      ctx.clock.advance(60_000);
      const mine = await create(ctx, orgId, member, {
        name: "Member's",
        scope: "read",
        expiresInDays: 1,
      });
      const list = await (await ctx.call("GET", `/organizations/${orgId}/access-tokens`, {
        token: owner,
      })).json();
      assert.deepEqual(list.accessTokens.map((x: { name: string }) => x.name), [
        "CI read",
        "Ops",
        "Member's",
      ]);
      assert.equal(list.accessTokens[0].lastUsedAt, usedAt);
      assert.equal(list.accessTokens[2].lastUsedAt, null);
      assert.ok(!JSON.stringify(list).includes("tpat_") && !JSON.stringify(list).includes("Hash"));
      const members = await (await ctx.call("GET", `/organizations/${orgId}/access-tokens`, {
        token: member,
      })).json();
      assert.deepEqual(members.accessTokens.map((x: { id: string }) => x.id), [
        mine.accessToken.id,
      ]);
      assert.equal(
        await status(
          ctx,
          "DELETE",
          `/organizations/${orgId}/access-tokens/${read.accessToken.id}`,
          member,
        ),
        404,
      );
      assert.equal(
        await status(ctx, "GET", `/organizations/${orgId}/access-tokens`, stranger),
        403,
      );
    },
  );

  await t.step("a revoked token is refused from the next request on", async () => {
    const path = `/organizations/${orgId}/access-tokens/${read.accessToken.id}`;
    assert.equal(await status(ctx, "DELETE", path, owner), 204);
    assert.equal(await status(ctx, "GET", `/organizations/${orgId}`, read.token), 401);
    assert.equal(await status(ctx, "DELETE", path, owner), 404);
    assert.ok(!(await allKv(ctx)).includes(await sha256Hex(read.token)));
  });

  await t.step("an expired token is refused and no longer listed", async () => {
    ctx.clock.advance(366 * 24 * 3600 * 1000);
    assert.equal(await status(ctx, "GET", `/organizations/${orgId}`, write.token), 401);
    const fresh = await ctx.tokenFor("owner", { email: "owner@acme.test" });
    const list = await (await ctx.call("GET", `/organizations/${orgId}/access-tokens`, {
      token: fresh,
    })).json();
    assert.deepEqual(list.accessTokens, []);
  });
});

Deno.test("[http] personal access tokens: bad requests are a 400 that changes nothing", async () => {
  await using ctx = await createTestApp();
  const { owner, orgId } = await team(ctx);
  const before = await snapshotKv(ctx.kv);
  for (
    const json of [
      { name: "x", scope: "read", expiresInDays: 366 },
      { name: "x", scope: "read", expiresInDays: 0 },
      { name: "x", scope: "read", expiresInDays: 1.5 },
      { name: "x", scope: "admin", expiresInDays: 10 },
      { name: "", scope: "read", expiresInDays: 10 },
      { name: "x\ny", scope: "read", expiresInDays: 10 },
      { name: "x", scope: "read", expiresInDays: 10, extra: 1 },
      { scope: "read", expiresInDays: 10 },
    ]
  ) {
    const res = await ctx.call("POST", `/organizations/${orgId}/access-tokens`, {
      token: owner,
      json,
    });
    assert.equal(res.status, 400, JSON.stringify(json));
    assert.equal((await res.json()).error.code, "validation_failed");
  }
  for (const token of ["tpat_unknown", "tpat_" + "a".repeat(500)]) {
    assert.equal(await status(ctx, "GET", `/organizations/${orgId}`, token), 401);
  }
  assert.equal(
    await status(ctx, "DELETE", `/organizations/${orgId}/access-tokens/not-a-uuid`, owner),
    400,
  );
  assert.equal(await snapshotKv(ctx.kv), before);
});
