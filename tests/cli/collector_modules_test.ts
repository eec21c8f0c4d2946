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
import {
  assertServedAsEntry,
  assertUnknownModulesRefused,
  freshModuleCache,
  graphOf,
  moduleNames,
} from "../support/served_modules.ts";

const ENTRY = new URL("../../src/cli/collector.ts", import.meta.url);
const DIR = new URL("../../src/cli/collector/", import.meta.url);

Deno.test("[cli] every module of src/cli/collector/ is served at /collector/{module} as /collector.ts is", async () => {
  await using ctx = await createTestApp();
  const names = await moduleNames(DIR);
  assert.ok(names.length > 1, names.join(", "));
  await assertServedAsEntry(ctx, {
    entryPath: "/collector.ts",
    entryFile: ENTRY,
    prefix: "/collector",
    dir: DIR,
    names,
  });
});

Deno.test("[cli] a name that is not one of the collector's modules is a 404 in the error envelope", async () => {
  await using ctx = await createTestApp();
  await assertUnknownModulesRefused(ctx, "/collector", [
    "/collector/nothing.ts",
    "/collector/collector.ts",
    "/collector/..%2Fcollector.ts",
    "/collector/%2E%2E%2Fverify.ts",
    "/collector/args",
  ]);
});

Deno.test("[cli] the collector's modules import each other only, by relative URL, and the entry uses them all", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const names = await moduleNames(DIR);
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
    const names = await moduleNames(DIR);
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
      env: { NO_COLOR: "1", ...freshModuleCache(dir) },
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
      env: { NO_COLOR: "1", ...freshModuleCache(dir) },
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
