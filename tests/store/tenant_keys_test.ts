/**
 * The register of tenant keys (src/store/tenant_keys.ts) cannot fall behind the store: every
 * key builder in src/store names a registered collection, every registered collection is still
 * built somewhere, every key a two-tenant world writes is in a registered collection, and every
 * entry that names one tenant (its ids or slugs, in the key or the value) is one the
 * enumeration of that tenant lists.
 */
import assert from "node:assert/strict";
import { fakeClock } from "../../src/lib/clock.ts";
import {
  KEY_COLLECTIONS,
  organizationKeys,
  projectKeys,
  userKeys,
} from "../../src/store/tenant_keys.ts";
import { dumpKv, startTenantWorld } from "../support/tenant_world.ts";

const STORE = new URL("../../src/store/", import.meta.url);

async function* sourceFiles(dir: URL): AsyncGenerator<{ path: string; text: string }> {
  for await (const entry of Deno.readDir(dir)) {
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
    if (entry.isDirectory) yield* sourceFiles(url);
    else if (entry.name.endsWith(".ts")) {
      yield { path: url.pathname, text: await Deno.readTextFile(url) };
    }
  }
}

/** Collections named by key builders: `=> ["name", …]`, `Deno.KvKey => ["name", …]`, `prefix: ["name"`. */
const BUILDER = /(?:=>\s*\[|prefix:\s*\[)\s*"([a-z][a-z0-9_]*)"/g;

const key = (k: Deno.KvKey) => JSON.stringify(k, (_, v) => typeof v === "bigint" ? `${v}n` : v);

async function collect(keys: AsyncIterable<Deno.KvKey>): Promise<Set<string>> {
  const found = new Set<string>();
  for await (const k of keys) found.add(key(k));
  return found;
}

Deno.test("[store] every key builder in src/store names a registered collection, and none is stale", async () => {
  const built = new Map<string, string>();
  for await (const file of sourceFiles(STORE)) {
    // The register and its enumerations name every collection: they build none.
    if (/\/store\/tenant_keys(\.ts|\/)/.test(file.path)) continue;
    for (const match of file.text.matchAll(BUILDER)) built.set(match[1], file.path);
  }
  assert.ok(built.size > 90, `only ${built.size} collections found: the pattern missed builders`);
  const unregistered = [...built].filter(([name]) => !(name in KEY_COLLECTIONS));
  assert.deepEqual(
    unregistered,
    [],
    "Add these collections to KEY_COLLECTIONS in src/store/tenant_keys.ts (and to the " +
      "enumeration of their owner when they hold a tenant's data)",
  );
  const stale = Object.keys(KEY_COLLECTIONS).filter((name) => !built.has(name));
  assert.deepEqual(stale, [], "Registered collections no key builder writes any more");
});

Deno.test("[store] a two-tenant world's keys are registered, and each tenant's are all enumerated", async () => {
  await using world = await startTenantWorld({ clock: fakeClock(new Date()) });
  const { kv } = world.globex.server;
  const rows = await dumpKv(kv);
  const unknown = [...new Set(rows.map((r) => String(r.key[0])))]
    .filter((name) => !(name in KEY_COLLECTIONS));
  assert.deepEqual(unknown, [], "The world wrote keys of collections KEY_COLLECTIONS lacks");

  // Globex: every entry naming the organization, its projects or slugs is enumerated.
  const globex = world.globex;
  const enumerated = await collect(organizationKeys(kv, globex.orgId));
  const marks = [globex.orgId, globex.projectId, world.secondProjectId, `"${globex.orgSlug}"`];
  const missed = rows.filter((r) =>
    !["blobs", "blob_chunks"].includes(String(r.key[0])) &&
    marks.some((m) => r.text.includes(m)) && !enumerated.has(key(r.key))
  ).map((r) => r.text.slice(0, 200));
  assert.deepEqual(missed, [], "Entries of Globex that organizationKeys does not list");

  // Nothing of Initech is listed for Globex, and the reverse.
  const initech = await collect(organizationKeys(kv, world.initech.orgId));
  for (const k of initech) assert.ok(!enumerated.has(k), `${k} listed for both tenants`);
  assert.ok(initech.has(key(["projects", world.initech.projectId])));

  // One project's keys are its own: none names the other project of the organization.
  const project = await collect(projectKeys(kv, globex.projectId));
  const texts = new Map(rows.map((r) => [key(r.key), r.text]));
  for (const k of project) {
    assert.ok(!(texts.get(k) ?? "").includes(world.secondProjectId), `${k} is the other project's`);
  }
  assert.ok(project.has(key(["webhooks", globex.projectId, world.webhookId])));
  assert.ok([...project].some((k) => k.startsWith('["evidence",')));

  // The member's keys: their user record and both directions of the membership.
  const member = await collect(userKeys(kv, world.memberUserId));
  assert.ok(member.has(key(["users", world.memberUserId])));
  assert.ok(member.has(key(["memberships", globex.orgId, world.memberUserId])));
  const memberRows = rows.filter((r) => r.text.includes(world.memberUserId));
  const memberMissed = memberRows.filter((r) =>
    !member.has(key(r.key)) && !enumerated.has(key(r.key))
  ).map((r) => r.text.slice(0, 200));
  assert.deepEqual(memberMissed, [], "Entries naming the member that no enumeration lists");
});
