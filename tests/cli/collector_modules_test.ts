/**
 * The collector CLI is a thin entry, src/cli/collector.ts (served at /collector.ts), and its
 * modules, src/cli/collector/ (one concern each, served at /collector/{module}). Each module
 * is served as /collector.ts is, a name outside the directory is a 404, the modules import
 * each other only, by relative URL, and run from the service with the documented flags (no
 * --allow-import), the entry loads every module from there.
 */
import assert from "node:assert/strict";
import { createTestApp } from "../support/app.ts";
import { startTestServer } from "../support/server.ts";

const ENTRY = new URL("../../src/cli/collector.ts", import.meta.url);
const DIR = new URL("../../src/cli/collector/", import.meta.url);

async function modules(): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(DIR)) if (entry.isFile) names.push(entry.name);
  return names.sort();
}

/** The modules `deno info` finds in the graph of `entry` (a path or URL), run from `cwd`. */
async function graphOf(entry: string, cwd: string): Promise<string[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "--no-lock", "--no-config", entry],
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const info = JSON.parse(new TextDecoder().decode(out.stdout));
  return (info.modules as { specifier: string }[]).map((m) => m.specifier).sort();
}

Deno.test("[cli] every module of src/cli/collector/ is served at /collector/{module} as /collector.ts is", async () => {
  await using ctx = await createTestApp();
  const names = await modules();
  assert.ok(names.length > 1, names.join(", "));
  const entry = await ctx.call("GET", "/collector.ts");
  assert.equal(entry.status, 200);
  assert.equal(await entry.text(), await Deno.readTextFile(ENTRY));
  for (const name of names) {
    const res = await ctx.call("GET", `/collector/${name}`);
    assert.equal(res.status, 200, name);
    assert.equal(await res.text(), await Deno.readTextFile(new URL(name, DIR)), name);
    for (const header of ["content-type", "cache-control", "x-content-type-options"]) {
      assert.equal(res.headers.get(header), entry.headers.get(header), `${name}: ${header}`);
    }
    assert.match(res.headers.get("content-type") ?? "", /^application\/typescript/);
    assert.equal(res.headers.get("access-control-allow-origin"), "*", name);
    const etag = res.headers.get("etag");
    assert.match(etag ?? "", /^"[0-9a-f]{32}"$/, name);
    const again = await ctx.call("GET", `/collector/${name}`, {
      headers: { "if-none-match": etag! },
    });
    assert.equal(again.status, 304, name);
    await again.body?.cancel();
  }
});

Deno.test("[cli] a name that is not one of the collector's modules is a 404 in the error envelope", async () => {
  await using ctx = await createTestApp();
  for (
    const path of [
      "/collector/nothing.ts",
      "/collector/collector.ts",
      "/collector/..%2Fcollector.ts",
      "/collector/%2E%2E%2Fverify.ts",
      "/collector/args",
    ]
  ) {
    const res = await ctx.call("GET", path, { headers: { accept: "application/json" } });
    assert.equal(res.status, 404, path);
    assert.equal((await res.json()).error.code, "not_found", path);
  }
  const long = await ctx.call("GET", `/collector/${"a".repeat(101)}.ts`, {
    headers: { accept: "application/json" },
  });
  assert.equal(long.status, 400);
  assert.ok((await long.json()).error.code, "the error envelope");
});

Deno.test("[cli] the collector's modules import each other only, by relative URL, and the entry uses them all", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const names = await modules();
    const graph = await graphOf(ENTRY.href, dir);
    assert.deepEqual(graph, [ENTRY.href, ...names.map((n) => new URL(n, DIR).href)].sort());
    const entry = await Deno.readTextFile(ENTRY);
    const imported = [...entry.matchAll(/from\s*"([^"]+)"/g)].map((m) => m[1]);
    assert.deepEqual(
      imported.filter((s) => !/^\.\/collector\/[a-z_]+\.ts$/.test(s)),
      [],
      "the entry imports its own modules only",
    );
    for (const name of names) {
      const text = await Deno.readTextFile(new URL(name, DIR));
      const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)].map((m) => m[1]);
      const bad = specifiers.filter((s) => !/^\.\/[a-z_]+\.ts$/.test(s));
      assert.deepEqual(bad, [], `${name} imports by relative URL only`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[cli] run from the service with the documented flags, /collector.ts loads every module from there", async () => {
  await using server = await startTestServer({ worker: false });
  const dir = await Deno.makeTempDir();
  try {
    const names = await modules();
    const entry = `${server.baseUrl}/collector.ts`;
    assert.deepEqual(
      await graphOf(entry, dir),
      [entry, ...names.map((n) => `${server.baseUrl}/collector/${n}`)].sort(),
    );
    // As docs/collector_setup.md runs it: no --allow-import, the modules come from the
    // entry's own host.
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-lock",
        "--no-config",
        "--quiet",
        "--allow-net=127.0.0.1",
        "--allow-env",
        `--allow-read=${dir}`,
        entry,
        "help",
      ],
      cwd: dir,
      env: { NO_COLOR: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(out.stdout);
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    assert.match(stdout, new RegExp(`deno run .* ${server.baseUrl}/collector\\.ts <command>`));
    const usage = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-lock", "--no-config", "--quiet", "--allow-env", entry, "--nothing"],
      cwd: dir,
      env: { NO_COLOR: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(usage.code, 2, "a usage error still exits 2");
    assert.match(new TextDecoder().decode(usage.stderr), /Unknown option --nothing/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
