/**
 * Finding a vendor's projects through MCP against a real server: search_trust_profiles finds
 * them by the organization's name and description, and list_organization_projects answers the
 * body of GET /public/trust/{orgSlug}; private projects never appear.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { jsonApi, startTestServer } from "../support/server.ts";

function textOf(result: Record<string, unknown>): string {
  const content = result.content as Array<{ type: string; text?: string }>;
  return content[0]?.text ?? "";
}

Deno.test("[mcp] vendors are found by organization and their public projects listed", async (t) => {
  await using server = await startTestServer({ worker: false });
  const base = server.baseUrl;
  const api = jsonApi(base, await server.tokenFor("dora"));
  const boot = await api("POST", "/onboarding/bootstrap", {
    workspaceName: "Initech",
    projectName: "TPS Reports",
    projectSlug: "tps",
    projectVisibility: "public",
  });
  const { organization, project } = boot.json;
  const profile = await api("PATCH", `/organizations/${organization.id}/profile`, {
    displayName: "Initech Software",
    description: "Cover sheets for every report, delivered on time",
  });
  assert.equal(profile.status, 200);
  const hidden = await api("POST", "/projects", {
    organizationId: organization.id,
    name: "Internal tools",
    slug: "internal",
    visibility: "private",
  });
  for (const id of [project.id, hidden.json.project.id]) {
    assert.equal((await api("POST", `/projects/${id}/publish`)).status, 201);
  }

  const client = new Client({ name: "mcp-organization-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
  try {
    await t.step(
      "search_trust_profiles finds the project by the vendor's description",
      async () => {
        const result = await client.callTool({
          name: "search_trust_profiles",
          arguments: { query: "cover sheets" },
        });
        const body = await (await fetch(`${base}/public/trust-profiles?query=cover%20sheets`))
          .json();
        assert.deepEqual(result.structuredContent, body);
        assert.deepEqual(body.profiles.map((p: { slug: string }) => p.slug), ["tps"]);
        assert.deepEqual(body.profiles[0].organization, {
          name: "Initech Software",
          slug: organization.slug,
        });
      },
    );

    await t.step("list_organization_projects equals GET /public/trust/{orgSlug}", async () => {
      const body = await (await fetch(`${base}/public/trust/${organization.slug}`)).json();
      const result = await client.callTool({
        name: "list_organization_projects",
        arguments: { orgSlug: organization.slug },
      });
      assert.notEqual(result.isError, true, textOf(result));
      assert.deepEqual(result.structuredContent, body);
      assert.deepEqual(body.projects.map((p: { slug: string }) => p.slug), ["tps"]);
    });

    await t.step("an unknown organization is an error result", async () => {
      const result = await client.callTool({
        name: "list_organization_projects",
        arguments: { orgSlug: "no-such-org" },
      });
      assert.equal(result.isError, true);
    });
  } finally {
    await client.close();
  }
});
