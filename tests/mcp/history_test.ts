/**
 * get_trust_history and search_trust_profiles through the SDK's own client against a real
 * server: their structured output is the body of the matching HTTP route, private
 * projects are an error result (history) or absent (search).
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startPublishedServer } from "./_published.ts";

async function getJson(url: string) {
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  assert.equal(res.status, 200, url);
  return await res.json();
}

function textOf(result: Record<string, unknown>): string {
  const content = result.content as Array<{ type: string; text?: string }>;
  return content[0]?.text ?? "";
}

Deno.test("[mcp] history and search answer the HTTP bodies, without private projects", async (t) => {
  await using fixture = await startPublishedServer();
  const { baseUrl } = fixture.server;
  const client = new Client({ name: "mcp-history-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`)));
  try {
    await t.step("get_trust_history equals GET /trust/{slug}/versions", async () => {
      for (const [args, query] of [[{}, ""], [{ limit: 1 }, "?limit=1"]] as const) {
        const body = await getJson(`${baseUrl}/trust/acme/versions${query}`);
        const result = await client.callTool({
          name: "get_trust_history",
          arguments: { projectSlug: "acme", ...args },
        });
        assert.notEqual(result.isError, true, textOf(result));
        assert.deepEqual(result.structuredContent, body);
        assert.deepEqual(JSON.parse(textOf(result)), body);
        assert.equal(body.versions[0].version, 1);
        assert.ok(body.versions[0].changes.length > 0, "version 1 lists its controls as new");
        assert.equal(body.nextCursor, null);
      }
    });

    await t.step("get_trust_history refuses a private project and a bad cursor", async () => {
      const hidden = await client.callTool({
        name: "get_trust_history",
        arguments: { projectSlug: "hidden" },
      });
      assert.equal(hidden.isError, true);
      assert.match(textOf(hidden), /No public trust profile for "hidden"/);
      const bad = await client.callTool({
        name: "get_trust_history",
        arguments: { projectSlug: "acme", cursor: "zero" },
      });
      assert.equal(bad.isError, true);
      assert.match(textOf(bad), /cursor/);
    });

    await t.step("search_trust_profiles equals GET /public/trust-profiles", async () => {
      const body = await getJson(`${baseUrl}/public/trust-profiles?query=ACM`);
      const result = await client.callTool({
        name: "search_trust_profiles",
        arguments: { query: "ACM" },
      });
      assert.notEqual(result.isError, true, textOf(result));
      assert.deepEqual(result.structuredContent, body);
      assert.deepEqual(body.profiles.map((p: { slug: string }) => p.slug), ["acme"]);
    });

    await t.step("private projects never appear in search", async () => {
      for (const query of ["hidden", "bob", "project"]) {
        const result = await client.callTool({
          name: "search_trust_profiles",
          arguments: { query },
        });
        const slugs = (result.structuredContent as { profiles: Array<{ slug: string }> })
          .profiles.map((p) => p.slug);
        assert.ok(!slugs.includes("hidden"), `${query}: ${slugs}`);
      }
      const all = await client.callTool({
        name: "search_trust_profiles",
        arguments: { query: "project" },
      });
      assert.deepEqual(
        (all.structuredContent as { profiles: Array<{ slug: string }> }).profiles.map((p) =>
          p.slug
        ),
        ["acme"],
        "both projects are named '… project'; only the public one is found",
      );
    });
  } finally {
    await client.close();
  }
});
