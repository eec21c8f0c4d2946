import assert from "node:assert/strict";
import type { Invitation } from "../../src/domain/workspace.ts";
import { acceptInvitation, createInvitation, getInvitation } from "../../src/store/invitations.ts";
import { getMembership, newMembership } from "../../src/store/organizations.ts";

const ORG = "00000000-0000-4000-8000-000000000001";
const USER = "00000000-0000-4000-8000-000000000002";
const NOW = new Date("2026-01-01T00:00:00Z");

function invitation(): Invitation {
  return {
    id: crypto.randomUUID(),
    organizationId: ORG,
    email: "ada@example.com",
    role: "member",
    invitedByUserId: USER,
    createdAt: NOW.toISOString(),
    expiresAt: new Date(NOW.getTime() + 3600 * 1000).toISOString(),
  };
}

Deno.test("[store] createInvitation() rejects a taken token hash", async (t) => {
  await using kv = await Deno.openKv(":memory:");
  const first = invitation();

  await t.step("the invitation is stored unaccepted under its hash", async () => {
    await createInvitation(kv, "token-hash", first);
    assert.deepEqual((await getInvitation(kv, "token-hash"))?.value, {
      ...first,
      acceptedAt: null,
    });
    assert.equal(await getInvitation(kv, "other-hash"), null);
  });

  await t.step("a second invitation under the same hash is refused", async () => {
    await assert.rejects(() => createInvitation(kv, "token-hash", invitation()), /collision/);
    assert.equal((await getInvitation(kv, "token-hash"))?.value.id, first.id);
  });
});

Deno.test("[store] acceptInvitation() accepts an invitation once", async (t) => {
  await using kv = await Deno.openKv(":memory:");
  await createInvitation(kv, "token-hash", invitation());
  const entry = await getInvitation(kv, "token-hash");

  await t.step("it is marked accepted and the membership added", async () => {
    const membership = newMembership(ORG, USER, "member", NOW);
    assert.equal(await acceptInvitation(kv, entry!, { membership, now: NOW }), true);
    assert.equal((await getInvitation(kv, "token-hash"))?.value.acceptedAt, NOW.toISOString());
    assert.deepEqual(await getMembership(kv, ORG, USER), membership);
  });

  await t.step("accepting the same read again fails and adds nothing", async () => {
    const other = "00000000-0000-4000-8000-000000000003";
    const membership = newMembership(ORG, other, "member", NOW);
    assert.equal(await acceptInvitation(kv, entry!, { membership, now: NOW }), false);
    assert.equal(await getMembership(kv, ORG, other), null);
  });
});
