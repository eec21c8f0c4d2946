/**
 * The two generators run as their tasks run them (`deno task docs`, `deno task kit`), in a copy
 * of the tree whose generated parts were made stale: each writes its files back exactly as they
 * are committed (tests/docs_test.ts and tests/http/verifier_kit_modules_test.ts compare the
 * same outputs by calling the generators' functions).
 */
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);
const SKIP = new Set([".git", "node_modules", "data"]);

async function copyTree(from: URL, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (SKIP.has(entry.name)) continue;
    const source = new URL(entry.name + (entry.isDirectory ? "/" : ""), from);
    const target = `${to}/${entry.name}`;
    if (entry.isDirectory) await copyTree(source, target);
    else if (entry.isFile) await Deno.copyFile(source, target);
  }
}

async function task(name: string, cwd: string): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["task", name],
    cwd,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, text);
  return text;
}

Deno.test("[e2e] deno task docs and deno task kit write back the committed generated files", async () => {
  const dir = await Deno.makeTempDir({ prefix: "generators-" });
  try {
    await copyTree(ROOT, dir);
    const files = ["README.md", "docs/endpoints.md", "src/cli/verify.ts"];
    const committed = await Promise.all(files.map((f) => Deno.readTextFile(new URL(f, ROOT))));
    // Stale copies: a row of the configuration table changed, a line in the endpoints, the
    // joined kit cut short.
    const stale = (text: string) => text.replace(/^(\| `[A-Z_]+` +\|)/m, "$1 stale");
    await Deno.writeTextFile(`${dir}/README.md`, stale(committed[0]));
    await Deno.writeTextFile(
      `${dir}/docs/endpoints.md`,
      committed[1].replace(/\d+ operations under/, "0 operations under"),
    );
    await Deno.writeTextFile(`${dir}/src/cli/verify.ts`, committed[2].slice(0, 200));

    const docs = await task("docs", dir);
    assert.match(docs, /wrote README\.md/);
    assert.match(docs, /wrote docs\/endpoints\.md/);
    assert.match(await task("kit", dir), /wrote src\/cli\/verify\.ts/);
    for (const [i, file] of files.entries()) {
      assert.equal(await Deno.readTextFile(`${dir}/${file}`), committed[i], file);
    }
    // Run again on fresh files: nothing to write.
    assert.doesNotMatch(await task("docs", dir), /wrote/);
    assert.doesNotMatch(await task("kit", dir), /wrote/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
