import assert from "node:assert/strict";
import { createServices } from "../../src/app.ts";
import { getProject } from "../../src/store/projects.ts";
import { listPublications } from "../../src/store/publications.ts";
import { createTestApp, snapshotKv, type TestApp } from "../support/app.ts";
import { publishVersion, workspace } from "../support/fixtures.ts";
import {
  type Checkpoint,
  fromBase64,
  rfcLeafHash,
  rfcNode,
  toBase64,
  verifyCheckpoint,
  verifyConsistency,
  verifyInclusion,
} from "../support/tlog_verifier.ts";

async function getJson(ctx: TestApp, path: string) {
  const res = await ctx.call("GET", path);
  assert.equal(res.status, 200, `${path}: ${res.status}`);
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
  return await res.json();
}

async function sha256Hex(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The entry a reader rebuilds from trust.json bytes alone (the format GET /log documents). */
async function entryOf(trustJson: Uint8Array<ArrayBuffer>): Promise<string> {
  const profile = JSON.parse(new TextDecoder().decode(trustJson));
  return `trust-profile-publication/v1\n${profile.project.slug}\n${profile.version}\nsha256:${await sha256Hex(
    trustJson,
  )}\n${profile.publishedAt}\n`;
}

/** Follows a trust.json answer's Link to its inclusion proof and verifies it from scratch. */
async function verifyTrustJson(ctx: TestApp, path: string, vkey: string): Promise<Checkpoint> {
  const res = await ctx.call("GET", path);
  assert.equal(res.status, 200);
  const bytes = new Uint8Array(await res.arrayBuffer());
  const link = res.headers.get("link") ?? "";
  const match = link.match(/^<([^>]+)>; rel="([^"]+)"$/);
  assert.ok(match, `a Link header on ${path}: ${link}`);
  const info = await getJson(ctx, "/log");
  assert.equal(match[2], info.inclusionProofRelation);
  const proof = await getJson(ctx, new URL(match[1]).pathname);
  const checkpoint = await verifyCheckpoint(proof.checkpoint, vkey);
  assert.equal(checkpoint.size, proof.treeSize);
  const entry = await entryOf(bytes);
  assert.equal(proof.entry, entry);
  const leaf = await rfcLeafHash(entry);
  assert.ok(
    await verifyInclusion(
      proof.leafIndex,
      checkpoint.size,
      proof.proof.map(fromBase64),
      leaf,
      checkpoint.root,
    ),
    `${path} is in the log`,
  );
  return checkpoint;
}

Deno.test("[http] publication log: checkpoints, trust.json links, inclusion and a monitor's consistency check", async (t) => {
  await using ctx = await createTestApp();
  const acme = await workspace(ctx, "alice", { projectSlug: "acme", visibility: "public" });
  const hidden = await workspace(ctx, "bob", { projectSlug: "hidden", visibility: "private" });
  await publishVersion(ctx, acme);
  await publishVersion(ctx, hidden);
  await publishVersion(ctx, acme);

  const info = await getJson(ctx, "/log");
  let seen: Checkpoint;

  await t.step("GET /log describes the log; its verifier key verifies the checkpoint", async () => {
    assert.equal(info.origin, "trust.test/log");
    assert.equal(info.treeSize, 3);
    assert.equal(info.checkpoint, "http://trust.test/log/checkpoint");
    assert.match(info.verifierKey, /^trust\.test\/log\+[0-9a-f]{8}\+/);
    const res = await ctx.call("GET", "/log/checkpoint");
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "text/plain; charset=utf-8");
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    assert.match(res.headers.get("cache-control") ?? "", /^public/);
    const note = await res.text();
    assert.match(
      note,
      /^trust\.test\/log\n3\n[A-Za-z0-9+/]{43}=\n\n\u2014 trust\.test\/log \S+\n$/,
    );
    seen = await verifyCheckpoint(note, info.verifierKey);
    assert.equal(seen.size, 3);
    await assert.rejects(() => verifyCheckpoint(note.replace("\n3\n", "\n4\n"), info.verifierKey));
  });

  await t.step(
    "latest and versioned trust.json link to an inclusion proof that verifies",
    async () => {
      await verifyTrustJson(ctx, "/trust/acme/trust.json", info.verifierKey);
      // A second read is answered by the fast path, with the same Link.
      await verifyTrustJson(ctx, "/trust/acme/trust.json", info.verifierKey);
      await verifyTrustJson(ctx, "/trust/acme/versions/1/trust.json", info.verifierKey);
      await verifyTrustJson(ctx, "/trust/acme/versions/2/trust.json", info.verifierKey);
    },
  );

  await t.step("inclusion by slug and version; private projects are not named", async () => {
    const proof = await getJson(ctx, "/log/publications/acme/2/inclusion");
    assert.equal(proof.leafIndex, 2);
    assert.equal((await ctx.call("GET", "/log/publications/hidden/1/inclusion")).status, 404);
    assert.equal((await ctx.call("GET", "/log/publications/acme/3/inclusion")).status, 404);
    const entry = await getJson(ctx, "/log/entries/1");
    assert.equal(entry.entry, null, "a private project's entry shows only its leaf hash");
    assert.equal(typeof entry.leafHash, "string");
    const byIndex = await getJson(ctx, "/log/entries/1/inclusion?treeSize=2");
    assert.equal(byIndex.entry, null);
    assert.equal(byIndex.treeSize, 2);
  });

  await t.step("a monitor that saw checkpoint 3 proves the log only grew", async () => {
    await publishVersion(ctx, hidden);
    await publishVersion(ctx, acme);
    await publishVersion(ctx, acme);
    const latest = await verifyCheckpoint(
      await (await ctx.call("GET", "/log/checkpoint")).text(),
      info.verifierKey,
    );
    assert.equal(latest.size, 6);
    const proof = await getJson(ctx, `/log/consistency?from=${seen.size}&to=${latest.size}`);
    assert.equal(proof.fromRootHash, toBase64(seen.root));
    await verifyCheckpoint(proof.checkpoint, info.verifierKey);
    assert.ok(
      await verifyConsistency(
        seen.size,
        latest.size,
        proof.proof.map(fromBase64),
        seen.root,
        latest.root,
      ),
    );
  });

  await t.step(
    "a rewritten history no longer proves consistent with what the monitor saw",
    async () => {
      // The operator replaces entry 0 and recomputes every stored subtree above it, so the log
      // it serves is a well-formed tree again, just not the one the monitor saw.
      const node = async (level: number, index: number) =>
        (await ctx.kv.get<Uint8Array>(["log_nodes", level, index])).value!;
      const forgedLeaf = await rfcLeafHash("a different history\n");
      const level1 = await rfcNode(forgedLeaf, await node(0, 1));
      const level2 = await rfcNode(level1, await node(1, 1));
      await ctx.kv.set(["log_nodes", 0, 0], forgedLeaf);
      await ctx.kv.set(["log_nodes", 1, 0], level1);
      await ctx.kv.set(["log_nodes", 2, 0], level2);
      const latest = await verifyCheckpoint(
        await (await ctx.call("GET", "/log/checkpoint")).text(),
        info.verifierKey,
      );
      const proof = await getJson(ctx, `/log/consistency?from=${seen.size}`);
      assert.equal(
        await verifyConsistency(
          seen.size,
          latest.size,
          proof.proof.map(fromBase64),
          seen.root,
          latest.root,
        ),
        false,
      );
      // A proof of the rewritten tree against its own old root verifies: only the pinned
      // root catches the rewrite.
      assert.ok(
        await verifyConsistency(
          seen.size,
          latest.size,
          proof.proof.map(fromBase64),
          fromBase64(proof.fromRootHash),
          latest.root,
        ),
      );
      assert.notEqual(proof.fromRootHash, toBase64(seen.root));
    },
  );

  await t.step("bad sizes and indexes are 4xx in the envelope and change nothing", async () => {
    const before = await snapshotKv(ctx.kv);
    for (
      const [path, status] of [
        ["/log/entries/-1", 400],
        ["/log/entries/abc", 400],
        ["/log/entries/99", 404],
        ["/log/entries/99/inclusion", 404],
        ["/log/entries/2/inclusion?treeSize=2", 400],
        ["/log/entries/0/inclusion?treeSize=0", 400],
        ["/log/entries/0/inclusion?treeSize=7", 404],
        ["/log/consistency", 400],
        ["/log/consistency?from=0", 400],
        ["/log/consistency?from=9", 400],
        ["/log/consistency?from=2&to=1", 400],
        ["/log/consistency?from=2&to=99", 404],
        ["/log/publications/acme/0/inclusion", 400],
        ["/log/publications/nobody/1/inclusion", 404],
      ] as const
    ) {
      const res = await ctx.call("GET", path);
      assert.equal(res.status, status, path);
      const body = await res.json();
      assert.equal(typeof body.error?.code, "string", path);
    }
    assert.equal(await snapshotKv(ctx.kv), before);
  });

  await t.step("preflights of /log are answered for any origin", async () => {
    const res = await ctx.call("OPTIONS", "/log/checkpoint", {
      headers: { origin: "https://monitor.example", "access-control-request-method": "GET" },
    });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
  });
});

Deno.test("[http] publication log: a public project's entries, paged and in a given tree; private and unknown projects are 404", async (t) => {
  await using ctx = await createTestApp();
  const acme = await workspace(ctx, "alice", { projectSlug: "acme", visibility: "public" });
  const hidden = await workspace(ctx, "bob", { projectSlug: "hidden", visibility: "private" });
  await publishVersion(ctx, acme); // entry 0
  await publishVersion(ctx, hidden); // entry 1
  await publishVersion(ctx, acme); // entry 2
  await publishVersion(ctx, acme); // entry 3

  await t.step("every entry of the project, oldest first, as the log holds it", async () => {
    const body = await getJson(ctx, "/log/publications/acme");
    assert.equal(body.projectSlug, "acme");
    assert.equal(body.treeSize, 4);
    assert.equal(body.nextCursor, null);
    assert.deepEqual(
      body.entries.map((e: { version: number; leafIndex: number }) => [e.version, e.leafIndex]),
      [[1, 0], [2, 2], [3, 3]],
    );
    for (const item of body.entries) {
      const res = await ctx.call("GET", `/trust/acme/versions/${item.version}/trust.json`);
      const entry = await entryOf(new Uint8Array(await res.arrayBuffer()));
      assert.equal(item.entry, entry);
      assert.equal(item.leafHash, toBase64(await rfcLeafHash(entry)));
      assert.equal(item.leafHash, (await getJson(ctx, `/log/entries/${item.leafIndex}`)).leafHash);
    }
  });

  await t.step("pages follow nextCursor; treeSize leaves out later entries", async () => {
    const first = await getJson(ctx, "/log/publications/acme?limit=2");
    assert.deepEqual(first.entries.map((e: { version: number }) => e.version), [1, 2]);
    assert.equal(first.nextCursor, "2");
    const second = await getJson(ctx, "/log/publications/acme?limit=2&cursor=2");
    assert.deepEqual(second.entries.map((e: { version: number }) => e.version), [3]);
    assert.equal(second.nextCursor, null);
    const older = await getJson(ctx, "/log/publications/acme?treeSize=3");
    assert.equal(older.treeSize, 3);
    assert.deepEqual(older.entries.map((e: { version: number }) => e.version), [1, 2]);
    const exact = await getJson(ctx, "/log/publications/acme?treeSize=3&limit=2");
    assert.equal(exact.nextCursor, null, "no further page inside the tree");
  });

  await t.step("private, unknown and bad requests are 4xx in the envelope", async () => {
    const before = await snapshotKv(ctx.kv);
    for (
      const [path, status] of [
        ["/log/publications/hidden", 404],
        ["/log/publications/nobody", 404],
        ["/log/publications/acme?treeSize=9", 404],
        ["/log/publications/acme?treeSize=0", 400],
        ["/log/publications/acme?limit=0", 400],
        ["/log/publications/acme?limit=1001", 400],
        ["/log/publications/acme?cursor=0", 400],
        ["/log/publications/acme?cursor=x", 400],
      ] as const
    ) {
      const res = await ctx.call("GET", path);
      assert.equal(res.status, status, path);
      const body = await res.json();
      assert.equal(typeof body.error?.code, "string", path);
      assert.ok(!JSON.stringify(body).includes("hidden workspace"), path);
    }
    assert.equal(await snapshotKv(ctx.kv), before);
  });
});

Deno.test("[http] publication log: concurrent publishes of several projects on two instances match the versions exactly", async () => {
  await using ctx = await createTestApp();
  const other = await createServices({
    config: ctx.config,
    kv: ctx.kv,
    blobs: ctx.services.blobs,
    clock: ctx.clock,
    log: ctx.log,
  });
  const projects = [];
  for (const name of ["a", "b", "c", "d"]) {
    const { project } = await workspace(ctx, name, { projectSlug: `p-${name}` });
    projects.push((await getProject(ctx.kv, project.id))!);
  }
  const PER_PROJECT = 3;
  await Promise.all(
    projects.flatMap((project) =>
      Array.from(
        { length: PER_PROJECT },
        (_, i) => (i % 2 === 0 ? ctx.services : other).publish(project),
      )
    ),
  );
  const size = projects.length * PER_PROJECT;
  const entries: string[] = [];
  for await (const entry of ctx.kv.list<{ entry: string }>({ prefix: ["log_entries"] })) {
    entries.push(entry.value.entry);
  }
  assert.equal(entries.length, size);
  assert.equal((await getJson(ctx, "/log")).treeSize, size);
  // Each project's versions 1..3 appear once each, in version order, with their digests.
  for (const project of projects) {
    const publications = (await listPublications(ctx.kv, project.id)).reverse();
    assert.deepEqual(publications.map((p) => p.version), [1, 2, 3]);
    const logged = entries
      .map((text, index) => ({ lines: text.split("\n"), index }))
      .filter(({ lines }) => lines[1] === project.slug);
    assert.deepEqual(
      logged.map(({ lines }) => [lines[2], lines[3], lines[4]]),
      publications.map((p) => [String(p.version), p.digest, p.publishedAt]),
    );
    assert.deepEqual(logged.map(({ index }) => index), publications.map((p) => p.logIndex));
  }
});

Deno.test("[http] /log: JSON for machines, an HTML page for browsers, Markdown for agents", async (t) => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "alice", { visibility: "public" });
  await publishVersion(ctx, ws);
  const info = await getJson(ctx, "/log");
  const get = (path: string, accept?: string) =>
    ctx.call("GET", path, { headers: accept ? { accept } : {} });

  await t.step("JSON stays the default and answers application/json too", async () => {
    for (
      const [path, accept] of [["/log", undefined], ["/log", "application/json"], [
        "/log.json",
        "text/html",
      ]]
    ) {
      const res = await get(path!, accept);
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
      assert.deepEqual(await res.json(), info);
    }
  });

  await t.step("a browser gets an HTML page under the trust pages' CSP", async () => {
    const browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
    for (const [path, accept] of [["/log", browser], ["/log.html", undefined]]) {
      const res = await get(path!, accept);
      assert.equal(res.status, 200, path ?? "");
      assert.match(res.headers.get("content-type") ?? "", /^text\/html/);
      assert.match(res.headers.get("content-security-policy") ?? "", /default-src 'none'/);
      assert.equal(res.headers.get("vary"), "Accept, Accept-Encoding");
      const page = await res.text();
      assert.match(page, /<h1 id="title">Publication log<\/h1>/);
      assert.ok(page.includes(info.verifierKey), "the verifier key is shown");
      assert.match(page, /<dt>Entries<\/dt>\s*<dd>1<\/dd>/);
      assert.match(page, /href="http:\/\/trust\.test\/log\/checkpoint"/);
      assert.match(page, /deno run --allow-net http:\/\/trust\.test\/verify\.ts/);
      assert.match(
        page,
        /<a href="http:\/\/trust\.test\/log\.json"\s+download="log\.json" type="application\/json"/,
      );
    }
  });

  await t.step("an agent gets Markdown", async () => {
    for (const [path, accept] of [["/log", "text/markdown"], ["/log.md", undefined]]) {
      const res = await get(path!, accept);
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type") ?? "", /^text\/markdown/);
      const text = await res.text();
      assert.match(text, /^# Publication log\n/);
      assert.ok(text.includes(`- Checkpoint verifier key: \`${info.verifierKey}\``));
      assert.match(text, /- Entries: 1\n/);
    }
  });

  await t.step("the explicit forms are public reads with CORS", async () => {
    for (const path of ["/log.json", "/log.html", "/log.md"]) {
      const res = await get(path);
      assert.equal(res.headers.get("access-control-allow-origin"), "*", path);
      await res.body?.cancel();
    }
  });
});
