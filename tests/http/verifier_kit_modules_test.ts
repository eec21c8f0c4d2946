/**
 * The verifier kit's source is src/cli/verify/ (the entry main.ts and one module a concern),
 * served at /verify/{module}; /verify.ts serves src/cli/verify.ts, the same modules joined into
 * one file with no imports (`deno task kit`). Each module is served as /verify.ts is, a name
 * outside the directory is a 404, the modules import each other only, by relative URL, the
 * joined file is a fresh join, and run from the service the modular entry loads every module
 * from there and verifies a profile as /verify.ts does.
 */
import assert from "node:assert/strict";
import { joinedKit } from "../../scripts/verify_kit.ts";
import { createTestApp } from "../support/app.ts";
import { bootstrapAcme, jsonApi, startTestServer } from "../support/server.ts";
import {
  assertServedAsEntry,
  assertUnknownModulesRefused,
  freshModuleCache,
  graphOf,
  moduleNames,
} from "../support/served_modules.ts";

const JOINED = new URL("../../src/cli/verify.ts", import.meta.url);
const DIR = new URL("../../src/cli/verify/", import.meta.url);

/** Runs the kit at `url` as a buyer does (network to 127.0.0.1 only, files in `dir`). */
async function run(url: string, port: number, dir: string, args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-lock",
      "--no-config",
      "--quiet",
      "--allow-net=127.0.0.1",
      `--allow-read=${dir}`,
      `--allow-import=127.0.0.1:${port}`,
      url,
      ...args,
    ],
    cwd: dir,
    env: { NO_COLOR: "1", ...freshModuleCache(dir) },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder();
  return { code: out.code, stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
}

Deno.test("[verifier kit] every module of src/cli/verify/ is served at /verify/{module} as /verify.ts is", async () => {
  await using ctx = await createTestApp();
  const names = await moduleNames(DIR);
  assert.ok(names.includes("main.ts") && names.length > 1, names.join(", "));
  await assertServedAsEntry(ctx, {
    entryPath: "/verify.ts",
    entryFile: JOINED,
    prefix: "/verify",
    dir: DIR,
    names,
  });
});

Deno.test("[verifier kit] a name that is not one of the kit's modules is a 404 in the error envelope", async () => {
  await using ctx = await createTestApp();
  await assertUnknownModulesRefused(ctx, "/verify", [
    "/verify/nothing.ts",
    "/verify/verify.ts",
    "/verify/..%2Fverify.ts",
    "/verify/%2E%2E%2Fcollector.ts",
    "/verify/args",
  ]);
});

Deno.test("[verifier kit] /verify.ts is the fresh join of src/cli/verify/ (deno task kit), with no imports", async () => {
  assert.equal(
    await Deno.readTextFile(JOINED),
    await joinedKit(),
    "src/cli/verify.ts differs from a fresh join: run `deno task kit`",
  );
  const dir = await Deno.makeTempDir();
  try {
    assert.deepEqual(await graphOf(JOINED.href, dir), [JOINED.href]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[verifier kit] the modules import each other only, by relative URL, and main.ts uses them all", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const names = await moduleNames(DIR);
    const graph = await graphOf(new URL("main.ts", DIR).href, dir);
    assert.deepEqual(graph, names.map((n) => new URL(n, DIR).href).sort());
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

Deno.test("[verifier kit] run from the service, /verify/main.ts loads every module from there and verifies", async () => {
  await using server = await startTestServer({ worker: false });
  const dir = await Deno.makeTempDir();
  try {
    const api = jsonApi(server.baseUrl, await server.tokenFor("alice"));
    const projectId = await bootstrapAcme(api);
    for (let i = 0; i < 2; i++) {
      assert.equal((await api("POST", `/projects/${projectId}/publish`)).status, 201);
    }
    const names = await moduleNames(DIR);
    const main = `${server.baseUrl}/verify/main.ts`;
    const graph = await graphOf(main, dir, [`--allow-import=127.0.0.1:${server.port}`]);
    assert.deepEqual(graph, names.map((n) => `${server.baseUrl}/verify/${n}`).sort());

    const help = await run(main, server.port, dir, ["--help"]);
    assert.equal(help.code, 0, help.stderr);
    // It names the kit as the service serves it whole.
    assert.match(help.stdout, new RegExp(`deno run --allow-net ${server.baseUrl}/verify\\.ts`));
    const questionnaire = await run(main, server.port, dir, ["questionnaire", "--help"]);
    assert.equal(questionnaire.code, 0, questionnaire.stderr);
    assert.match(questionnaire.stdout, /verify\.ts questionnaire <manifest\.jws>/);

    const modular = await run(main, server.port, dir, ["acme"]);
    const joined = await run(`${server.baseUrl}/verify.ts`, server.port, dir, ["acme"]);
    assert.equal(modular.code, 0, `${modular.stdout}\n${modular.stderr}`);
    assert.match(modular.stdout, /ok {4}version 2: signature, chain and log inclusion/);
    assert.match(modular.stdout, /VERIFIED: "acme"/);
    assert.equal(modular.stdout, joined.stdout, "both print the same checks");
    const usage = await run(main, server.port, dir, ["--pin", "nothing=1", "acme"]);
    assert.equal(usage.code, 2, usage.stderr);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
