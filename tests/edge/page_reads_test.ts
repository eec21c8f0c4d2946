/**
 * What each stored URL reads (src/domain/stored_urls.ts) against what its render really reads, and
 * what a change re-renders. A commit re-renders only the groups of pages that read a
 * collection it mutated, so a page that reads something it does not declare would keep
 * serving its stored bytes after that changed: the trace below renders every stored URL in
 * every format over a world of every public route (tests/support/public_world.ts), records the
 * KV collections each render reads, and fails on a public one its group does not declare. The
 * differential suite (tests/differential/) compares every stored URL with a fresh render after
 * every mutating operation, which covers what a trace cannot see (data the world lacks).
 */
import assert from "node:assert/strict";
import {
  CENTER_GROUPS,
  type PageGroup,
  PROJECT_GROUPS,
  storedScopeOf,
} from "../../src/domain/stored_urls.ts";
import {
  dependencies,
  pageKey,
  signature,
  type StoredPage,
  touchOrganization,
} from "../../src/store/edge_pages.ts";
import { importOrganization } from "../../src/lifecycle/org_import.ts";
import { KEY_COLLECTIONS } from "../../src/store/tenant_keys.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { collector, evidenceItem } from "../support/fixtures.ts";
import { world } from "../support/public_world.ts";

/** Collections whose writes alter public pages (the ones a page must declare). */
const PUBLIC = new Set(
  Object.entries(KEY_COLLECTIONS).filter(([, rule]) => rule.public !== "none").map(([name]) =>
    name
  ),
);

/** A KV that records the collections read while `recording` is on. */
function readTracer() {
  const state = { recording: false, read: new Set<string>() };
  const note = (key: Deno.KvKey) => {
    if (state.recording) state.read.add(String(key[0] ?? ""));
  };
  const wrap = (kv: Deno.Kv): Deno.Kv =>
    new Proxy(kv, {
      get(target, property) {
        const value = Reflect.get(target, property, target);
        if (typeof value !== "function") return value;
        if (property === "get") {
          return (key: Deno.KvKey, options?: unknown) => {
            note(key);
            return value.call(target, key, options);
          };
        }
        if (property === "getMany") {
          return (keys: Deno.KvKey[], options?: unknown) => {
            keys.forEach(note);
            return value.call(target, keys, options);
          };
        }
        if (property === "list") {
          return (selector: { prefix?: Deno.KvKey; start?: Deno.KvKey }, options?: unknown) => {
            note(selector.prefix?.length ? selector.prefix : selector.start ?? []);
            return value.call(target, selector, options);
          };
        }
        return value.bind(target);
      },
    });
  return { state, wrap };
}

/**
 * Collections a page may read without declaring them, and why: their writes never change a
 * page without a write to a declared collection in the same commit, or they do not show.
 */
const MAY_READ: Readonly<Record<string, string>> = {
  projects_by_slug: "the slug's index, written with the project's record",
  organizations_by_slug: "the slug's index, written with the organization's record",
  projects_by_organization: "the organization's list of projects, written with their records",
  answer_counts: "the answers' count, written with the answers",
  answers_by_order: "the answers' order, written with the answers",
  answers_by_order_counts: "the order's counts, written with the answers",
  collector_last_seen: "read with each collector; the setup guide does not show it",
  edge_gen: "the `*` generation: downloads keep what they built under it",
  blobs: "content-addressed bytes, named by a declared record (a version's documents)",
  blob_chunks: "the parts of those bytes",
};

/** What a stored URL's render reads: public collections, changes, and anything unexpected. */
function dataRead(collections: Iterable<string>): string[] {
  const data = new Set<string>();
  for (const collection of collections) {
    if (PUBLIC.has(collection)) data.add(collection);
    // The organization's last change: the latest page's "as of".
    else if (collection === "edge_changed") data.add("changes");
    else if (!(collection in MAY_READ)) data.add(collection);
  }
  return [...data].sort();
}

/** The public collections a group's render reads without declaring them. */
function undeclared(group: PageGroup, read: readonly string[]): string[] {
  return read.filter((collection) => !group.reads.includes(collection));
}

const ACCEPTS = ["text/html", "text/markdown", "application/json"];

/** Every stored URL of the world, each with what its render read in every format. */
async function traceReads(ctx: TestApp, tracer: ReturnType<typeof readTracer>, paths: string[]) {
  const organizationId = (await ctx.kv.get<{ organizationId: string }>(
    ["projects_by_slug", "acme"],
  )).value;
  assert.ok(organizationId !== null);
  const reads = new Map<string, string[]>();
  for (const path of paths) {
    const read = new Set<string>();
    for (const accept of ACCEPTS) {
      tracer.state.read = new Set();
      tracer.state.recording = true;
      const response = await ctx.app.fetch(
        new Request(new URL(path, ctx.config.baseUrl), { headers: { accept } }),
        { edgeRender: true },
      );
      await response.arrayBuffer();
      tracer.state.recording = false;
      assert.equal(response.status, 200, `${path} (${accept})`);
      for (const collection of tracer.state.read) read.add(collection);
    }
    reads.set(path, dataRead(read));
  }
  return reads;
}

Deno.test("[edge] every stored URL reads only what its group declares", async () => {
  const tracer = readTracer();
  await using ctx = await createTestApp({ wrapKv: tracer.wrap });
  const { params } = await world(ctx);
  const organizationId = params.organizationId;
  const paths = [
    ...PROJECT_GROUPS.flatMap((g) => g.paths.map((p) => `/trust/${params.projectSlug}${p}`)),
    ...CENTER_GROUPS.flatMap((g) => g.paths.map((p) => `/public/trust/${params.orgSlug}${p}`)),
  ];
  // Downloads keep what they built under the organization's `*` generation: a touch before
  // the trace makes each build again, so its reads are seen.
  await touchOrganization(ctx.kv.atomic(), organizationId, ctx.clock.now()).commit();
  const reads = await traceReads(ctx, tracer, paths);
  const missing: string[] = [];
  for (const [path, read] of reads) {
    const group = storedScopeOf(path)!.group;
    const extra = undeclared(group, read);
    if (extra.length > 0) missing.push(`${path} (${group.name}) reads ${extra.join(", ")}`);
  }
  assert.deepEqual(missing, [], "reads a group does not declare");
  // Each group's declaration names only public collections (or the organization's changes).
  for (const group of [...PROJECT_GROUPS, ...CENTER_GROUPS]) {
    for (const read of group.reads) {
      assert.ok(read === "changes" || PUBLIC.has(read), `${group.name} declares ${read}`);
    }
  }
  // The trace can fail: the signed profile without its publication would be caught.
  const signed = PROJECT_GROUPS.find((g) => g.name === "signed")!;
  const broken = { ...signed, reads: signed.reads.filter((r) => r !== "publications") };
  assert.deepEqual(undeclared(broken, reads.get(`/trust/${params.projectSlug}/trust.json`)!), [
    "publications",
  ]);
  // And the latest page really reads the organization's last change, and the trust center's
  // answers the controls' live state.
  assert.ok(reads.get(`/trust/${params.projectSlug}`)!.includes("changes"));
  assert.ok(reads.get(`/public/trust/${params.orgSlug}/answers`)!.includes("controls"));
});

/** The versionstamps of the identity records of `paths` (null: not stored). */
async function stamps(ctx: TestApp, paths: string[]): Promise<Map<string, string | null>> {
  const found = new Map<string, string | null>();
  for (const path of paths) {
    const variant = ["signed", "version"].includes(storedScopeOf(path)!.group.name)
      ? "any"
      : "html";
    const stored = await ctx.kv.getMany([
      pageKey(path, variant, "identity"),
      pageKey(path, "any", "identity"),
    ]);
    found.set(path, stored[0].versionstamp ?? stored[1].versionstamp);
  }
  return found;
}

Deno.test("[edge] a change re-renders and purges only the pages that read what it changed", async (t) => {
  await using ctx = await createTestApp();
  const { token, params } = await world(ctx);
  const organizationId = params.organizationId;
  const projectId = params.projectId;
  const rendered = await ctx.services.edge.render(organizationId);
  assert.ok(rendered.length > 0);
  const project = (name: string) => `project-${projectId}-${name}`;
  const center = (name: string) => `center-${organizationId}-${name}`;
  const watched = [
    "/trust/acme/trust.json",
    "/trust/acme/controls",
    "/trust/acme/badge.svg",
    "/trust/acme/updates",
    "/trust/acme/documents",
    `/public/trust/${params.orgSlug}/answers.csv`,
    `/public/trust/${params.orgSlug}/documents`,
  ];

  await t.step("a new subprocessor: the subprocessor list and the latest page only", async () => {
    const before = await stamps(ctx, watched);
    const res = await ctx.call("POST", `/organizations/${organizationId}/subprocessors`, {
      token,
      json: { name: "Mailer", purpose: "Email", location: "Germany", website: "https://m.test" },
    });
    assert.equal(res.status, 201, await res.text());
    // The latest page shows the count and the last change, the trust center the list.
    assert.deepEqual((await ctx.services.edge.render(organizationId)).sort(), [
      center("subprocessors"),
      project("latest"),
    ]);
    // No project page but the latest one, and no answer download, was written again.
    assert.deepEqual(await stamps(ctx, watched), before);
  });

  await t.step("evidence alone re-renders nothing: pages show published versions", async () => {
    const c = await collector(
      ctx,
      {
        token,
        project: { id: projectId },
      } as Parameters<typeof collector>[1],
    );
    // The new collector shows on the setup guide (and the latest page's "as of"): apart.
    assert.deepEqual((await ctx.services.edge.render(organizationId)).sort(), [
      project("latest"),
      project("setup"),
    ]);
    const sent = await ctx.call("POST", "/ingest/evidence", {
      token: c.secret,
      json: {
        projectId,
        ...evidenceItem(ctx, { summary: { critical: 2, high: 0, medium: 0, low: 0 } }, {
          evidenceType: "vulnerability_scan",
        }),
      },
    });
    assert.ok(sent.status < 300, await sent.text());
    await ctx.services.scheduler.recompute(projectId);
    assert.deepEqual(await ctx.services.edge.render(organizationId), []);
  });

  await t.step("a control's change: the pages that show controls", async () => {
    const before = await stamps(ctx, watched);
    const listed = await ctx.call("GET", `/projects/${projectId}/controls`, { token });
    const controls = (await listed.json()).controls as { id: string }[];
    const res = await ctx.call("PATCH", `/projects/${projectId}/controls/${controls[0].id}`, {
      token,
      json: { publicName: "Dependency inventory" },
    });
    assert.equal(res.status, 200, await res.text());
    // Answers cite controls by name (their live state); the latest page shows the last
    // change's time. The version's documents show the signed version, not the live control.
    assert.deepEqual((await ctx.services.edge.render(organizationId)).sort(), [
      center("answers"),
      project("latest"),
    ]);
    // The answers' downloads are of the answers' group; nothing else watched was written.
    const after = await stamps(ctx, watched);
    const csv = `/public/trust/${params.orgSlug}/answers.csv`;
    assert.notEqual(after.get(csv), before.get(csv));
    after.delete(csv);
    before.delete(csv);
    assert.deepEqual(after, before);
  });

  await t.step("a publication: the signed profile first, not the lists", async () => {
    const before = await stamps(ctx, watched);
    const published = await ctx.call("POST", `/projects/${projectId}/publish`, { token });
    assert.equal(published.status, 201, await published.text());
    const rendered = await ctx.services.edge.render(organizationId);
    assert.equal(rendered[0], project("signed"), "the signed profile first");
    assert.deepEqual([...rendered].sort(), [
      center("answers"),
      center("center"),
      project("feed"),
      project("frameworks"),
      project("latest"),
      project("signed"),
      project("version"),
    ]);
    const after = await stamps(ctx, watched);
    for (const path of ["/trust/acme/trust.json", "/trust/acme/controls"]) {
      assert.notEqual(after.get(path), before.get(path), path);
    }
    for (const path of ["/trust/acme/updates", "/trust/acme/documents"]) {
      assert.equal(after.get(path), before.get(path), path);
    }
  });
});

Deno.test("[edge] an imported organization's stored pages are all rendered again on the new instance", async () => {
  await using source = await createTestApp();
  const { token, params } = await world(source);
  await source.services.edge.render(params.organizationId);
  const res = await source.call("GET", `/organizations/${params.organizationId}/export`, { token });
  assert.equal(res.status, 200);
  const archive = await Deno.makeTempFile({ suffix: ".zip" });
  try {
    await Deno.writeFile(archive, new Uint8Array(await res.arrayBuffer()));
    await using target = await createTestApp();
    // The import writes the project's record and its versions in one commit: that commit's
    // touch names the project's groups (its organization is the record's), so they render.
    await importOrganization({
      kv: target.services.kv,
      blobs: target.services.blobs,
      path: archive,
    });
    for (let round = 0; round < 10; round++) {
      if ((await target.services.jobs.drain(30_000)) === 0) break;
    }
    const stale: string[] = [];
    let stored = 0;
    for await (const entry of target.kv.list<StoredPage>({ prefix: ["edge_page"] })) {
      stored++;
      const current = signature(await target.kv.getMany(dependencies(entry.value)));
      if (current.join(",") !== entry.value.generations.join(",")) {
        stale.push(entry.key.slice(1).join(" "));
      }
    }
    assert.ok(stored > 50, `${stored} stored pages`);
    assert.deepEqual(stale, [], "stored pages at stale generations after the import");
  } finally {
    await Deno.remove(archive);
  }
});
