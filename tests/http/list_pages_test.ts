/**
 * Cursors on the lists that grow without a cap: an organization's projects, members and
 * subscribers, a project's collectors and domains. For each: paging through with a small
 * `limit` gives the whole list, in the order of the unpaged answer, with nextCursor and
 * `Link: rel="next"` until the last page; a page reads its own entries (counted KV reads stay
 * far below the list's size); a cursor that is not one of the list's answers 400 in the error
 * envelope; a list written before its order index is read whole once and indexed.
 */
import assert from "node:assert/strict";
import { createTestApp, type TestApp } from "../support/app.ts";
import { countKvReads, type KvReadCounter } from "../support/kv_reads.ts";
import { addMember } from "../../src/store/organizations.ts";
import { confirmSubscription, requestSubscription } from "../../src/store/subscriptions.ts";
import { listMembershipsByOrganization } from "../../src/store/organizations.ts";
import { listProjectsByOrganization } from "../../src/store/projects.ts";
import { listCollectorsByProject } from "../../src/store/collectors.ts";
import { listDomainsByProject } from "../../src/store/domains.ts";
import { listSubscriptions } from "../../src/store/subscriptions.ts";
import { compareCodePoints } from "../../src/lib/order.ts";
import { ORDER_COLLECTIONS, type OrderedList } from "../../src/store/list_pages.ts";

const SIZE = 12;
const MINUTE = 60_000;

async function ok(res: Response, status = 200) {
  const body = await res.json();
  assert.equal(res.status, status, JSON.stringify(body));
  return body;
}

interface World {
  t: TestApp;
  token: string;
  organizationId: string;
  projectId: string;
  reads: KvReadCounter;
}

async function world(t: TestApp): Promise<World> {
  const token = await t.tokenFor("lena");
  const res = await t.call("POST", "/onboarding/bootstrap", {
    token,
    json: { workspaceName: "Pages", projectName: "Paged" },
  });
  assert.ok(res.ok, `bootstrap ${res.status}`);
  const boot = await res.json();
  return {
    t,
    token,
    organizationId: boot.organization.id,
    projectId: boot.project.id,
    reads: countKvReads(t.kv),
  };
}

/** The list's path, the array field, an item's identity, and how to add `SIZE` more items. */
interface Case {
  list: OrderedList;
  path: (w: World) => string;
  field: string;
  idOf: (item: Record<string, unknown>) => string;
  grow: (w: World) => Promise<void>;
  /** The ids in the order the list had before it was paged (its former whole read). */
  former: (w: World) => Promise<string[]>;
}

const CASES: Case[] = [
  {
    list: "projects",
    former: async (w) =>
      (await listProjectsByOrganization(w.t.kv, w.organizationId)).map((p) => p.id),
    path: (w) => `/organizations/${w.organizationId}/projects`,
    field: "projects",
    idOf: (p) => p.id as string,
    grow: async (w) => {
      for (let i = 0; i < SIZE; i++) {
        // Two at each instant, so ties go by slug.
        if (i % 2 === 0) w.t.clock.advance(MINUTE);
        await ok(
          await w.t.call("POST", "/projects", {
            token: w.token,
            json: { organizationId: w.organizationId, name: `P ${i}`, slug: `p-${SIZE - i}` },
          }),
          201,
        );
      }
    },
  },
  {
    list: "members",
    former: async (w) =>
      (await listMembershipsByOrganization(w.t.kv, w.organizationId)).map((m) => m.userId),
    path: (w) => `/organizations/${w.organizationId}/members`,
    field: "members",
    idOf: (m) => (m.user as { id: string }).id,
    grow: async (w) => {
      for (let i = 0; i < SIZE; i++) {
        w.t.clock.advance(MINUTE);
        const me = await ok(
          await w.t.call("GET", "/me", { token: await w.t.tokenFor(`member-${i}`) }),
        );
        await addMember(w.t.kv, {
          organizationId: w.organizationId,
          userId: me.user.id,
          role: "member",
        }, w.t.clock.now());
      }
    },
  },
  {
    list: "subscribers",
    former: async (w) =>
      (await listSubscriptions(w.t.kv, w.organizationId, { now: w.t.clock.now() }))
        .sort((a, b) => compareCodePoints(b.createdAt, a.createdAt)).map((s) => s.id),
    path: (w) => `/organizations/${w.organizationId}/subscribers`,
    field: "subscribers",
    idOf: (s) => s.id as string,
    grow: async (w) => {
      for (let i = 0; i < SIZE; i++) {
        w.t.clock.advance(MINUTE);
        await requestSubscription(w.t.kv, {
          organizationId: w.organizationId,
          projectId: i % 3 === 0 ? w.projectId : null,
          email: `reader-${i}@example.org`,
        }, w.t.clock.now());
      }
      // Confirming some moves their expiry, not their place.
      const page = await ok(
        await w.t.call("GET", `/organizations/${w.organizationId}/subscribers`, {
          token: w.token,
        }),
      );
      for (const s of page.subscribers.slice(0, 4)) {
        assert.ok(await confirmSubscription(w.t.kv, s.id, w.t.clock.now()));
      }
    },
  },
  {
    list: "collectors",
    former: async (w) => (await listCollectorsByProject(w.t.kv, w.projectId)).map((c) => c.id),
    path: (w) => `/projects/${w.projectId}/collectors`,
    field: "collectors",
    idOf: (c) => c.id as string,
    grow: async (w) => {
      for (let i = 0; i < SIZE; i++) {
        w.t.clock.advance(MINUTE);
        await ok(
          await w.t.call("POST", `/projects/${w.projectId}/collectors`, {
            token: w.token,
            json: { name: `ci ${i}` },
          }),
          201,
        );
      }
    },
  },
  {
    list: "domains",
    former: async (w) =>
      (await listDomainsByProject(w.t.kv, w.projectId, w.t.clock.now())).map((d) => d.id),
    path: (w) => `/projects/${w.projectId}/domains`,
    field: "domains",
    idOf: (d) => (d.domain as { id: string }).id,
    grow: async (w) => {
      for (let i = 0; i < SIZE; i++) {
        w.t.clock.advance(MINUTE);
        await ok(
          await w.t.call("POST", `/projects/${w.projectId}/domains`, {
            token: w.token,
            json: { domain: `trust-${i}.example.com` },
          }),
          201,
        );
      }
    },
  },
];

/** Every page of `limit` from the first, with the reads of each; checks cursors and links. */
async function pageThrough(w: World, c: Case, limit: number) {
  const ids: string[] = [];
  const reads: number[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const query = `?limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`;
    w.reads.entries = 0;
    w.reads.on = true;
    const res = await w.t.call("GET", `${c.path(w)}${query}`, { token: w.token });
    w.reads.on = false;
    reads.push(w.reads.entries);
    const body = await ok(res);
    const items = body[c.field] as Record<string, unknown>[];
    assert.ok(items.length <= limit);
    ids.push(...items.map(c.idOf));
    const link = res.headers.get("link");
    if (body.nextCursor === null) {
      assert.equal(link, null);
      return { ids, reads };
    }
    assert.equal(typeof body.nextCursor, "string");
    assert.equal(
      link,
      `<${c.path(w)}?limit=${limit}&cursor=${encodeURIComponent(body.nextCursor)}>; rel="next"`,
    );
    cursor = body.nextCursor;
  }
  throw new Error("more than 100 pages");
}

for (const c of CASES) {
  Deno.test(`${c.list}: pages through the whole list in its order, reading only each page`, async () => {
    await using t = await createTestApp();
    const w = await world(t);
    await c.grow(w);
    const whole = await ok(await t.call("GET", c.path(w), { token: w.token }));
    const expected = (whole[c.field] as Record<string, unknown>[]).map(c.idOf);
    assert.ok(expected.length >= SIZE, `${expected.length} items`);
    assert.equal(whole.nextCursor, null);
    assert.equal(new Set(expected).size, expected.length);
    assert.deepEqual(expected, await c.former(w));

    const paged = await pageThrough(w, c, 3);
    assert.deepEqual(paged.ids, expected);
    assert.equal(paged.reads.length, Math.ceil(expected.length / 3));
    const perPage = Math.max(...paged.reads.slice(0, -1));
    // Authorization, the page's index entries and records, and the counts where the list
    // has them: a page of 3 out of more than a dozen reads far fewer entries than the list.
    const ownRecords = c.list === "subscribers" ? 2 * expected.length : 0;
    assert.ok(perPage < ownRecords + 3 * 6 + 20, `a page read ${perPage} entries`);

    for (const bad of ["not-a-cursor", "WzFd", "W10", "eyJhIjoxfQ", "%00", "a".repeat(601)]) {
      const res = await t.call("GET", `${c.path(w)}?cursor=${bad}`, { token: w.token });
      const body = await res.json();
      assert.equal(res.status, 400, bad);
      assert.equal(body.error.code, "validation_failed", bad);
    }
    for (const bad of ["0", "501", "x"]) {
      const res = await t.call("GET", `${c.path(w)}?limit=${bad}`, { token: w.token });
      assert.equal(res.status, 400, bad);
      assert.equal((await res.json()).error.code, "validation_failed");
    }
  });

  Deno.test(`${c.list}: a list stored before its order index is indexed on first read`, async () => {
    await using t = await createTestApp();
    const w = await world(t);
    await c.grow(w);
    const before = await ok(await t.call("GET", c.path(w), { token: w.token }));
    const expected = (before[c.field] as Record<string, unknown>[]).map(c.idOf);
    const collection = ORDER_COLLECTIONS[c.list];
    const parent = c.list === "collectors" || c.list === "domains" ? w.projectId : w.organizationId;
    const op = t.kv.atomic().delete([collection, parent]);
    let removed = 0;
    for await (const entry of t.kv.list({ prefix: [collection, parent] })) {
      op.delete(entry.key);
      removed++;
    }
    assert.ok(removed >= SIZE);
    assert.ok((await op.commit()).ok);

    const paged = await pageThrough(w, c, 5);
    assert.deepEqual(paged.ids, expected);
    let indexed = 0;
    for await (const _ of t.kv.list({ prefix: [collection, parent] })) indexed++;
    assert.equal(indexed, expected.length);
    assert.equal((await t.kv.get([collection, parent])).value, true);
  });
}

Deno.test("a removed item leaves its list's pages, and a stale entry is skipped", async () => {
  await using t = await createTestApp();
  const w = await world(t);
  const domains = CASES.find((c) => c.list === "domains")!;
  await domains.grow(w);
  const whole = await ok(await t.call("GET", domains.path(w), { token: w.token }));
  const ids = (whole.domains as Record<string, unknown>[]).map(domains.idOf);
  const del = await t.call("DELETE", `/projects/${w.projectId}/domains/${ids[2]}`, {
    token: w.token,
  });
  assert.equal(del.status, 204);
  // A record gone behind the index's back (as an expired claim is).
  await t.kv.delete(["domains", ids[5]]);
  const paged = await pageThrough(w, domains, 2);
  assert.deepEqual(paged.ids, ids.filter((_, i) => i !== 2 && i !== 5));
  let entries = 0;
  for await (const _ of t.kv.list({ prefix: ["domains_by_created", w.projectId] })) entries++;
  assert.equal(entries, ids.length - 2);
});

Deno.test("paged lists: who may read them", async () => {
  await using t = await createTestApp();
  const w = await world(t);
  const stranger = await t.tokenFor("stranger");
  for (const c of CASES) {
    const anonymous = await t.call("GET", `${c.path(w)}?limit=1`);
    assert.equal(anonymous.status, 401, c.list);
    await anonymous.body?.cancel();
    const other = await t.call("GET", `${c.path(w)}?limit=1`, { token: stranger });
    assert.equal(other.status, 403, c.list);
    await other.body?.cancel();
  }
  // A member sees subscriber counts but no addresses, and so no cursor.
  const me = await ok(await t.call("GET", "/me", { token: await t.tokenFor("mia") }));
  await addMember(
    t.kv,
    { organizationId: w.organizationId, userId: me.user.id, role: "member" },
    t.clock.now(),
  );
  await requestSubscription(t.kv, {
    organizationId: w.organizationId,
    projectId: null,
    email: "a@example.org",
  }, t.clock.now());
  const asMember = await ok(
    await t.call("GET", `/organizations/${w.organizationId}/subscribers?limit=1`, {
      token: await t.tokenFor("mia"),
    }),
  );
  assert.equal(asMember.subscribers, null);
  assert.equal(asMember.nextCursor, null);
  assert.deepEqual(asMember.counts, [{ projectId: null, confirmed: 0, pending: 1 }]);
});
