/**
 * Cold start: the npm packages only a few routes need load on their first use (dynamic
 * `import()`), never while the service starts. `deno info --json` lists the whole graph with
 * dynamic imports marked; the static part from main.ts and deploy.ts must not reach them.
 * Timed by `deno task bench` (tests/bench/cold_start.ts); this test only checks the graph.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/types"
import { SUPPORTED_PROTOCOL_VERSIONS as SDK_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { SUPPORTED_PROTOCOL_VERSIONS } from "../src/mcp/protocol.ts";
import { denoInfo, staticModules } from "./support/static_graph.ts";

/** Loaded lazily, and where: a static import of any of these brings it back into every start. */
const LAZY_PACKAGES: Record<string, string> = {
  "@cantoo/pdf-lib": "src/serve/watermark.ts (PDF stamping and page counting)",
  "@sigstore/verify": "src/sigstore/load.ts (evidence that claims a signature)",
  "@sigstore/bundle": "src/sigstore/load.ts",
  "@sigstore/protobuf-specs": "src/sigstore/load.ts",
  "write-excel-file": "src/serve/answers_export.ts (the XLSX export)",
  "fflate": "src/serve/answers_export.ts and @cantoo/pdf-lib",
  "markdown-it": "src/lib/load_markdown.ts (pages that render Markdown)",
  "@modelcontextprotocol/sdk": "src/http/routes/mcp.ts → src/mcp/handler.ts (POST /mcp)",
};

const ROOT = new URL("../", import.meta.url);

/**
 * What each entry point loads before it serves: its static graph. deploy.ts registers its cron
 * first and then awaits `import("./main.ts")` at its top level, so main.ts's graph is part of it.
 */
const STARTS: Record<string, string[]> = {
  "main.ts": ["main.ts"],
  "deploy.ts": ["deploy.ts", "main.ts"],
};

for (const [entry, roots] of Object.entries(STARTS)) {
  Deno.test(`[cold start] ${entry} imports no lazily loaded npm package statically`, async () => {
    const info = await denoInfo(entry, ROOT.pathname);
    const loaded = staticModules(info, { roots: roots.map((r) => new URL(r, ROOT).href) });
    // The walk sees what every start needs…
    assert.ok(loaded.npmPackages.includes("hono"), loaded.npmPackages.join(", "));
    assert.ok(loaded.npmPackages.includes("zod"));
    // …and the lazy packages are in the graph, behind an import().
    const reachable = staticModules(info, { dynamic: true }).npmPackages;
    assert.ok(loaded.local > 100, `${loaded.local} modules: the walk missed the app`);
    for (const name of Object.keys(LAZY_PACKAGES)) {
      assert.ok(reachable.includes(name), `${name} is no longer imported at all`);
    }
    const eager = Object.keys(LAZY_PACKAGES).filter((name) => loaded.npmPackages.includes(name));
    assert.deepEqual(
      eager.map((name) => `${name}: load it with import() in ${LAZY_PACKAGES[name]}`),
      [],
      `${entry} loads these at start`,
    );
  });
}

Deno.test("[cold start] the MCP protocol versions the discovery documents name are the SDK's", () => {
  assert.deepEqual([...SUPPORTED_PROTOCOL_VERSIONS], [...SDK_VERSIONS]);
});
