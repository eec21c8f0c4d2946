/**
 * The documentation keeps up with the code: README.md stays a map (at most 300 lines), its
 * configuration table is the one generated from the environment's schema (src/config.ts), the
 * endpoints reference in docs/endpoints.md is the one generated from /openapi.json (both by
 * `deno task docs`, scripts/docs.ts), and every runtime dependency in deno.json is listed in
 * docs/dependencies.md with the reason it was chosen.
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

Deno.test("[docs] README.md is a map: at most 300 lines", async () => {
  const lines = (await read("README.md")).trimEnd().split("\n").length;
  assert.ok(lines <= 300, `README.md has ${lines} lines; move the detail to a page in docs/`);
});

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

/** The package a deno.json import names: `npm:@scope/name@^1/sub` → `@scope/name`. */
function packageOf(specifier: string): string {
  const bare = specifier.replace(/^npm:\/?/, "");
  const match = bare.match(/^((?:@[^/@]+\/)?[^/@]+)/);
  assert.ok(match, specifier);
  return match[1];
}

/** The bullets of a Markdown text, each with its continuation lines, joined. */
function bullets(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split("\n")) {
    if (line.startsWith("- ")) out.push(line.slice(2));
    else if (line.startsWith("  ") && out.length && line.trim()) {
      out[out.length - 1] += ` ${line.trim()}`;
    } else if (!line.trim() || !line.startsWith("  ")) out.push("");
  }
  return out.filter(Boolean);
}

Deno.test("[docs] every deno.json import is in docs/dependencies.md with its reason", async () => {
  const imports: Record<string, string> = JSON.parse(await read("deno.json")).imports;
  const packages = [...new Set(Object.values(imports).map(packageOf))];
  assert.ok(packages.includes("hono") && packages.includes("zod"), packages.join(", "));
  const listed = bullets(await read("docs/dependencies.md"));
  const missing: string[] = [];
  for (const name of packages) {
    const bullet = listed.find((b) => {
      const head = b.slice(0, b.indexOf(":") < 0 ? b.length : b.indexOf(":"));
      return head.includes(`\`${name}\``);
    });
    if (!bullet || !/\bWhy: \S.{10,}/.test(bullet)) missing.push(name);
  }
  assert.deepEqual(missing, [], "each needs a bullet `- \\`name\\`: what it does. Why: …`");
});

/** README.md and every page of docs/, path → text. */
async function pages(): Promise<Map<string, string>> {
  const out = new Map([["README.md", await read("README.md")]]);
  for await (const entry of Deno.readDir(new URL("docs/", ROOT))) {
    if (entry.isFile && entry.name.endsWith(".md")) {
      out.set(`docs/${entry.name}`, await read(`docs/${entry.name}`));
    }
  }
  return out;
}

Deno.test("[docs] every relative link of README.md and docs/ reaches a file, README's anchors a heading", async () => {
  const broken: string[] = [];
  for (const [path, text] of await pages()) {
    const prose = text.replace(/```[\s\S]*?```/g, "");
    for (const [, target] of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^(https?:|mailto:)/.test(target)) continue;
      const [file, anchor] = target.split("#");
      if (file) {
        const url = new URL(file, new URL(path, ROOT));
        if (!await Deno.stat(url).then(() => true, () => false)) broken.push(`${path}: ${target}`);
      } else if (path === "README.md") {
        // GitHub's heading ids: lower case, punctuation dropped, spaces as hyphens.
        const ids = [...text.matchAll(/^#+ (.+)$/gm)].map(([, h]) =>
          h.toLowerCase().replace(/[^\p{L}\p{N} -]/gu, "").replaceAll(" ", "-")
        );
        if (!ids.includes(anchor)) broken.push(`${path}: ${target}`);
      }
    }
  }
  assert.deepEqual(broken, []);
});

Deno.test("[docs] every `deno task` README.md and docs/ name is a task of deno.json", async () => {
  const tasks = Object.keys(JSON.parse(await read("deno.json")).tasks);
  const unknown: string[] = [];
  for (const [path, text] of await pages()) {
    for (const [, task] of text.matchAll(/\bdeno task ([a-z][\w-]*)/g)) {
      if (!tasks.includes(task)) unknown.push(`${path}: deno task ${task}`);
    }
  }
  assert.deepEqual(unknown, []);
});

Deno.test("[docs] every file of the repository README.md and docs/ name in code exists", async () => {
  const missing: string[] = [];
  for (const [path, text] of await pages()) {
    const named = text.matchAll(
      /`((?:src|tests|static|deploy|scripts)\/[\w./-]+\.(?:ts|js|vcl|json|css|html|md))`/g,
    );
    for (const [, file] of named) {
      if (!await Deno.stat(new URL(file, ROOT)).then(() => true, () => false)) {
        missing.push(`${path}: ${file}`);
      }
    }
  }
  assert.deepEqual(missing, [], "a file moved or renamed: update the page that names it");
});
