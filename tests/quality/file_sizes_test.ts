/**
 * Files that do one thing: a source file in src/ over 400 lines fails here unless
 * docs/file_sizes.md lists it with its reason, and a listed file that is gone or back under the
 * limit must leave the list (so the list stays the truth about what is still long).
 */
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);
export const LIMIT = 400;

async function* sources(dir: URL, rel: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${rel}/${entry.name}`;
    if (entry.isDirectory) yield* sources(new URL(`${entry.name}/`, dir), path);
    else if (/\.(ts|js)$/.test(entry.name)) yield path;
  }
}

async function lineCount(path: string): Promise<number> {
  const text = await Deno.readTextFile(new URL(path, ROOT));
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

/** The listed files and their reasons: table rows "| `src/…` | lines | reason |". */
async function listed(): Promise<Map<string, string>> {
  const text = await Deno.readTextFile(new URL("docs/file_sizes.md", ROOT));
  const section = text.split(/^## /m).find((s) => s.startsWith("Over 400 lines"));
  assert.ok(section, 'docs/file_sizes.md has no "## Over 400 lines" section');
  const rows = new Map<string, string>();
  for (const match of section.matchAll(/^\| `(src\/[^`]+)` +\| \d+ +\| (.*?) *\|$/gm)) {
    rows.set(match[1], match[2].trim());
  }
  return rows;
}

Deno.test("[quality] every source file in src/ over 400 lines is listed with its reason", async () => {
  const long: string[] = [];
  for await (const path of sources(new URL("src/", ROOT), "src")) {
    if ((await lineCount(path)) > LIMIT) long.push(path);
  }
  const reasons = await listed();
  assert.deepEqual(
    long.filter((path) => !reasons.has(path)).sort(),
    [],
    `split these files by concern, or list each with its reason in docs/file_sizes.md`,
  );
  for (const [path, reason] of reasons) {
    assert.ok(reason.length >= 20, `${path}: the reason says too little ("${reason}")`);
  }
  const stale = [...reasons.keys()].filter((path) => !long.includes(path)).sort();
  assert.deepEqual(stale, [], "listed in docs/file_sizes.md but no longer over 400 lines");
});
