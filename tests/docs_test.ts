/**
 * The documentation keeps up with the code: README's configuration table is the one generated
 * from the environment's schema (src/config.ts), and the endpoints reference in docs/endpoints.md
 * the one generated from /openapi.json (both by `deno task docs`, scripts/docs.ts).
 */
import assert from "node:assert/strict";
import { Env } from "../src/config.ts";
import {
  configurationTable,
  generatedFiles,
  markers,
  partOf,
  replacePart,
} from "../scripts/docs.ts";

const ROOT = new URL("../", import.meta.url);
const read = (path: string) => Deno.readTextFile(new URL(path, ROOT));

Deno.test("[docs] the generated parts equal a fresh generation (run `deno task docs`)", async () => {
  const fresh = await generatedFiles();
  assert.deepEqual(Object.keys(fresh).sort(), ["README.md", "docs/endpoints.md"]);
  for (const [path, text] of Object.entries(fresh)) {
    assert.equal(await read(path), text, `${path} differs from \`deno task docs\``);
  }
});

Deno.test("[docs] README's configuration table names every variable the schema reads", async () => {
  const table = partOf(await read("README.md"), "configuration");
  const named = [...table.matchAll(/^\| `([A-Z0-9_]+)` +\|/gm)].map((m) => m[1]);
  assert.deepEqual(named, Object.keys(Env.shape));
  // Each row says what the variable sets: no empty description cell.
  for (const row of table.split("\n").slice(2).filter((l) => l.startsWith("|"))) {
    const cells = row.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim());
    assert.equal(cells.length, 3, row);
    assert.ok(cells[2].length > 3, row);
  }
});

Deno.test("[docs] a generated part is replaced between its markers, nothing else", () => {
  const [open, close] = markers("configuration");
  const text = `# Title\n\nBefore.\n\n${open}\nold\n${close}\n\nAfter.\n`;
  const replaced = replacePart(text, "configuration", configurationTable());
  assert.ok(replaced.startsWith(`# Title\n\nBefore.\n\n${open}\n| Variable |`));
  assert.ok(replaced.endsWith(`${close}\n\nAfter.\n`));
  assert.equal(partOf(replaced, "configuration"), configurationTable());
  assert.throws(() => replacePart("no markers", "configuration", "x"), /markers/);
});
