/**
 * Organization export and import: an owner downloads the archive over real HTTP, the operator
 * imports it into a fresh KV with `deno task import` (a subprocess, as the README shows), the
 * service starts on it and the verifier kit verifies every published version. Tampered
 * archives are refused before anything is written; the export route's authorization matrix.
 */
import assert from "node:assert/strict";
import { unzipSync, zipSync } from "fflate";
import { createKvBlobStore } from "../../src/blobs/kv.ts";
import { clockEnv } from "../support/process.ts";
import { bootstrapAcme, jsonApi, startTestServer } from "../support/server.ts";
import { runKit } from "../support/verify_kit.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

async function importTask(archive: string, kvPath: string, ...flags: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", "import", archive, ...flags],
    cwd: ROOT,
    env: {
      NO_COLOR: "1",
      PATH: Deno.env.get("PATH") ?? "",
      HOME: Deno.env.get("HOME") ?? "/tmp",
      ...clockEnv(),
      KV_PATH: kvPath,
    },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes).trim();
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

async function countEntries(path: string): Promise<number> {
  const kv = await Deno.openKv(path);
  try {
    return (await Array.fromAsync(kv.list({ prefix: [] }))).length;
  } finally {
    kv.close();
  }
}

Deno.test("[lifecycle] export → import into a fresh KV → the kit verifies every version", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "org_export_" });
  const kv = await Deno.openKv(":memory:");
  let server = await startTestServer({ kv, worker: false });
  const baseUrl = server.baseUrl;
  try {
    const owner = await server.tokenFor("owner");
    const api = jsonApi(baseUrl, owner);
    const stranger = await server.tokenFor("stranger");
    const projectId = await bootstrapAcme(api);
    const organizationId = (await api("GET", `/projects/${projectId}`)).json.project.organizationId;
    const second = await api("POST", "/projects", {
      organizationId,
      name: "Acme Labs",
      slug: "acme-labs",
      visibility: "public",
    });
    assert.equal(second.status, 201, JSON.stringify(second.json));
    const created = await api("POST", `/projects/${projectId}/collectors`, { name: "ci" });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    const collector = jsonApi(baseUrl, created.json.secret.value);
    const payloads: string[] = [];
    const publish = async (id: string) => {
      const res = await api("POST", `/projects/${id}/publish`);
      assert.equal(res.status, 201, JSON.stringify(res.json));
    };
    for (let i = 0; i < 3; i++) {
      const sent = await collector("POST", "/ingest/evidence", {
        projectId,
        evidenceType: "sbom",
        sourceType: "github_actions",
        sourceRef: "acme/api@refs/heads/main",
        observedAt: new Date(Date.now() - (3 - i) * 1000).toISOString(),
        payload: { bomFormat: "CycloneDX", specVersion: "1.5", components: [{ name: `c${i}` }] },
      });
      assert.ok(sent.status === 201 || sent.status === 200, JSON.stringify(sent.json));
      payloads.push(`c${i}`);
      await publish(projectId);
      if (i === 0) {
        // Another tenant publishes in between: its log entry sits among acme's.
        const other = jsonApi(baseUrl, stranger);
        const boot = await other("POST", "/onboarding/bootstrap", {
          workspaceName: "Globex",
          projectName: "Globex Cloud",
          projectSlug: "globex",
          projectVisibility: "public",
        });
        assert.equal(boot.status, 201, JSON.stringify(boot.json));
        assert.equal(
          (await other("POST", `/projects/${boot.json.project.id}/publish`)).status,
          201,
        );
      }
    }
    await publish(second.json.project.id);

    const member = await server.tokenFor("member");
    const invited = await api("POST", `/organizations/${organizationId}/invitations`, {
      email: "member@example.com",
      role: "member",
    });
    assert.equal(invited.status, 201, JSON.stringify(invited.json));
    const invitation = new URL(invited.json.acceptUrl).hash.slice("#invitation=".length);
    assert.equal(
      (await jsonApi(baseUrl, member)("POST", `/invitations/${invitation}/accept`)).status,
      200,
    );
    const path = `/organizations/${organizationId}/export`;

    await t.step("only an owner may export", async () => {
      const get = (token?: string) =>
        fetch(`${baseUrl}${path}`, {
          headers: token ? { authorization: `Bearer ${token}` } : {},
        });
      const anonymous = await get();
      assert.equal(anonymous.status, 401);
      assert.equal((await anonymous.json()).error.code, "unauthorized");
      for (const [who, token] of [["stranger", stranger], ["member", member]]) {
        const res = await get(token);
        assert.equal(res.status, 403, who);
        assert.equal((await res.json()).error.code, "forbidden", who);
      }
      const unknown = await get(owner).then(() =>
        fetch(`${baseUrl}/organizations/${crypto.randomUUID()}/export`, {
          headers: { authorization: `Bearer ${owner}` },
        })
      );
      assert.equal(unknown.status, 403);
      await unknown.body?.cancel();
      const bad = await fetch(`${baseUrl}${path}?include=everything`, {
        headers: { authorization: `Bearer ${owner}` },
      });
      assert.equal(bad.status, 400);
      await bad.body?.cancel();
    });

    let plain: Uint8Array = new Uint8Array();
    await t.step("an owner's archive: documents, entries, blobs, a manifest; no keys", async () => {
      const res = await fetch(`${baseUrl}${path}`, {
        headers: { authorization: `Bearer ${owner}` },
      });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), "application/zip");
      assert.equal(res.headers.get("export-warning"), null);
      assert.match(res.headers.get("content-disposition") ?? "", /attachment; filename="acme-/);
      plain = new Uint8Array(await res.arrayBuffer());
      const files = unzipSync(plain);
      const manifest = JSON.parse(new TextDecoder().decode(files["manifest.json"]));
      assert.equal(manifest.keys, false);
      assert.equal(manifest.log, false);
      assert.ok(!("WARNING.txt" in files));
      for (const entry of manifest.entries) {
        const digest = new Uint8Array(
          await crypto.subtle.digest("SHA-256", files[entry.path] as Uint8Array<ArrayBuffer>),
        );
        assert.equal(
          entry.sha256,
          [...digest].map((b) => b.toString(16).padStart(2, "0")).join(""),
        );
      }
      assert.deepEqual(
        Object.keys(files).sort(),
        [...manifest.entries.map((e: { path: string }) => e.path), "manifest.json"].sort(),
      );
      const text = (name: string) => new TextDecoder().decode(files[name]);
      const projects = text("projects.jsonl").trim().split("\n").map((l) => JSON.parse(l).value);
      assert.deepEqual(projects.map((p: { slug: string }) => p.slug).sort(), ["acme", "acme-labs"]);
      assert.equal(text("publications.jsonl").trim().split("\n").length, 4);
      for (const component of payloads) {
        assert.ok(
          Object.keys(files).some((name) =>
            name.startsWith("blobs/evidence/") && text(name).includes(component)
          ),
          `the payload with ${component} is in the archive`,
        );
      }
      assert.ok(Object.keys(files).some((name) => name.startsWith("blobs/artifact/")));
      assert.equal(text("members.jsonl").trim().split("\n").length, 4, "2 memberships, 2 users");
      const all = new TextDecoder().decode(plain);
      assert.doesNotMatch(all, /"d":"[A-Za-z0-9_-]{43}"/, "no private JWK");
      assert.ok(!Object.keys(files).some((name) => name.includes("log_")));
      console.log(
        `  archive without keys: ${plain.length} bytes, ${manifest.kvEntries} entries, ${manifest.blobs} blobs`,
      );
    });

    let archive = "";
    let withKeys: Uint8Array = new Uint8Array();
    let logOnly: Uint8Array = new Uint8Array();
    await t.step("with include=keys-and-log: the warning, the keys and the log", async () => {
      const res = await fetch(`${baseUrl}${path}?include=keys-and-log`, {
        headers: { authorization: `Bearer ${owner}` },
      });
      assert.equal(res.status, 200);
      assert.match(
        res.headers.get("export-warning") ?? "",
        /private publication and log signing keys/,
      );
      withKeys = new Uint8Array(await res.arrayBuffer());
      const files = unzipSync(withKeys);
      assert.match(new TextDecoder().decode(files["WARNING.txt"]), /keep it secret/);
      for (const [name, bytes] of Object.entries(files)) {
        assert.ok(
          !new TextDecoder().decode(bytes).includes("globex"),
          `${name} names no other tenant`,
        );
      }
      const manifest = JSON.parse(new TextDecoder().decode(files["manifest.json"]));
      assert.equal(manifest.keys, true);
      assert.equal(manifest.log, true);
      archive = `${dir}/acme.zip`;
      await Deno.writeFile(archive, withKeys);
      const res2 = await fetch(`${baseUrl}${path}?include=log`, {
        headers: { authorization: `Bearer ${owner}` },
      });
      assert.equal(res2.status, 200);
      assert.equal(res2.headers.get("export-warning"), null);
      logOnly = new Uint8Array(await res2.arrayBuffer());
    });

    await t.step("a tampered archive is refused before anything is written", async () => {
      const files = unzipSync(withKeys);
      const changed = new TextEncoder().encode(
        new TextDecoder().decode(files["projects.jsonl"]).replace("Acme Cloud", "Acme Clout"),
      );
      const cases: [string, Uint8Array, RegExp][] = [
        [
          "an entry changed",
          zipSync({ ...files, "projects.jsonl": changed }),
          /"projects\.jsonl" does not match its SHA-256/,
        ],
        [
          "an entry added",
          zipSync({ ...files, "extra.txt": new Uint8Array([1]) }),
          /"extra\.txt" is not in the manifest/,
        ],
        [
          "an entry removed",
          zipSync(
            Object.fromEntries(Object.entries(files).filter(([n]) => n !== "evidence.jsonl")),
          ),
          /"evidence\.jsonl" is in the manifest, not the archive/,
        ],
        ["cut short", withKeys.subarray(0, Math.floor(withKeys.length / 2)), /import failed/],
      ];
      for (const [name, bytes, message] of cases) {
        const file = `${dir}/tampered.zip`;
        await Deno.writeFile(file, bytes);
        const target = `${dir}/tampered-${crypto.randomUUID()}.sqlite3`;
        const run = await importTask(file, target);
        assert.equal(run.code, 1, `${name}: ${run.stdout}`);
        assert.match(run.stderr, message, name);
        assert.equal(await countEntries(target), 0, `${name}: nothing written`);
      }
    });

    const target = `${dir}/imported.sqlite3`;
    await t.step(
      "deno task import loads it into an empty KV, and only into an empty one",
      async () => {
        const run = await importTask(archive, target, "--include", "keys-and-log");
        assert.equal(run.code, 0, run.stderr);
        assert.match(
          run.stdout,
          /Imported organization .*with the signing keys and the publication log/,
        );
        console.log(`  ${run.stdout}`);
        const again = await importTask(archive, target, "--include", "keys-and-log");
        assert.equal(again.code, 1);
        assert.match(again.stderr, /the target is not empty/);
      },
    );

    await t.step("the service on the imported KV: the kit verifies every version", async () => {
      await server.close();
      const imported = await Deno.openKv(target);
      server = await startTestServer({ kv: imported, worker: false, env: { BASE_URL: baseUrl } });
      for (const [slug, versions] of [["acme", 3], ["acme-labs", 1]] as const) {
        const run = await runKit(server, dir, [slug, "--server", server.baseUrl]);
        assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
        for (let n = 1; n <= versions; n++) {
          assert.match(
            run.stdout,
            new RegExp(`ok {4}version ${n}: signature, chain and log inclusion`),
          );
        }
        assert.match(run.stdout, new RegExp(`VERIFIED: "${slug}"`));
      }
      const blobs = createKvBlobStore(imported);
      const publication = (await imported.get<{ artifacts: { trustJson: { key: string } } }>([
        "publications",
        projectId,
        3,
      ])).value!;
      assert.ok(await blobs.get(publication.artifacts.trustJson.key));
      // The other tenant's entry (index 1) is there as its leaf hash, without text.
      const erased = await fetch(`${server.baseUrl}/log/entries/1`);
      assert.equal(erased.status, 200);
      const entry = await erased.json();
      assert.equal(entry.entry, null);
      assert.match(entry.leafHash, /^[A-Za-z0-9+/]{43}=$/);
      assert.equal((await fetch(`${server.baseUrl}/trust/globex`)).status, 404);
      const next = await fetch(`${server.baseUrl}/trust/acme/versions`);
      assert.equal(next.status, 200);
      await next.body?.cancel();
      await server.close();
      imported.close();
      server = await startTestServer({ worker: false });
    });

    /** Imports `bytes` into a fresh KV, starts the service on it, runs the kit on acme. */
    const importAndVerify = async (name: string, bytes: Uint8Array, ...flags: string[]) => {
      const file = `${dir}/${name}.zip`;
      await Deno.writeFile(file, bytes);
      const fresh = `${dir}/${name}.sqlite3`;
      const run = await importTask(file, fresh, ...flags);
      assert.equal(run.code, 0, run.stderr);
      await server.close();
      const imported = await Deno.openKv(fresh);
      server = await startTestServer({ kv: imported, worker: false, env: { BASE_URL: baseUrl } });
      const kit = await runKit(server, dir, ["acme", "--server", server.baseUrl]);
      await server.close();
      imported.close();
      server = await startTestServer({ worker: false });
      return { run, kit };
    };

    await t.step(
      "with the log but without keys: every version verifies (new log key)",
      async () => {
        const bytes = logOnly;
        const files = unzipSync(bytes);
        assert.ok(!("WARNING.txt" in files));
        assert.doesNotMatch(new TextDecoder().decode(bytes), /"d":"[A-Za-z0-9_-]{43}"/);
        const { run, kit } = await importAndVerify("log-only", bytes, "--include=log");
        assert.match(run.stdout, /with the publication log$/);
        assert.equal(kit.code, 0, `${kit.stdout}\n${kit.stderr}`);
        for (let n = 1; n <= 3; n++) {
          assert.match(
            kit.stdout,
            new RegExp(`ok {4}version ${n}: signature, chain and log inclusion`),
          );
        }
      },
    );

    await t.step(
      "without the log: the public keys stay behind, so neither signature nor inclusion verifies (documented)",
      async () => {
        const { run, kit } = await importAndVerify("plain", plain);
        assert.match(run.stdout, /without the publication log$/);
        assert.equal(kit.code, 1);
        // Public keys are the instance's: a plain import does not make this instance's JWKS
        // vouch for the old one; --include log carries them (the step above).
        assert.match(
          kit.stdout,
          /FAIL {2}version 1: signed by key "[^"]+", which the JWKS does not hold; not in the publication log/,
        );
        assert.match(kit.stdout, /ok {4}JWKS/);
      },
    );
  } finally {
    await server.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
