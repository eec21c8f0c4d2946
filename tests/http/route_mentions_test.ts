/**
 * Every route the API's own words name exists: each `GET /…`, `POST /…`, `PUT /…`, `PATCH /…`
 * or `DELETE /…` in /openapi.json's summaries and descriptions, in the MCP tools' descriptions
 * and instructions, and in the text of the service's code and dashboard (error messages, zod
 * messages, notices; comments aside) is an operation /openapi.json documents with that method.
 */
import assert from "node:assert/strict";
import { SERVER_INSTRUCTIONS, TRUST_JSON_RESOURCE, TRUST_TOOLS } from "../../src/mcp/tools.ts";
import { createTestApp } from "../support/app.ts";
import type { OpenApiDocument } from "../support/openapi_validator.ts";

const MENTION = /\b(GET|POST|PUT|PATCH|DELETE)\s+(\/[^\s"'`),;<>|]*)/g;

/** A mentioned path as segments: parameters (`{x}`, `${x}`, `$X`) become "{}". */
function segmentsOf(path: string): string[] {
  const clean = path.replace(/\$\{[^}]*\}/g, "{}").split("?")[0].replace(/[.:\\]+$/, "")
    .replace(/\[[^\]]*\]/g, "");
  return clean.split("/").slice(1).map((s) =>
    /^\{[^}]*\}$/.test(s) || /^\$[A-Z_]+$/.test(s) ? "{}" : s
  );
}

/** Whether a documented path template matches a mentioned path. */
function matches(template: string, mentioned: string[]): boolean {
  const parts = template.split("/").slice(1);
  if (parts.length !== mentioned.length) return false;
  return parts.every((part, i) =>
    /^\{[^}]+\}$/.test(part) || mentioned[i] === "{}" || part === mentioned[i]
  );
}

/** Every string under a "summary" or "description" key of `value`. */
function describedTexts(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(describedTexts);
  if (!value || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, v]) =>
    (key === "description" || key === "summary") && typeof v === "string" ? [v] : describedTexts(v)
  );
}

/** The lines of code (not comments) of every .ts and .js file under `dir`. */
async function codeLines(dir: URL): Promise<{ where: string; text: string }[]> {
  const root = new URL("../../", import.meta.url).pathname;
  const out: { where: string; text: string }[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
    if (entry.isDirectory) out.push(...await codeLines(url));
    else if (/\.(ts|js)$/.test(entry.name)) {
      const lines = (await Deno.readTextFile(url)).split("\n");
      lines.forEach((line, i) => {
        const trimmed = line.trim();
        if (/^(\*|\/\*|\/\/)/.test(trimmed)) return;
        out.push({ where: `${url.pathname.slice(root.length)}:${i + 1}`, text: line });
      });
    }
  }
  return out;
}

Deno.test("[http] every route the API's text names is a documented operation", async () => {
  await using ctx = await createTestApp();
  const doc: OpenApiDocument = await (await ctx.call("GET", "/openapi.json")).json();
  const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.keys(item).map((method) => ({ method: method.toUpperCase(), path }))
  );
  const sources = [
    ...describedTexts(doc).map((text) => ({ where: "/openapi.json", text })),
    ...TRUST_TOOLS.map((tool) => ({ where: `MCP ${tool.name}`, text: tool.description })),
    { where: "MCP instructions", text: SERVER_INSTRUCTIONS },
    { where: "MCP resource", text: TRUST_JSON_RESOURCE.description },
    ...await codeLines(new URL("../../src/", import.meta.url)),
    ...await codeLines(new URL("../../static/", import.meta.url)),
  ];
  const unknown = new Set<string>();
  let checked = 0;
  for (const { where, text } of sources) {
    for (const [, method, path] of text.matchAll(MENTION)) {
      const mentioned = segmentsOf(path);
      checked++;
      const found = documented.some((op) => op.method === method && matches(op.path, mentioned));
      if (!found) unknown.add(`${where}: ${method} ${path}`);
    }
  }
  assert.ok(checked > 50, `${checked} mentions checked`);
  assert.deepEqual([...unknown], []);
});
