/**
 * Deleting a project, an organization and an account over real HTTP, on a two-tenant world
 * (tests/support/tenant_world.ts) with a fake clock: who may, the grace (public routes 410 at
 * once, nothing removed, the job does nothing early), undo, then after the grace a scan of
 * every KV entry proving nothing of the deleted tenant is left but the log's hashes (and the
 * SHA-256 of its slug), 410 on its public routes, and the other tenant untouched.
 */
import assert from "node:assert/strict";
import {
  DELETION_GRACE_MS,
  DELETION_JOB,
  type DeletionMessage,
} from "../../src/domain/deletion.ts";
import { JobDeferred } from "../../src/domain/jobs.ts";
import { collectAfterDeletion, runDeletion } from "../../src/lifecycle/deletion.ts";
import { getDeletion } from "../../src/store/deletions.ts";
import type { Subscription } from "../../src/domain/subscriptions.ts";
import { fakeClock } from "../../src/lib/clock.ts";
import { linkToken } from "../../src/push/links.ts";
import { organizationKeys, projectKeys } from "../../src/store/tenant_keys.ts";
import { dumpKv, startTenantWorld, type TenantWorld } from "../support/tenant_world.ts";
import { runKit } from "../support/verify_kit.ts";
import { getWithHost } from "../support/raw_http.ts";

const HTML = "text/html";

/** Runs every due job until none is (bounded). */
async function drain(world: TenantWorld) {
  for (let round = 0; round < 20; round++) {
    if ((await world.globex.server.services.jobs.drain(10_000)) === 0) return;
  }
}

/** Derived entries that change while a deletion waits (re-rendered pages, jobs, recomputes). */
const DERIVED =
  /^\["(edge_|jobs|evaluation|publish_jobs|mail_deliveries|webhook_deliveries|leases)/;

/** The keys of a tenant that exist now, but derived ones. */
async function recordsOf(kv: Deno.Kv, keys: AsyncIterable<Deno.KvKey>): Promise<string[]> {
  const found: string[] = [];
  for await (const key of keys) {
    const text = JSON.stringify(key);
    if (!DERIVED.test(text) && (await kv.get(key)).versionstamp !== null) found.push(text);
  }
  return found;
}

/** Asserts that every key of `before` still exists. */
function assertKept(before: string[], after: string[]) {
  const now = new Set(after);
  assert.ok(before.length > 30, `only ${before.length} records to compare`);
  assert.deepEqual(before.filter((k) => !now.has(k)), [], "records removed before the grace ended");
}

/** Entries naming any of `marks`, as key@versionstamp (what "untouched" compares). */
async function entriesNaming(kv: Deno.Kv, marks: string[]): Promise<string[]> {
  const rows: string[] = [];
  for await (const entry of kv.list({ prefix: [] })) {
    // The anonymous page-view counters move with the test's own reads of the other tenant's pages
    // (written in batches, docs/ads.md); they are counted, not the tenant's data.
    if (entry.key[0] === "page_views") continue;
    const text = JSON.stringify(
      [entry.key, entry.value],
      (_, v) => typeof v === "bigint" ? String(v) : v instanceof Uint8Array ? "" : v,
    );
    if (marks.some((m) => text.includes(m))) {
      rows.push(`${JSON.stringify(entry.key)}@${entry.versionstamp}`);
    }
  }
  return rows.sort();
}

async function status(world: TenantWorld, path: string, accept = "application/json") {
  const res = await world.call("GET", path, { accept });
  const body = await res.text();
  return { status: res.status, type: res.headers.get("content-type") ?? "", body };
}

/** Who may read (GET) and undo (DELETE) a scheduled deletion at `path`: the statuses. */
async function assertReadAndUndoMatrix(world: TenantWorld, path: string) {
  const { tokens } = world;
  const statusOf = async (method: string, token?: string) => {
    const res = await world.call(method, path, { token });
    await res.body?.cancel();
    return res.status;
  };
  assert.deepEqual(
    [
      await statusOf("GET"),
      await statusOf("GET", tokens.outsider),
      await statusOf("GET", tokens.member),
      await statusOf("DELETE"),
      await statusOf("DELETE", tokens.outsider),
      await statusOf("DELETE", tokens.member),
    ],
    [401, 403, 200, 401, 403, 403],
  );
}

/** One MCP tool call over HTTP (the stateless transport): its result. */
async function mcpTool(world: TenantWorld, name: string, args: Record<string, unknown>) {
  const res = await fetch(`${world.globex.server.baseUrl}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name, arguments: args },
    }),
  });
  const text = await res.text();
  const data = text.startsWith("{") ? text : text.split("\n").find((l) => l.startsWith("data: "))!
    .slice(6);
  return JSON.parse(data).result as { isError?: boolean; content: { text: string }[] };
}

/**
 * Every KV entry left that names one of `marks`, in its key or value, blobs included (the KV
 * blob store keeps their bytes in KV: read as text).
 */
async function leftovers(world: TenantWorld, marks: string[]) {
  const rows = await dumpKv(world.globex.server.kv);
  return rows.filter((r) => marks.some((m) => r.text.includes(m))).map((r) => r.text.slice(0, 300));
}

Deno.test("[e2e] a project's deletion: owners only, 410 at once, undo, then nothing left but the log's hashes", async () => {
  const clock = fakeClock(new Date());
  await using world = await startTenantWorld({ clock });
  const { globex, tokens } = world;
  const { kv } = globex.server;
  await drain(world);
  const initechMarks = [world.initech.orgId, world.initech.projectId];
  const initechBefore = await entriesNaming(kv, initechMarks);
  const initechPage = await status(world, "/trust/initech/trust.json");
  const path = `/projects/${globex.projectId}/deletion`;
  const confirm = { confirm: globex.projectSlug };
  const marks = [
    globex.projectId,
    world.webhookId,
    "trust.globex.example",
    "globex-hook",
    "globex/api@refs",
    "globex-trust",
  ];
  // The evidence payloads only this project sent: the blob collector removes them at the end.
  const payloads: string[] = [];
  for await (
    const entry of kv.list<{ projectId: string; payloadS3Key: string }>({ prefix: ["evidence"] })
  ) {
    if (entry.value.projectId === globex.projectId) payloads.push(entry.value.payloadS3Key);
  }
  assert.ok(payloads.length >= 3);
  for (const key of payloads) assert.notEqual((await kv.get(["blobs", key])).value, null, key);
  const patched = await world.call("PATCH", `/projects/${globex.projectId}`, {
    token: tokens.owner,
    json: { hostedSubdomain: "globex-trust" },
  });
  assert.equal(patched.status, 200);
  await patched.body?.cancel();
  const hosted = "globex-trust.pages.trust.example";
  assert.equal((await getWithHost(globex.server.baseUrl, "/trust.json", hosted)).status, 200);

  // Who may: anonymous 401, outsider and member 403, owner with the wrong slug 400.
  assert.equal((await world.call("POST", path, { json: confirm })).status, 401);
  for (const token of [tokens.outsider, tokens.member]) {
    const res = await world.call("POST", path, { token, json: confirm });
    assert.equal(res.status, 403);
    await res.body?.cancel();
  }
  const wrong = await world.call("POST", path, { token: tokens.owner, json: { confirm: "nope" } });
  assert.equal(wrong.status, 400);
  assert.match((await wrong.json()).error.message, /Type the project's slug "globex"/);
  assert.equal((await status(world, "/trust/globex/trust.json")).status, 200);

  const scheduled = await world.call("POST", path, { token: tokens.owner, json: confirm });
  assert.equal(scheduled.status, 202);
  const { deletion } = await scheduled.json();
  assert.equal(Date.parse(deletion.dueAt) - Date.parse(deletion.requestedAt), DELETION_GRACE_MS);
  assert.equal(
    (await world.call("POST", path, { token: tokens.owner, json: confirm })).status,
    409,
  );
  const seen = await world.call("GET", path, { token: tokens.member });
  assert.equal(seen.status, 200);
  assert.deepEqual((await seen.json()).deletion, deletion);

  // Pending: its public routes answer 410 (JSON envelope and a page), search drops it.
  const json = await status(world, "/trust/globex/trust.json");
  assert.equal(json.status, 410);
  assert.equal(JSON.parse(json.body).error.code, "gone");
  assert.match(
    JSON.parse(json.body).error.message,
    /scheduled for deletion by its owner on \d{4}-\d\d-\d\d \d\d:\d\d UTC.*may return/,
  );
  const page = await status(world, "/trust/globex", HTML);
  assert.equal(page.status, 410);
  assert.match(page.type, /text\/html/);
  assert.match(page.body, /scheduled for deletion by its owner/);
  const viaHost = await getWithHost(globex.server.baseUrl, "/trust.json", hosted);
  assert.equal(viaHost.status, 410, "the hosted subdomain answers 410 too");
  const search = await status(world, "/public/trust-profiles?query=globex");
  assert.equal(search.status, 200);
  const found = JSON.parse(search.body).profiles.map((p: { slug: string }) => p.slug);
  assert.ok(!found.includes("globex"), `search still lists the project: ${found}`);
  assert.ok(
    found.includes("globex-labs"),
    `search lost the organization's other project: ${found}`,
  );
  assert.equal((await status(world, "/trust/globex-labs/trust.json")).status, 200);
  const pendingCenter = JSON.parse((await status(world, "/public/trust/globex")).body);
  assert.deepEqual(pendingCenter.projects.map((p: { slug: string }) => p.slug), ["globex-labs"]);

  // The job does nothing before the grace ends.
  const before = await recordsOf(kv, projectKeys(kv, globex.projectId));
  await drain(world);
  clock.advance(DELETION_GRACE_MS - 60_000);
  await drain(world);
  await world.renewTokens();
  assertKept(before, await recordsOf(kv, projectKeys(kv, globex.projectId)));

  // Undo: members may not, owners may; the project is back.
  await assertReadAndUndoMatrix(world, path);
  const memberUndo = await world.call("DELETE", path, { token: tokens.member });
  assert.equal(memberUndo.status, 403);
  await memberUndo.body?.cancel();
  assert.equal((await world.call("DELETE", path, { token: tokens.owner })).status, 204);
  assert.equal((await status(world, "/trust/globex/trust.json")).status, 200);
  assert.equal((await world.call("DELETE", path, { token: tokens.owner })).status, 404);
  const none = await world.call("GET", path, { token: tokens.owner });
  assert.deepEqual(await none.json(), { deletion: null });
  clock.advance(2 * 60_000);
  await drain(world);
  assert.equal((await status(world, "/trust/globex/trust.json")).status, 200);

  // A buyer of the other project pins the log's checkpoint before the deletion.
  const dir = await Deno.makeTempDir();
  const pinned = await runKit(globex.server, dir, [
    "globex-labs",
    "--save-checkpoint",
    `${dir}/pinned`,
  ]);
  assert.equal(pinned.code, 0, `${pinned.stdout}\n${pinned.stderr}`);

  // Scheduled again, and run after the grace.
  const again = await world.call("POST", path, { token: tokens.owner, json: confirm });
  assert.equal(again.status, 202);
  await again.body?.cancel();
  const logSize = (await (await world.call("GET", "/log")).json()).treeSize;
  clock.advance(DELETION_GRACE_MS + 60_000);
  await drain(world);
  await world.renewTokens();

  const left = await leftovers(world, marks);
  assert.deepEqual(left, [], "entries of the deleted project are left");
  for (const key of payloads) {
    assert.equal((await kv.get(["blobs", key])).value, null, `payload ${key} is left`);
    assert.deepEqual(await Array.fromAsync(kv.list({ prefix: ["blob_chunks", key] })), []);
  }
  for (
    const route of [
      "/trust/globex",
      "/trust/globex/trust.json",
      "/trust/globex/versions",
      "/trust/globex/versions/1/trust.json",
      "/trust/globex/feed.xml",
      "/trust/globex/badge.svg",
      "/log/publications/globex",
    ]
  ) {
    assert.equal((await status(world, route)).status, 410, route);
  }
  // Its hosted subdomain is not remembered: it now names nothing.
  assert.equal((await getWithHost(globex.server.baseUrl, "/trust.json", hosted)).status, 404);
  // The log keeps its size; the deleted project's entries are hashes without text.
  const log = await (await world.call("GET", "/log")).json();
  assert.equal(log.treeSize, logSize);
  const entries = await Promise.all(
    Array.from(
      { length: logSize },
      async (_, i) => await (await world.call("GET", `/log/entries/${i}`)).json(),
    ),
  );
  assert.ok(entries.some((e) => e.entry === null && e.leafHash), "no erased entry");
  assert.ok(entries.every((e) => !String(e.entry).includes("\nglobex\n")));
  // The other project still verifies with the kit, against the checkpoint pinned before.
  const kit = await runKit(globex.server, dir, [
    `${globex.server.baseUrl}/trust/globex-labs`,
    "--checkpoint",
    `${dir}/pinned`,
  ]);
  assert.equal(kit.code, 0, `${kit.stdout}\n${kit.stderr}`);
  assert.match(kit.stdout, /VERIFIED/);
  const gone = await runKit(globex.server, dir, ["globex"]);
  assert.notEqual(gone.code, 0, gone.stdout);
  await Deno.remove(dir, { recursive: true });

  // The rest of the organization and the other tenant are untouched.
  assert.equal((await status(world, "/trust/globex-labs/trust.json")).status, 200);
  const center = await status(world, "/public/trust/globex");
  assert.equal(center.status, 200);
  const listed = (JSON.parse(center.body).projects as { slug: string }[]).map((p) => p.slug);
  assert.deepEqual(listed, ["globex-labs"]);
  assert.deepEqual(await entriesNaming(kv, initechMarks), initechBefore);
  assert.deepEqual(await status(world, "/trust/initech/trust.json"), initechPage);
});

Deno.test("[e2e] an organization's deletion removes it and all its projects after the grace", async () => {
  const clock = fakeClock(new Date());
  await using world = await startTenantWorld({ clock });
  const { globex, tokens } = world;
  const { kv } = globex.server;
  await drain(world);
  const initechMarks = [world.initech.orgId, world.initech.projectId];
  const initechBefore = await entriesNaming(kv, initechMarks);
  const path = `/organizations/${globex.orgId}/deletion`;
  const confirm = { confirm: globex.orgSlug };
  const marks = [
    globex.orgId,
    globex.projectId,
    world.secondProjectId,
    "globex",
    "Globex",
    "vera@customer.example",
    "pending.invitee@globex.example",
  ];
  const held = await leftovers(world, marks);
  assert.ok(held.some((r) => r.startsWith('["blob_chunks"')), "no blob names the organization");

  assert.equal((await world.call("POST", path, { json: confirm })).status, 401);
  for (const token of [tokens.outsider, tokens.member]) {
    const res = await world.call("POST", path, { token, json: confirm });
    assert.equal(res.status, 403);
    await res.body?.cancel();
  }
  const wrong = await world.call("POST", path, { token: tokens.owner, json: { confirm: "x" } });
  assert.equal(wrong.status, 400);
  await wrong.body?.cancel();
  const scheduled = await world.call("POST", path, { token: tokens.owner, json: confirm });
  assert.equal(scheduled.status, 202);
  await scheduled.body?.cancel();
  for (const route of ["/public/trust/globex", "/trust/globex/trust.json", "/trust/globex-labs"]) {
    assert.equal((await status(world, route)).status, 410, route);
  }
  // MCP tools say the same; search lists nothing of it.
  for (
    const [tool, args] of [
      ["get_subprocessors", { orgSlug: "globex" }],
      ["list_organization_projects", { orgSlug: "globex" }],
      ["get_trust_profile", { projectSlug: "globex-labs" }],
    ] as const
  ) {
    const result = await mcpTool(world, tool, args);
    assert.equal(result.isError, true, tool);
    assert.match(result.content[0].text, /scheduled for deletion by its owner/, tool);
  }
  const found = await mcpTool(world, "search_trust_profiles", { query: "globex" });
  assert.deepEqual(JSON.parse(found.content[0].text).profiles, []);
  await assertReadAndUndoMatrix(world, path);
  const before = await recordsOf(kv, organizationKeys(kv, globex.orgId));
  await drain(world);
  clock.advance(DELETION_GRACE_MS - 60_000);
  await drain(world);
  await world.renewTokens();
  assertKept(before, await recordsOf(kv, organizationKeys(kv, globex.orgId)));
  assert.equal((await world.call("DELETE", path, { token: tokens.owner })).status, 204);
  assert.equal((await status(world, "/public/trust/globex")).status, 200);
  assert.equal((await status(world, "/trust/globex-labs/trust.json")).status, 200);

  const again = await world.call("POST", path, { token: tokens.owner, json: confirm });
  assert.equal(again.status, 202);
  await again.body?.cancel();
  clock.advance(DELETION_GRACE_MS + 60_000);
  await drain(world);
  await world.renewTokens();

  const left = await leftovers(world, marks);
  assert.deepEqual(left, [], "entries of the deleted organization are left");
  for (
    const route of [
      "/public/trust/globex",
      "/public/trust/globex/documents",
      "/trust/globex/trust.json",
      "/trust/globex-labs",
      "/log/publications/globex-labs",
    ]
  ) {
    assert.equal((await status(world, route)).status, 410, route);
  }
  assert.deepEqual(await entriesNaming(kv, initechMarks), initechBefore);
  assert.equal((await status(world, "/trust/initech/trust.json")).status, 200);
  // The owner's and member's accounts stay; the member no longer belongs to anything.
  const me = await world.call("GET", "/me", { token: tokens.member });
  assert.equal(me.status, 200);
  assert.deepEqual((await me.json()).organizations, []);
});

Deno.test("[e2e] an account's deletion: last owners are refused, a member's account goes at once", async () => {
  await using world = await startTenantWorld({ clock: fakeClock(new Date()) });
  const { tokens } = world;
  assert.equal((await world.call("DELETE", "/me", { json: { confirm: "x" } })).status, 401);
  const owner = await world.call("DELETE", "/me", {
    token: tokens.owner,
    json: { confirm: "olivia@example.com" },
  });
  assert.equal(owner.status, 409);
  assert.match((await owner.json()).error.message, /only owner of "globex"/);
  const outsider = await world.call("DELETE", "/me", {
    token: tokens.outsider,
    json: { confirm: "ian@example.com" },
  });
  assert.equal(outsider.status, 409);
  assert.match((await outsider.json()).error.message, /only member of "initech"/);
  const typo = await world.call("DELETE", "/me", {
    token: tokens.member,
    json: { confirm: "someone@example.com" },
  });
  assert.equal(typo.status, 400);
  await typo.body?.cancel();

  const deleted = await world.call("DELETE", "/me", {
    token: tokens.member,
    json: { confirm: "MIA@example.com" },
  });
  assert.equal(deleted.status, 200);
  await deleted.body?.cancel();
  const after = await world.call("GET", "/me", { token: tokens.member });
  assert.equal(after.status, 401);
  await after.body?.cancel();
  assert.deepEqual(await leftovers(world, ["mia@example.com"]), []);
  const members = await (await world.call("GET", `/organizations/${world.globex.orgId}`, {
    token: tokens.owner,
  })).json();
  assert.ok(!JSON.stringify(members).includes(world.memberUserId));
});

Deno.test("[e2e] a subscriber erases their address everywhere through the unsubscribe link", async () => {
  await using world = await startTenantWorld({ clock: fakeClock(new Date()) });
  const { kv } = world.globex.server;
  const email = world.subscriberEmail;
  let subscription: Subscription | null = null;
  for await (const entry of kv.list<string>({ prefix: ["subscriptions_by_scope"] })) {
    if (entry.key[3] === email) {
      subscription = (await kv.get<Subscription>(["subscriptions", entry.value])).value;
    }
  }
  assert.ok(subscription, "the world has no subscription of the subscriber");
  const token = await linkToken(kv, "unsubscribe", subscription);
  const page = await status(world, `/unsubscribe/${token}`, HTML);
  assert.equal(page.status, 200);
  assert.match(page.body, /action="[^"]*\/unsubscribe\/[^"]+\/erase"/);
  const forged = await world.call(
    "POST",
    `/unsubscribe/${subscription.id}.${"A".repeat(43)}/erase`,
  );
  assert.equal(forged.status, 404);
  await forged.body?.cancel();
  assert.ok((await leftovers(world, [email])).length >= 3, "the world holds three subscriptions");

  const erased = await world.call("POST", `/unsubscribe/${token}/erase`);
  assert.equal(erased.status, 200);
  assert.match(await erased.text(), /Your data was erased/);
  assert.deepEqual(await leftovers(world, [email]), []);
  const again = await world.call("POST", `/unsubscribe/${token}/erase`);
  assert.equal(again.status, 200);
  assert.match(await again.text(), /unsubscribed/);
});

Deno.test("[e2e] an access-request visitor erases their requests, links and downloads by their link", async () => {
  await using world = await startTenantWorld({ clock: fakeClock(new Date()) });
  const token = world.globex.accessToken;
  const email = "vera@customer.example";
  const page = await status(world, `/documents/access/${token}`, HTML);
  assert.equal(page.status, 200);
  assert.match(page.body, /Erase my data/);
  const unknown = await world.call("POST", `/documents/access/${"A".repeat(43)}/erase`);
  assert.equal(unknown.status, 404);
  await unknown.body?.cancel();
  assert.ok((await leftovers(world, [email])).length >= 2);

  const erased = await world.call("POST", `/documents/access/${token}/erase`);
  assert.equal(erased.status, 200);
  assert.match(await erased.text(), /Your data was erased/);
  assert.deepEqual(await leftovers(world, [email]), []);
  assert.equal((await status(world, `/documents/access/${token}`, HTML)).status, 404);
  const requests = await world.call("GET", `/organizations/${world.globex.orgId}/access-requests`, {
    token: world.tokens.owner,
  });
  assert.ok(!(await requests.text()).includes(email));
});

Deno.test("[e2e] the deletion job works in bounded runs and resumes where it stopped", async () => {
  const clock = fakeClock(new Date());
  await using world = await startTenantWorld({ clock });
  const { globex, tokens } = world;
  const { kv, services } = globex.server;
  await drain(world);
  const scheduled = await world.call("POST", `/organizations/${globex.orgId}/deletion`, {
    token: tokens.owner,
    json: { confirm: globex.orgSlug },
  });
  assert.equal(scheduled.status, 202);
  await scheduled.body?.cancel();
  const record = await getDeletion(kv, "organization", globex.orgId);
  assert.ok(record);
  clock.advance(DELETION_GRACE_MS + 60_000);
  const message: DeletionMessage = {
    kind: DELETION_JOB,
    deletionId: record.id,
    target: "organization",
    targetId: globex.orgId,
    organizationId: globex.orgId,
  };
  const deps = {
    kv,
    clock,
    log: globex.server.log,
    jobs: services.jobs,
    purge: () => Promise.resolve(),
    keysPerRun: 40,
    collectBlobs: (startedAfter: Date) =>
      collectAfterDeletion({ ...services, clock }, startedAfter),
  };
  let runs = 0;
  for (; runs < 500; runs++) {
    try {
      await runDeletion(deps, message);
      break;
    } catch (error) {
      assert.ok(error instanceof JobDeferred, String(error));
    }
  }
  await drain(world);
  assert.deepEqual(await leftovers(world, [globex.orgId, globex.projectId, "globex"]), []);
  assert.ok(runs > 10, `only ${runs} runs of 40 keys`);
  assert.equal((await status(world, "/trust/initech/trust.json")).status, 200);
});
