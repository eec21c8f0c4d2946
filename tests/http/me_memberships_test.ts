/**
 * GET /me with many memberships: every organization once, sorted by slug, with the caller's
 * role in each, read in batches (more than one batch of ten here) — the same body as before.
 */
import assert from "node:assert/strict";
import { createTestApp } from "../support/app.ts";
import { addMember, createOrganization } from "../../src/store/organizations.ts";

Deno.test("GET /me lists 25 memberships in the spec's shape", async () => {
  await using t = await createTestApp();
  const token = await t.tokenFor("mia");
  const first = await t.call("GET", "/me", { token });
  assert.equal(first.status, 200);
  const { user } = await first.json();
  const other = await t.tokenFor("noa");
  const { user: owner } = await (await t.call("GET", "/me", { token: other })).json();
  const now = t.clock.now();
  const expected: Array<{ id: string; name: string; slug: string; role: string }> = [];
  for (let i = 0; i < 25; i++) {
    const mine = i % 2 === 0;
    const org = await createOrganization(t.kv, {
      name: `Org ${String(24 - i).padStart(2, "0")}`,
      ownerUserId: mine ? user.id : owner.id,
    }, now);
    if (!mine) {
      await addMember(t.kv, { organizationId: org.id, userId: user.id, role: "member" }, now);
    }
    expected.push({ id: org.id, name: org.name, slug: org.slug, role: mine ? "owner" : "member" });
  }
  await createOrganization(t.kv, { name: "Not mine", ownerUserId: owner.id }, now);

  const res = await t.call("GET", "/me", { token });
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.deepEqual(Object.keys(body).sort(), ["organizations", "user"]);
  assert.equal(body.user.id, user.id);
  expected.sort((a, b) => a.slug < b.slug ? -1 : 1);
  assert.deepEqual(body.organizations, expected);
});
