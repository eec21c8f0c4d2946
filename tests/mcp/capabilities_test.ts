/**
 * What `initialize` announces, read by the SDK's own client: the server is stateless (a fresh
 * server per request, no stream), so it can never send a list-changed notification and must
 * not announce `listChanged`; mcp.json says the same.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startPublishedServer } from "./_published.ts";

Deno.test("[mcp] initialize announces tools and resources without listChanged or subscribe", async () => {
  await using fixture = await startPublishedServer();
  const { baseUrl } = fixture.server;
  const client = new Client({ name: "capabilities-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`)));
  try {
    const capabilities = client.getServerCapabilities();
    assert.ok(capabilities, "the server answered initialize");
    assert.deepEqual(capabilities.tools, {}, "tools, and no listChanged");
    assert.deepEqual(capabilities.resources, {}, "resources, and no listChanged or subscribe");
    assert.equal(capabilities.prompts, undefined);
    const manifest = await (await fetch(`${baseUrl}/.well-known/mcp.json`)).json();
    assert.deepEqual(manifest.capabilities, { tools: capabilities.tools, resources: {} });
    // What it announces still works: the tools and the resource template are listed.
    assert.ok((await client.listTools()).tools.length > 0);
    assert.ok((await client.listResourceTemplates()).resourceTemplates.length > 0);
  } finally {
    await client.close();
  }
});
