/**
 * Files no test imports still type-check: the benchmarks (`deno task bench` and each run alone)
 * and the generator scripts (`deno task docs`, `deno task kit`) are entry points of their own,
 * so a change of a shared type that breaks one of them fails here, not at its next run (a
 * control's new `required` field once broke `tests/bench/recompute.ts` unnoticed).
 */
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url).pathname;

async function entries(dir: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(`${ROOT}${dir}`)) {
    if (entry.isFile && entry.name.endsWith(".ts")) found.push(`${dir}/${entry.name}`);
  }
  return found.sort();
}

Deno.test("[quality] every benchmark and generator script type-checks", async () => {
  const files = [...await entries("tests/bench"), ...await entries("scripts")];
  assert.ok(files.length >= 10, files.join(", "));
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["check", "--quiet", "--lock=tests/deno.lock", ...files],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stderr) + new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, text.slice(0, 4000));
});
