/**
 * A publish racing the scheduling of its project's deletion, over real HTTP: the version's
 * commit checks, in the same atomic, that neither the project's nor its organization's
 * deletion is scheduled, so no public log entry names the project after the scheduling.
 *
 * - Deterministic: the scheduling is made (over HTTP) at the very moment the publish commits,
 *   after every earlier check passed: the publish answers 409 and neither a version nor a log
 *   entry is added.
 * - Concurrent: publishes and schedulings of several projects sent together; whichever wins,
 *   every version and log entry of a project was committed before its deletion record.
 */
import assert from "node:assert/strict";
import { deletionKey, logEntryByPublicationKey, publicationKey } from "../../src/store/keys.ts";
import { getLogSize } from "../../src/store/log.ts";
import { bootstrapAcme, jsonApi, startTestServer } from "../support/server.ts";

/**
 * `kv` whose atomic operations run `hooks.beforePublish` (once) just before committing one
 * that writes a published version, as if another request committed in that instant.
 */
function withHook(kv: Deno.Kv, hooks: { beforePublish: (() => Promise<void>) | null }): Deno.Kv {
  return new Proxy(kv, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop !== "atomic") return typeof value === "function" ? value.bind(target) : value;
      return () => {
        const op = target.atomic();
        let publishes = false;
        // Methods a caller replaces on the operation (a listener around commit) stay on the proxy.
        const replaced = new Map<PropertyKey, unknown>();
        const wrapped: Deno.AtomicOperation = new Proxy(op, {
          set(_, p, v) {
            replaced.set(p, v);
            return true;
          },
          get(o, p) {
            if (replaced.has(p)) return replaced.get(p);
            const method = Reflect.get(o, p, o);
            if (typeof method !== "function") return method;
            if (p === "set") {
              return (key: Deno.KvKey, v: unknown, options?: { expireIn?: number }) => {
                if (key[0] === "publications" && key.length === 3) publishes = true;
                o.set(key, v, options);
                return wrapped;
              };
            }
            if (p === "commit") {
              return async () => {
                const hook = publishes ? hooks.beforePublish : null;
                if (hook) {
                  hooks.beforePublish = null;
                  await hook();
                }
                return await o.commit();
              };
            }
            return (...args: unknown[]) => {
              const result = method.apply(o, args);
              return result === o ? wrapped : result;
            };
          },
        });
        return wrapped;
      };
    },
  });
}

Deno.test("[e2e] a deletion scheduled while a publish commits stops the version and its log entry", async () => {
  const raw = await Deno.openKv(":memory:");
  const hooks: { beforePublish: (() => Promise<void>) | null } = { beforePublish: null };
  try {
    await using server = await startTestServer({ kv: withHook(raw, hooks), worker: false });
    const token = await server.tokenFor("alice");
    const api = jsonApi(server.baseUrl, token);
    const projectId = await bootstrapAcme(api);
    assert.equal((await api("POST", `/projects/${projectId}/publish`)).status, 201);
    const logSize = await getLogSize(raw);

    let scheduled = 0;
    hooks.beforePublish = async () => {
      const res = await api("POST", `/projects/${projectId}/deletion`, { confirm: "acme" });
      scheduled = res.status;
    };
    const publish = await api("POST", `/projects/${projectId}/publish`);
    assert.equal(scheduled, 202, "the deletion was scheduled inside the publish's commit");
    assert.equal(publish.status, 409, JSON.stringify(publish.json));
    assert.equal(publish.json.error.code, "conflict");
    assert.match(publish.json.error.message, /deletion is scheduled/);
    assert.equal((await raw.get(publicationKey(projectId, 2))).versionstamp, null);
    assert.equal((await raw.get(logEntryByPublicationKey(projectId, 2))).versionstamp, null);
    assert.equal(await getLogSize(raw), logSize, "no log entry was added");
    assert.equal(hooks.beforePublish, null, "the hook ran");
  } finally {
    raw.close();
  }
});

Deno.test("[e2e] publishes sent together with their projects' deletions never log a version after the scheduling", async () => {
  await using server = await startTestServer({ worker: false });
  const kv = server.services.kv;
  const api = jsonApi(server.baseUrl, await server.tokenFor("alice"));
  const first = await bootstrapAcme(api);
  const organizationId = (await api("GET", `/projects/${first}`)).json.project.organizationId;
  const projects: { id: string; slug: string }[] = [{ id: first, slug: "acme" }];
  for (let i = 1; i < 8; i++) {
    const res = await api("POST", "/projects", {
      organizationId,
      name: `Acme ${i}`,
      slug: `acme-${i}`,
      visibility: "public",
    });
    assert.equal(res.status, 201, JSON.stringify(res.json));
    projects.push({ id: res.json.project.id, slug: res.json.project.slug });
  }
  for (const p of projects) {
    assert.equal((await api("POST", `/projects/${p.id}/publish`)).status, 201);
  }
  // Each project: two publishes and the scheduling of its deletion, all sent at once.
  // The scheduling is sent a little later for each project (0 to 105 ms), so that some
  // publishes commit before it and some are under way when it commits.
  const outcomes = await Promise.all(projects.map(async (p, i) => {
    const [a, deletion, b] = await Promise.all([
      api("POST", `/projects/${p.id}/publish`),
      new Promise((resolve) => setTimeout(resolve, 15 * i)).then(() =>
        api("POST", `/projects/${p.id}/deletion`, { confirm: p.slug })
      ),
      api("POST", `/projects/${p.id}/publish`),
    ]);
    return { p, statuses: [a.status, deletion.status, b.status] };
  }));
  const counts = { published: 0, refused: 0 };
  for (const { p, statuses: [a, deletion, b] } of outcomes) {
    assert.equal(deletion, 202, p.slug);
    for (const status of [a, b]) {
      assert.ok(status === 201 || status === 409, `${p.slug}: publish answered ${status}`);
      counts[status === 201 ? "published" : "refused"]++;
    }
    const scheduled = await kv.get(deletionKey("project", p.id));
    assert.ok(scheduled.versionstamp);
    for await (const entry of kv.list({ prefix: ["log_entries_by_publication", p.id] })) {
      assert.ok(
        entry.versionstamp < scheduled.versionstamp,
        `${p.slug}: version ${String(entry.key[2])} was logged after its deletion was scheduled`,
      );
    }
    for await (const entry of kv.list({ prefix: ["publications", p.id] })) {
      if (entry.key.length !== 3) continue;
      assert.ok(entry.versionstamp < scheduled.versionstamp, `${p.slug}: a version after it`);
    }
  }
  console.log(
    `publishes committed before the scheduling ${counts.published}, refused ${counts.refused}`,
  );
});
