/**
 * Every bounded collection answers 409 `conflict` once full (the collection's state, not the
 * request, is what refuses), and a refusal changes nothing.
 */
import assert from "node:assert/strict";
import { MAX_SUBPROCESSORS } from "../../src/domain/subprocessors.ts";
import { MAX_UPDATES_PER_PROJECT } from "../../src/domain/updates.ts";
import { MAX_WEBHOOKS_PER_PROJECT, MAX_WEBHOOKS_PER_USER } from "../../src/domain/webhooks.ts";
import { createTestApp, snapshotKv, type TestApp } from "../support/app.ts";
import { team } from "../support/fixtures.ts";

async function fill(count: number, request: (i: number) => Promise<Response>) {
  for (let i = 0; i < count; i++) {
    const res = await request(i);
    assert.equal(res.status, 201, await res.text());
  }
}

async function refusedWithConflict(ctx: TestApp, request: () => Promise<Response>, what: RegExp) {
  const before = await snapshotKv(ctx.kv);
  const res = await request();
  assert.equal(res.status, 409);
  const body = await res.json();
  assert.equal(body.error.code, "conflict");
  assert.match(body.error.message, what);
  assert.equal(await snapshotKv(ctx.kv), before);
}

Deno.test("[http] full collections answer 409 and change nothing", async (t) => {
  await using ctx = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: "false" } });
  const { owner, member, orgId, project } = await team(ctx);

  await t.step(`subprocessors: ${MAX_SUBPROCESSORS} per organization`, async () => {
    const add = (i: number) =>
      ctx.call("POST", `/organizations/${orgId}/subprocessors`, {
        token: owner,
        json: {
          name: `Vendor ${i}`,
          purpose: "Hosting",
          location: "EU",
          website: "https://v.example",
        },
      });
    await fill(MAX_SUBPROCESSORS, add);
    await refusedWithConflict(ctx, () => add(MAX_SUBPROCESSORS), /at most 200 subprocessors/);
  });

  await t.step(`updates: ${MAX_UPDATES_PER_PROJECT} per project`, async () => {
    const post = (i: number) =>
      ctx.call("POST", `/projects/${project.id}/updates`, {
        token: owner,
        json: { kind: "change", title: `Change ${i}`, body: "Routine maintenance." },
      });
    await fill(MAX_UPDATES_PER_PROJECT, post);
    await refusedWithConflict(ctx, () => post(MAX_UPDATES_PER_PROJECT), /at most 500 updates/);
  });

  await t.step(
    `webhooks: ${MAX_WEBHOOKS_PER_USER} per user, ${MAX_WEBHOOKS_PER_PROJECT} per project`,
    async () => {
      const register = (token: string, i: number) =>
        ctx.call("POST", `/projects/${project.id}/webhooks`, {
          token,
          json: { url: `https://93.184.215.14/hooks/${i}`, events: ["version.published"] },
        });
      await fill(MAX_WEBHOOKS_PER_USER, (i) => register(owner, i));
      await refusedWithConflict(ctx, () => register(owner, 99), /registers at most 20 webhooks/);
      // The project's own cap, reached by other members' endpoints.
      const others = await Promise.all(
        [1, 2].map((n) => ctx.tokenFor(`member-${n}`, { email: `m${n}@acme.test` })),
      );
      for (const [n, token] of others.entries()) {
        const invited = await ctx.call("POST", `/organizations/${orgId}/invitations`, {
          token: owner,
          json: { email: `m${n + 1}@acme.test`, role: "member" },
        });
        const link = new URL((await invited.json()).acceptUrl).hash.slice("#invitation=".length);
        assert.equal(
          (await ctx.call("POST", `/invitations/${link}/accept`, { token })).status,
          200,
        );
      }
      const writers = [member, ...others];
      const remaining = MAX_WEBHOOKS_PER_PROJECT - MAX_WEBHOOKS_PER_USER;
      await fill(remaining, (i) => register(writers[i % writers.length], 100 + i));
      await refusedWithConflict(ctx, () => register(others[1], 999), /at most 50 webhooks/);
    },
  );
});
