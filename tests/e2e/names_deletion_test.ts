/**
 * Names are never reused silently, and a deletion finishes whatever happens, over real HTTP on
 * the two-tenant world (tests/support/tenant_world.ts) with a fake clock:
 *
 * - after an organization's deletion job, its slug and its projects' slugs answer 409 to
 *   another tenant (POST /projects, POST /organizations, /onboarding/bootstrap), automatic
 *   slugs skip them, and only the operator's `deno task names release` (run as a subprocess on
 *   the same KV file) frees one;
 * - two organizations' deletions due at once, and a deletion whose instance was down from the
 *   scheduling until past the due time, leave no KV entry or blob naming the tenant (its ids,
 *   slugs, names) but the documented tombstones (hashes) and erased log entries.
 */
import assert from "node:assert/strict";
import { DELETION_GRACE_MS } from "../../src/domain/deletion.ts";
import { fakeClock } from "../../src/lib/clock.ts";
import { dumpKv, startTenantWorld, type TenantWorld } from "../support/tenant_world.ts";
import { startTestServer } from "../support/server.ts";

/** Runs every due job until none is (bounded). */
async function drain(jobs: { drain(budgetMs: number): Promise<number> }) {
  for (let round = 0; round < 30; round++) {
    if ((await jobs.drain(10_000)) === 0) return;
  }
}

/** Every KV entry (blobs included: the KV blob store keeps them in KV) naming one of `marks`. */
async function leftovers(kv: Deno.Kv, marks: string[]): Promise<string[]> {
  const rows = await dumpKv(kv);
  return rows.filter((r) => marks.some((m) => r.text.includes(m))).map((r) => r.text.slice(0, 300));
}

async function scheduleOrganization(
  world: TenantWorld,
  orgId: string,
  slug: string,
  token: string,
) {
  const res = await world.call("POST", `/organizations/${orgId}/deletion`, {
    token,
    json: { confirm: slug },
  });
  const text = await res.text();
  assert.equal(res.status, 202, text);
}

async function call(
  world: TenantWorld,
  method: string,
  path: string,
  token: string,
  json: unknown,
) {
  const res = await world.call(method, path, { token, json });
  return { status: res.status, body: await res.json() };
}

/** Runs `deno task names …` as the operator would, on the KV file at `kvPath`. */
async function names(kvPath: string, ...args: string[]) {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      new URL("../../src/lifecycle/names_main.ts", import.meta.url).pathname,
      ...args,
    ],
    env: { KV_PATH: kvPath, BASE_URL: "http://127.0.0.1:1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}

Deno.test("[e2e] a deleted organization's and its projects' slugs are reserved until an operator releases one", async () => {
  const dir = await Deno.makeTempDir();
  const kvPath = `${dir}/kv.sqlite3`;
  const kv = await Deno.openKv(kvPath);
  try {
    const clock = fakeClock(new Date());
    await using world = await startTenantWorld({ clock, kv });
    const { globex, tokens } = world;
    await drain(globex.server.services.jobs);
    await scheduleOrganization(world, globex.orgId, globex.orgSlug, tokens.owner);
    clock.advance(DELETION_GRACE_MS + 60_000);
    await drain(globex.server.services.jobs);
    await world.renewTokens();
    assert.equal((await world.call("GET", "/public/trust/globex")).status, 410);

    // Another tenant (Initech's owner) tries each way of taking the names.
    const initech = world.initech.orgId;
    const taken = [
      await call(world, "POST", "/projects", tokens.outsider, {
        organizationId: initech,
        name: "Globex Cloud",
        slug: "globex",
      }),
      await call(world, "POST", "/projects", tokens.outsider, {
        organizationId: initech,
        name: "Labs",
        slug: "globex-labs",
      }),
      await call(world, "POST", "/organizations", tokens.outsider, {
        name: "Globex",
        slug: "globex",
      }),
      await call(world, "POST", "/onboarding/bootstrap", await globex.server.tokenFor("newco"), {
        workspaceName: "Globex",
        workspaceSlug: "globex",
        projectName: "Cloud",
        projectSlug: "newco-cloud",
        projectVisibility: "public",
      }),
      await call(world, "POST", "/onboarding/bootstrap", await globex.server.tokenFor("newer"), {
        workspaceName: "Newer",
        projectName: "Cloud",
        projectSlug: "globex",
        projectVisibility: "public",
      }),
    ];
    for (const { status, body } of taken) {
      assert.equal(status, 409, JSON.stringify(body));
      assert.equal(body.error.code, "conflict");
      assert.match(
        body.error.message,
        /belonged to a deleted (project|organization) and is reserved/,
      );
    }
    // Slugs chosen from a name skip the reserved ones.
    const auto = await call(world, "POST", "/projects", tokens.outsider, {
      organizationId: initech,
      name: "Globex",
    });
    assert.equal(auto.status, 201, JSON.stringify(auto.body));
    assert.equal(auto.body.project.slug, "globex-2");
    const autoOrg = await call(world, "POST", "/organizations", tokens.outsider, {
      name: "Globex",
    });
    assert.equal(autoOrg.status, 201, JSON.stringify(autoOrg.body));
    assert.equal(autoOrg.body.organization.slug, "globex-2");
    // The tombstones hold hashes only: nothing names the organization (checked by scan).
    assert.deepEqual(await leftovers(kv, [globex.orgId, globex.projectId, "Globex,"]), []);

    // The operator's command: usage, a name with no reservation, then the release.
    assert.equal((await names(kvPath, "release", "tenant", "globex")).code, 2);
    const none = await names(kvPath, "release", "organization", "never-deleted");
    assert.equal(none.code, 1, none.stderr);
    assert.match(none.stderr, /nothing to release/);
    const released = await names(kvPath, "release", "organization", "globex");
    assert.equal(released.code, 0, released.stderr);
    assert.match(released.stdout, /Released the organization name "globex"/);
    const again = await call(world, "POST", "/organizations", tokens.outsider, {
      name: "Globex again",
      slug: "globex",
    });
    assert.equal(again.status, 201, JSON.stringify(again.body));
    // The project slug is still reserved: releasing one name frees no other.
    const project = await call(world, "POST", "/projects", tokens.outsider, {
      organizationId: initech,
      name: "Globex Cloud",
      slug: "globex",
    });
    assert.equal(project.status, 409);
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[e2e] two organizations' deletions due at once leave nothing of either, blobs included", async () => {
  const clock = fakeClock(new Date());
  await using world = await startTenantWorld({ clock });
  const { kv, services } = world.globex.server;
  await drain(services.jobs);
  const marks = [
    world.globex.orgId,
    world.globex.projectId,
    world.secondProjectId,
    world.initech.orgId,
    world.initech.projectId,
    "globex",
    "Globex",
    "initech",
    "Initech",
  ];
  assert.ok((await leftovers(kv, marks)).some((r) => r.startsWith('["blob')), "no blob to remove");
  await scheduleOrganization(world, world.globex.orgId, world.globex.orgSlug, world.tokens.owner);
  await scheduleOrganization(
    world,
    world.initech.orgId,
    world.initech.orgSlug,
    world.tokens.outsider,
  );
  clock.advance(DELETION_GRACE_MS + 60_000);
  await drain(services.jobs);
  assert.deepEqual(await leftovers(kv, marks), [], "entries of the deleted organizations are left");
  const done = world.globex.server.log.lines.filter((l) => JSON.parse(l).message === "Deleted");
  assert.equal(done.length, 2, "both jobs reported done");
});

Deno.test("[e2e] a deletion whose instance was down from scheduling until past the due time completes on restart", async () => {
  const clock = fakeClock(new Date());
  const kv = await Deno.openKv(":memory:");
  try {
    let marks: string[];
    {
      await using world = await startTenantWorld({ clock, kv });
      await drain(world.globex.server.services.jobs);
      marks = [
        world.globex.orgId,
        world.globex.projectId,
        world.secondProjectId,
        "globex",
        "Globex",
      ];
      await scheduleOrganization(
        world,
        world.globex.orgId,
        world.globex.orgSlug,
        world.tokens.owner,
      );
      // The instance stops right after the scheduling: the render it staged never ran.
    }
    clock.advance(DELETION_GRACE_MS + 3_600_000);
    await using server = await startTestServer({ kv, clock, worker: false });
    await drain(server.services.jobs);
    assert.deepEqual(
      await leftovers(kv, marks),
      [],
      "entries of the deleted organization are left",
    );
    const done = server.log.lines.filter((l) => JSON.parse(l).message === "Deleted");
    assert.equal(done.length, 1, "the job reported done");
  } finally {
    kv.close();
  }
});
