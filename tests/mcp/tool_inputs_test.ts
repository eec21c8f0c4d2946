/**
 * Every MCP tool's input, as tools/list shows it through the SDK's own client: each property
 * carries a description, unknown properties are declared refused (additionalProperties false),
 * and a call with an unknown argument is an error that names it, not a silent success.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startPublishedServer } from "./_published.ts";

Deno.test("[mcp] tool inputs: every property described, unknown arguments refused by name", async (t) => {
  await using fixture = await startPublishedServer();
  const client = new Client({ name: "mcp-inputs-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${fixture.server.baseUrl}/mcp`)),
  );
  try {
    await t.step("tools/list: a description on every input property", async () => {
      const { tools } = await client.listTools();
      assert.ok(tools.length >= 14);
      let properties = 0;
      for (const tool of tools) {
        assert.equal(tool.inputSchema.additionalProperties, false, tool.name);
        for (
          const [name, schema] of Object.entries(
            tool.inputSchema.properties as Record<string, { description?: string }>,
          )
        ) {
          properties++;
          assert.ok((schema.description ?? "").length >= 20, `${tool.name}.${name}`);
        }
      }
      assert.ok(properties >= 20, `only ${properties} properties seen`);
    });

    await t.step("an unknown argument is an error naming it", async () => {
      let message = "";
      try {
        const result = await client.callTool({
          name: "get_trust_profile",
          arguments: { projectSlug: "acme", projectSlugg: "acme" },
        });
        assert.equal(result.isError, true, "a call with an unknown argument must not succeed");
        message = (result.content as Array<{ text?: string }>)[0].text ?? "";
      } catch (error) {
        message = (error as Error).message;
      }
      assert.match(message, /projectSlugg/);
      const fine = await client.callTool({
        name: "get_trust_profile",
        arguments: { projectSlug: "acme" },
      });
      assert.notEqual(fine.isError, true);
    });
  } finally {
    await client.close();
  }
});
