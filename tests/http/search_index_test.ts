/**
 * Public search through its index (src/store/search_index.ts): the index follows first
 * publish, rename, visibility changes, profile changes and deletion in the same commit, keeps
 * the documented order (exact, prefix, then the organization's matches) and the cap of 20,
 * never shows private or unpublished projects nor those a scheduled deletion names, and an
 * instance upgraded from before the index backfills it once and keeps finding its projects.
 */
import assert from "node:assert/strict";
import { createTestApp, type TestApp } from "../support/app.ts";
import {
  backfillSearchIndex,
  removeFromSearchIndex,
  searchCandidates,
} from "../../src/store/search_index.ts";
import { getProject } from "../../src/store/projects.ts";
import { cancelDeletion, scheduleDeletion } from "../../src/store/deletions.ts";

async function search(t: TestApp, query: string): Promise<string[]> {
  const res = await t.call("GET", `/public/trust-profiles?query=${encodeURIComponent(query)}`);
  assert.equal(res.status, 200);
  const body = await res.json();
  return body.profiles.map((p: { slug: string }) => p.slug);
}

async function json(res: Response) {
  const body = await res.json();
  assert.ok(res.status < 300, `${res.status} ${JSON.stringify(body)}`);
  return body;
}

async function workspace(t: TestApp, user: string, name: string, slug: string) {
  const token = await t.tokenFor(user);
  const boot = await json(
    await t.call("POST", "/onboarding/bootstrap", {
      token,
      json: { workspaceName: name, projectName: `${name} Cloud`, projectSlug: slug },
    }),
  );
  return { token, organization: boot.organization, project: boot.project };
}

async function newProject(
  t: TestApp,
  token: string,
  organizationId: string,
  input: { name: string; slug: string; visibility?: "public" | "private" },
) {
  const body = await json(
    await t.call("POST", "/projects", {
      token,
      json: { organizationId, visibility: "public", ...input },
    }),
  );
  return body.project as { id: string; slug: string };
}

async function publish(t: TestApp, token: string, projectId: string) {
  assert.equal((await t.call("POST", `/projects/${projectId}/publish`, { token })).status, 201);
}

async function patch(t: TestApp, token: string, projectId: string, change: unknown) {
  await json(await t.call("PATCH", `/projects/${projectId}`, { token, json: change }));
}

Deno.test("search follows publish, rename, visibility and profile changes", async () => {
  await using t = await createTestApp();
  const { token, organization, project } = await workspace(t, "ann", "Globex", "globex-cloud");

  assert.deepEqual(await search(t, "globex"), [], "private and unpublished: absent");
  await patch(t, token, project.id, { visibility: "public" });
  assert.deepEqual(await search(t, "globex"), [], "public but never published: absent");
  await publish(t, token, project.id);
  assert.deepEqual(await search(t, "globex"), ["globex-cloud"]);
  assert.deepEqual(await search(t, "CLOUD"), ["globex-cloud"], "a word inside, any case");
  assert.deepEqual(await search(t, "globex-cl"), ["globex-cloud"], "punctuation as a space");

  await patch(t, token, project.id, { name: "Hyperion Storage" });
  assert.deepEqual(await search(t, "hyperion"), ["globex-cloud"], "the new name is found");
  assert.deepEqual(await search(t, "storage"), ["globex-cloud"]);
  assert.deepEqual(await search(t, "cloud"), ["globex-cloud"], "still by its slug");
  assert.deepEqual(await search(t, "globex"), ["globex-cloud"], "and by its organization");

  await json(
    await t.call("PATCH", `/organizations/${organization.id}/profile`, {
      token,
      json: { displayName: "Globex Corporation", description: "Hammocks for volcano lairs" },
    }),
  );
  assert.deepEqual(await search(t, "corporation"), ["globex-cloud"], "display name");
  assert.deepEqual(await search(t, "volcano lairs"), ["globex-cloud"], "description words");
  await json(
    await t.call("PATCH", `/organizations/${organization.id}/profile`, {
      token,
      json: { description: "Umbrellas" },
    }),
  );
  assert.deepEqual(await search(t, "volcano"), [], "the old description is gone");
  assert.deepEqual(await search(t, "umbrella"), ["globex-cloud"]);

  await patch(t, token, project.id, { visibility: "private" });
  for (const query of ["hyperion", "globex", "umbrella", "corporation"]) {
    assert.deepEqual(await search(t, query), [], `private again: ${query}`);
  }
  const left = [];
  for await (const c of searchCandidates(t.kv, "globex")) left.push(c);
  assert.deepEqual(left, [], "no entry of the organization is left in the index");

  await patch(t, token, project.id, { visibility: "public" });
  assert.deepEqual(await search(t, "umbrella"), ["globex-cloud"], "public again, published");
});

Deno.test("search ranks exact and prefix first, caps at 20, hides private projects", async () => {
  await using t = await createTestApp();
  const { token, organization, project } = await workspace(t, "bo", "Acme", "acme");
  await patch(t, token, project.id, { visibility: "public" });
  await publish(t, token, project.id);
  const other = await workspace(t, "cy", "Zeta Labs", "zeta");
  await patch(t, other.token, other.project.id, { visibility: "public", name: "Zeta" });
  await publish(t, other.token, other.project.id);
  const named = await newProject(t, other.token, other.organization.id, {
    name: "Tools for acme users",
    slug: "tools",
  });
  await publish(t, other.token, named.id);
  const prefixed = await newProject(t, other.token, other.organization.id, {
    name: "Acmeish",
    slug: "acmeish",
  });
  await publish(t, other.token, prefixed.id);
  const hidden = await newProject(t, other.token, other.organization.id, {
    name: "Acme secret",
    slug: "acme-secret",
    visibility: "private",
  });
  await publish(t, other.token, hidden.id);

  assert.deepEqual(await search(t, "acme"), ["acme", "acmeish", "tools"]);

  for (let i = 0; i < 24; i++) {
    const p = await newProject(t, token, organization.id, {
      name: `Service ${String(i).padStart(2, "0")}`,
      slug: `service-${i}`,
    });
    await publish(t, token, p.id);
  }
  const many = await search(t, "service");
  assert.equal(many.length, 20);
  assert.deepEqual(await search(t, "service 07"), ["service-7"]);
  const byOrg = await search(t, "acme");
  assert.equal(byOrg.length, 20);
  assert.deepEqual(byOrg.slice(0, 3), ["acme", "acmeish", "tools"], "own names before the org's");
  assert.ok(!byOrg.includes("acme-secret"));
});

Deno.test("removeFromSearchIndex takes a deleted project out in its commit", async () => {
  await using t = await createTestApp();
  const { token, organization, project } = await workspace(t, "di", "Hooli", "hooli");
  await patch(t, token, project.id, { visibility: "public" });
  await publish(t, token, project.id);
  const second = await newProject(t, token, organization.id, { name: "Nucleus", slug: "nucleus" });
  await publish(t, token, second.id);
  assert.deepEqual(await search(t, "hooli"), ["hooli", "nucleus"]);

  const stored = (await getProject(t.kv, project.id))!;
  const op = t.kv.atomic();
  await removeFromSearchIndex(t.kv, op, stored);
  assert.ok((await op.commit()).ok);
  assert.deepEqual(await search(t, "hooli"), ["nucleus"], "the organization's entries stay");

  const last = (await getProject(t.kv, second.id))!;
  const op2 = t.kv.atomic();
  await removeFromSearchIndex(t.kv, op2, last);
  assert.ok((await op2.commit()).ok);
  const left: string[] = [];
  for await (const entry of t.kv.list({ prefix: [] })) {
    if (String(entry.key[0]).startsWith("search_") && entry.key[0] !== "search_index_meta") {
      if (entry.key[0] !== "search_organization_stamps") left.push(JSON.stringify(entry.key));
    }
  }
  assert.deepEqual(left, [], "nothing of the organization is left in the index");
});

Deno.test("an instance upgraded from before the index backfills it once", async () => {
  const dir = await Deno.makeTempDir();
  const kvPath = `${dir}/kv.sqlite`;
  try {
    {
      await using t = await createTestApp({ kvPath });
      const { token, project } = await workspace(t, "ed", "Initrode", "initrode");
      await patch(t, token, project.id, { visibility: "public" });
      await publish(t, token, project.id);
      // What main wrote before the index: no search entries, no backfill marker.
      const op = t.kv.atomic();
      for await (const entry of t.kv.list({ prefix: [] })) {
        if (String(entry.key[0]).startsWith("search_")) op.delete(entry.key);
      }
      assert.ok((await op.commit()).ok);
    }
    await using t = await createTestApp({ kvPath });
    assert.deepEqual(await search(t, "initrode"), ["initrode"]);
    assert.notEqual((await t.kv.get(["search_index_meta", "backfill"])).value, null);
    const keys = async () => {
      const out: string[] = [];
      for await (const e of t.kv.list({ prefix: ["search_terms"] })) out.push(String(e.key));
      return out;
    };
    const before = await keys();
    await backfillSearchIndex(t.kv);
    assert.deepEqual(await keys(), before, "a second backfill changes nothing");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a scheduled deletion hides from search at once; undo shows again", async () => {
  await using t = await createTestApp();
  const { token, organization, project } = await workspace(t, "fay", "Vandelay", "vandelay");
  await patch(t, token, project.id, { visibility: "public" });
  await publish(t, token, project.id);
  for (let i = 0; i < 12; i++) {
    const p = await newProject(t, token, organization.id, {
      name: `Vandelay import and export line ${i}`,
      slug: `line-${i}`,
    });
    await publish(t, token, p.id);
  }
  assert.equal((await search(t, "vandelay")).length, 13);
  const userId = (await (await t.call("GET", "/me", { token })).json()).user.id;
  const target = { organizationId: organization.id, userId };

  // Twelve projects' entries would not fit one commit: scheduling must not need them to.
  await scheduleDeletion(
    t.kv,
    { ...target, kind: "organization", targetId: organization.id },
    t.clock.now(),
  );
  assert.deepEqual(await search(t, "vandelay"), []);
  assert.ok(await cancelDeletion(t.kv, "organization", organization.id));
  assert.equal((await search(t, "vandelay")).length, 13);

  await scheduleDeletion(t.kv, { ...target, kind: "project", targetId: project.id }, t.clock.now());
  const left = await search(t, "vandelay");
  assert.equal(left.length, 12);
  assert.ok(!left.includes("vandelay"));
});
