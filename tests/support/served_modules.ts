/**
 * Checks of a CLI served as modules (src/http/routes/cli_modules.ts, `serveModuleDirectory`):
 * the collector at /collector/{module}, the verifier kit at /verify/{module}. Each module is
 * served as its entry is, a name outside the directory is a 404 in the error envelope, and
 * `deno info` reads the graph a buyer's `deno run` would load.
 */
import assert from "node:assert/strict";
import type { TestApp } from "./app.ts";

/** The file names of a module directory, sorted. */
export async function moduleNames(dir: URL): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) if (entry.isFile) names.push(entry.name);
  return names.sort();
}

/**
 * The environment of a `deno` subprocess that loads modules from a test server: a module cache
 * of its own under `dir`. Deno caches a remote module by its URL, and a test server's URL is
 * 127.0.0.1 with a port the system picks: a port used by an earlier run (of an older kit or
 * collector) would otherwise load that run's cached module instead of the one served now.
 */
export function freshModuleCache(dir: string): { DENO_DIR: string } {
  return { DENO_DIR: `${dir}/.deno-cache` };
}

/** The modules `deno info` finds in the graph of `entry` (a path or URL), run from `cwd`. */
export async function graphOf(entry: string, cwd: string, args: string[] = []): Promise<string[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "--no-lock", "--no-config", ...args, entry],
    cwd,
    env: freshModuleCache(cwd),
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const info = JSON.parse(new TextDecoder().decode(out.stdout));
  return (info.modules as { specifier: string }[]).map((m) => m.specifier).sort();
}

/**
 * Every module `names` of `dir` is served at `<prefix>/<name>` with its file's text and the
 * headers of the entry at `entryPath` (whose text is `entryFile`'s), CORS open, a strong ETag
 * and 304 on If-None-Match.
 */
export async function assertServedAsEntry(
  ctx: Pick<TestApp, "call">,
  options: { entryPath: string; entryFile: URL; prefix: string; dir: URL; names: string[] },
): Promise<void> {
  const { prefix, dir } = options;
  const entry = await ctx.call("GET", options.entryPath);
  assert.equal(entry.status, 200);
  assert.equal(await entry.text(), await Deno.readTextFile(options.entryFile));
  for (const name of options.names) {
    const res = await ctx.call("GET", `${prefix}/${name}`);
    assert.equal(res.status, 200, name);
    assert.equal(await res.text(), await Deno.readTextFile(new URL(name, dir)), name);
    for (const header of ["content-type", "cache-control", "x-content-type-options"]) {
      assert.equal(res.headers.get(header), entry.headers.get(header), `${name}: ${header}`);
    }
    assert.match(res.headers.get("content-type") ?? "", /^application\/typescript/);
    assert.equal(res.headers.get("access-control-allow-origin"), "*", name);
    const etag = res.headers.get("etag");
    assert.match(etag ?? "", /^"[0-9a-f]{32}"$/, name);
    const again = await ctx.call("GET", `${prefix}/${name}`, {
      headers: { "if-none-match": etag! },
    });
    assert.equal(again.status, 304, name);
    await again.body?.cancel();
  }
}

/** Each of `paths` is a 404 in the error envelope, and an over-long name under `prefix` a 400. */
export async function assertUnknownModulesRefused(
  ctx: Pick<TestApp, "call">,
  prefix: string,
  paths: string[],
): Promise<void> {
  for (const path of paths) {
    const res = await ctx.call("GET", path, { headers: { accept: "application/json" } });
    assert.equal(res.status, 404, path);
    assert.equal((await res.json()).error.code, "not_found", path);
  }
  const long = await ctx.call("GET", `${prefix}/${"a".repeat(101)}.ts`, {
    headers: { accept: "application/json" },
  });
  assert.equal(long.status, 400);
  assert.ok((await long.json()).error.code, "the error envelope");
}
