/**
 * Every tag an operation of /openapi.json uses is declared in the document's `tags`, with a
 * description (tools group operations by the declared tags and show their words), and every
 * declared tag is used: the endpoints reference (docs/endpoints.md) is organized by them.
 */
import assert from "node:assert/strict";
import { createTestApp } from "../support/app.ts";
import type { ApiDocument } from "../../scripts/docs.ts";

Deno.test("[openapi] every tag an operation uses is declared, with a description", async () => {
  await using ctx = await createTestApp();
  const doc: ApiDocument = await (await ctx.call("GET", "/openapi.json")).json();
  const declared = new Map((doc.tags ?? []).map((t) => [t.name, t.description ?? ""]));
  assert.equal(declared.size, (doc.tags ?? []).length, "a tag is declared twice");
  const used = new Set<string>();
  const untagged: string[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!operation?.tags?.length) untagged.push(`${method.toUpperCase()} ${path}`);
      for (const tag of operation?.tags ?? []) used.add(tag);
    }
  }
  assert.deepEqual(untagged, [], "operations without a tag");
  assert.deepEqual([...used].filter((t) => !declared.has(t)).sort(), [], "used, not declared");
  assert.deepEqual([...declared.keys()].filter((t) => !used.has(t)), [], "declared, not used");
  for (const [name, description] of declared) {
    assert.ok(description.length >= 10, `tag "${name}" has no description`);
  }
});
