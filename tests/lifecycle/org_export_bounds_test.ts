/**
 * The organization export and import stay within their organization (docs/lifecycle.md
 * "Export and import", "Bounds"):
 *
 * - an owner who types another tenant's (public) evidence digest into its own records — a
 *   questionnaire's name, an answer's text — gets no blob of that tenant in its export: blobs
 *   travel only through declared reference fields of the organization's own records;
 * - a real export with entries outside the organization added (the private signing keys, an
 *   arbitrary key), `manifest.keys` set to false and the manifest digests recomputed is refused
 *   by `deno task import` (a subprocess, as the README shows) with nothing written: into an
 *   instance that has started (its KV and its JWKS unchanged), and into an empty instance with
 *   or without `--include keys-and-log`.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { unzipSync, zipSync } from "fflate";
import { exportJWK, generateKeyPair } from "jose";
import { encodeKey, entryPayload, frame } from "../../src/lifecycle/backup_format.ts";
import { clockEnv } from "../support/process.ts";
import { bootstrapAcme, jsonApi, startTestServer } from "../support/server.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** `deno task import <archive> [flags]` against the KV at `kvPath`, as an operator runs it. */
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

/** Every entry of the KV at `path`: key → versionstamp. */
async function scanKv(path: string): Promise<Map<string, string>> {
  const kv = await Deno.openKv(path);
  try {
    const all = new Map<string, string>();
    for await (const entry of kv.list({ prefix: [] })) {
      all.set(
        JSON.stringify(entry.key, (_, v) => typeof v === "bigint" ? `${v}n` : v),
        entry.versionstamp,
      );
    }
    return all;
  } finally {
    kv.close();
  }
}

function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

async function download(baseUrl: string, token: string, organizationId: string, query = "") {
  const res = await fetch(`${baseUrl}/organizations/${organizationId}/export${query}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  assert.equal(res.status, 200);
  return new Uint8Array(await res.arrayBuffer());
}

Deno.test("[lifecycle] an export holds no blob of another tenant whose digest its records name", async () => {
  const kv = await Deno.openKv(":memory:");
  const server = await startTestServer({ kv, worker: false });
  try {
    // Tenant B: a private project with a private scan.
    const globex = await server.tokenFor("stranger");
    const b = jsonApi(server.baseUrl, globex);
    const boot = await b("POST", "/onboarding/bootstrap", {
      workspaceName: "Globex",
      projectName: "Globex Cloud",
      projectSlug: "globex",
      projectVisibility: "private",
    });
    assert.equal(boot.status, 201, JSON.stringify(boot.json));
    const bProject = boot.json.project.id;
    const collector = await b("POST", `/projects/${bProject}/collectors`, { name: "ci" });
    assert.equal(collector.status, 201, JSON.stringify(collector.json));
    const sent = await jsonApi(server.baseUrl, collector.json.secret.value)(
      "POST",
      "/ingest/evidence",
      {
        projectId: bProject,
        evidenceType: "sbom",
        sourceType: "github_actions",
        sourceRef: "globex/core@refs/heads/main",
        observedAt: new Date(Date.now() - 60_000).toISOString(),
        payload: {
          bomFormat: "CycloneDX",
          specVersion: "1.5",
          components: [{ name: "globex-private-component" }],
        },
      },
    );
    assert.ok(sent.status === 201 || sent.status === 200, JSON.stringify(sent.json));
    const bEvidence = [];
    for await (
      const entry of kv.list<{ projectId: string; payloadS3Key: string }>({
        prefix: ["evidence"],
      })
    ) {
      if (entry.value.projectId === bProject) bEvidence.push(entry.value.payloadS3Key);
    }
    assert.equal(bEvidence.length, 1);
    const digestKey = bEvidence[0];
    assert.match(digestKey, /^evidence\/[0-9a-f]{64}$/);

    // Tenant A names B's blob key in its own free-text fields.
    const acme = await server.tokenFor("owner");
    const a = jsonApi(server.baseUrl, acme);
    const aProject = await bootstrapAcme(a);
    const orgA = (await a("GET", `/projects/${aProject}`)).json.project.organizationId;
    const csv = new TextEncoder().encode("ID,Question,Answer\r\nQ1,Do you encrypt data?,\r\n");
    const uploaded = await fetch(
      `${server.baseUrl}/organizations/${orgA}/questionnaires?name=${
        encodeURIComponent(digestKey)
      }`,
      {
        method: "POST",
        headers: { authorization: `Bearer ${acme}`, "content-type": "application/octet-stream" },
        body: csv,
      },
    );
    assert.equal(uploaded.status, 201, await uploaded.clone().text());
    await uploaded.body?.cancel();
    const answer = await a("POST", `/organizations/${orgA}/answers`, {
      question: `Where is ${digestKey}?`,
      answer: digestKey,
      category: digestKey,
      visibility: "public",
    });
    assert.equal(answer.status, 201, JSON.stringify(answer.json));

    const files = unzipSync(await download(server.baseUrl, acme, orgA));
    const names = Object.keys(files);
    const text = (name: string) => new TextDecoder().decode(files[name]);
    // The records that name it are exported (with the digest as their text)…
    assert.ok(text("questionnaires.jsonl").includes(digestKey));
    assert.ok(text("answers.jsonl").includes(digestKey));
    // …but B's scan does not travel…
    assert.ok(!names.includes(`blobs/${digestKey}`), `${digestKey} is in A's export`);
    for (const name of names) {
      assert.ok(!text(name).includes("globex-private-component"), `${name} holds B's scan`);
    }
    // …while the questionnaire's own file does (a declared reference field).
    assert.ok(names.includes(`blobs/document/${sha256(csv)}`), names.join(", "));
    const manifest = JSON.parse(text("manifest.json"));
    assert.ok(
      manifest.entries.every((e: { path: string }) => !e.path.startsWith("blobs/evidence/")),
    );
  } finally {
    await server.close();
    kv.close();
  }
});

Deno.test("[lifecycle] a crafted archive with keys outside its organization is refused, nothing written", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "org_export_bounds_" });
  const kv = await Deno.openKv(":memory:");
  let server = await startTestServer({ kv, worker: false });
  try {
    const owner = await server.tokenFor("owner");
    const api = jsonApi(server.baseUrl, owner);
    const projectId = await bootstrapAcme(api);
    const organizationId = (await api("GET", `/projects/${projectId}`)).json.project.organizationId;
    assert.equal((await api("POST", `/projects/${projectId}/publish`)).status, 201);
    const real = await download(server.baseUrl, owner, organizationId);
    await server.close();

    // The crafted archive: the real one, with the attacker's signing keys and an arbitrary key
    // appended, `keys: false`, and the manifest's digests recomputed.
    const files = unzipSync(real);
    const attacker = async () => {
      const { privateKey } = await generateKeyPair("EdDSA", { extractable: true });
      const jwk = await exportJWK(privateKey);
      return { ...jwk, kid: `attacker-${crypto.randomUUID()}`, alg: "EdDSA" };
    };
    const added: [Deno.KvKey, unknown][] = [
      [["signing_keys", "publications"], await attacker()],
      [["signing_keys", "log"], await attacker()],
      [["zz_outside", "written-by-the-archive"], { owned: "by nobody" }],
    ];
    const extra = added.map(([key, value]) => frame("K", entryPayload(encodeKey(key), value)));
    const entries = new Uint8Array(
      files["kv/entries.bin"].length + extra.reduce((n, f) => n + f.length, 0),
    );
    entries.set(files["kv/entries.bin"]);
    let offset = files["kv/entries.bin"].length;
    for (const f of extra) {
      entries.set(f, offset);
      offset += f.length;
    }
    const manifest = JSON.parse(new TextDecoder().decode(files["manifest.json"]));
    manifest.keys = false;
    manifest.log = false;
    manifest.kvEntries += added.length;
    for (const entry of manifest.entries) {
      if (entry.path === "kv/entries.bin") {
        entry.sha256 = sha256(entries);
        entry.bytes = entries.length;
      }
    }
    const crafted = `${dir}/crafted.zip`;
    await Deno.writeFile(
      crafted,
      zipSync({
        ...files,
        "kv/entries.bin": entries,
        "manifest.json": new TextEncoder().encode(JSON.stringify(manifest)),
      }),
    );

    await t.step("into an instance that has started: refused, KV and JWKS unchanged", async () => {
      const path = `${dir}/started.sqlite3`;
      const started = await Deno.openKv(path);
      server = await startTestServer({ kv: started, worker: false });
      const jwksBefore = await (await fetch(`${server.baseUrl}/.well-known/jwks.json`)).json();
      assert.ok(jwksBefore.keys.length >= 1, JSON.stringify(jwksBefore));
      await server.close();
      started.close();
      const before = await scanKv(path);
      assert.ok([...before.keys()].some((k) => k.startsWith('["signing_keys"')));

      for (const flags of [[], ["--include", "keys-and-log"]]) {
        const run = await importTask(crafted, path, ...flags);
        assert.equal(run.code, 1, `${flags}: ${run.stdout}`);
        assert.match(run.stderr, /^import failed: /, `${flags}`);
        assert.match(
          run.stderr,
          flags.length ? /has its own signing_keys/ : /may not write \["signing_keys"/,
          `${flags}`,
        );
        assert.deepEqual(await scanKv(path), before, `${flags}: nothing written`);
      }

      const reopened = await Deno.openKv(path);
      server = await startTestServer({ kv: reopened, worker: false });
      const jwksAfter = await (await fetch(`${server.baseUrl}/.well-known/jwks.json`)).json();
      assert.deepEqual(jwksAfter, jwksBefore);
      await server.close();
      reopened.close();
      server = await startTestServer({ worker: false });
    });

    await t.step("into an empty instance, with or without --include: refused", async () => {
      const cases: [string[], RegExp][] = [
        [[], /may not write \["signing_keys","log"\]: private signing keys are the instance's/],
        [["--include", "log"], /may not write \["signing_keys","log"\]/],
        [["--include=keys-and-log"], /may not write \["zz_outside".*outside the organization/],
      ];
      for (const [flags, message] of cases) {
        const path = `${dir}/empty-${crypto.randomUUID()}.sqlite3`;
        const run = await importTask(crafted, path, ...flags);
        assert.equal(run.code, 1, `${flags}: ${run.stdout}`);
        assert.match(run.stderr, message, `${flags}`);
        assert.equal((await scanKv(path)).size, 0, `${flags}: nothing written`);
      }
    });

    await t.step("the real archive imports (the refusals are the additions')", async () => {
      const file = `${dir}/real.zip`;
      await Deno.writeFile(file, real);
      const path = `${dir}/real.sqlite3`;
      const run = await importTask(file, path);
      assert.equal(run.code, 0, run.stderr);
      const written = await scanKv(path);
      assert.ok(written.has(JSON.stringify(["organizations", organizationId])));
      assert.ok(![...written.keys()].some((k) => /^\["(signing_keys|zz_outside)"/.test(k)));
    });
  } finally {
    await server.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
