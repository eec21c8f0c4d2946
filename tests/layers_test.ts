/**
 * The layering of src/, checked: each folder imports only the folders its
 * stage may use, so data keeps flowing one way (README "Layout").
 */
import assert from "node:assert/strict";

const SRC = new URL("../src/", import.meta.url);

/** The stages, outermost first; each may import its own folder and the ones listed. */
const BASE = ["domain", "lib"];
const STORAGE = ["store", "blobs", "mail", "evaluate", "sigstore", "questionnaire", ...BASE];
const FLOWS = [
  "serve",
  "ingest",
  "live",
  "publish",
  "push",
  "auth",
  "lifecycle",
  "config.ts",
  ...STORAGE,
];
export const ALLOWED: Record<string, string[]> = {
  "app.ts": ["*"],
  "config.ts": BASE,
  cli: [],
  http: ["mcp", "edge", ...FLOWS],
  edge: FLOWS,
  mcp: FLOWS,
  serve: FLOWS,
  ingest: FLOWS,
  live: FLOWS,
  publish: FLOWS,
  push: FLOWS,
  lifecycle: FLOWS,
  auth: FLOWS,
  store: ["config.ts", ...BASE],
  blobs: ["store", "config.ts", ...BASE],
  mail: ["config.ts", ...BASE],
  evaluate: BASE,
  sigstore: BASE,
  questionnaire: BASE,
  domain: ["lib"],
  lib: [],
};

async function* sources(dir: URL): AsyncGenerator<URL> {
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isDirectory) yield* sources(new URL(`${entry.name}/`, dir));
    else if (entry.name.endsWith(".ts")) yield new URL(entry.name, dir);
  }
}

/** The top-level entry of src/ a file belongs to: its folder, or the file itself. */
function stageOf(url: URL): string {
  return url.pathname.slice(SRC.pathname.length).split("/")[0];
}

const IMPORT =
  /^\s*(?:import|export)\s[^"']*?from\s+["']([^"']+)["']|^\s*import\s+["']([^"']+)["']/gm;

Deno.test("[quality] src/ imports follow the layers: http/mcp → serve/ingest/live/publish/push/auth → store/blobs/mail/evaluate → domain/lib", async () => {
  const violations: string[] = [];
  for await (const file of sources(SRC)) {
    const stage = stageOf(file);
    const allowed = ALLOWED[stage];
    assert.ok(allowed, `src/${stage} has no place in the layers; add it to tests/layers_test.ts`);
    const text = await Deno.readTextFile(file);
    for (const match of text.matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2];
      if (!specifier.startsWith(".")) continue;
      const target = stageOf(new URL(specifier, file));
      if (target === stage || allowed.includes("*") || allowed.includes(target)) continue;
      violations.push(`src/${file.pathname.slice(SRC.pathname.length)} imports ${specifier}`);
    }
  }
  assert.deepEqual(violations, []);
});

Deno.test("[quality] route modules of src/http/routes import no other route module", async () => {
  const routes = new URL("http/routes/", SRC);
  const violations: string[] = [];
  for await (const file of sources(routes)) {
    const text = await Deno.readTextFile(file);
    for (const match of text.matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2];
      const target = new URL(specifier, file);
      if (specifier.startsWith(".") && target.pathname.startsWith(routes.pathname)) {
        violations.push(`${file.pathname.slice(routes.pathname.length)} imports ${specifier}`);
      }
    }
  }
  assert.deepEqual(violations, []);
});
