/**
 * get_certifications and get_trust_profile through the SDK's own client against a real
 * server: the certifications tool answers the body of GET /public/trust/{orgSlug}/certifications
 * and the profile tool the envelope of GET /trust/{slug}, with the open incident and the
 * certifications beside the signed trust.json; an unknown organization is an error result.
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

Deno.test("[mcp] get_certifications answers the public list; the profile carries them", async (t) => {
  await using server = await startTestServer({ worker: false });
  const base = server.baseUrl;
  const api = jsonApi(base, await server.tokenFor("carol"));
  const boot = await api("POST", "/onboarding/bootstrap", {
    workspaceName: "Globex",
    projectName: "Globex app",
    projectSlug: "globex",
    projectVisibility: "public",
  });
  const { organization, project } = boot.json;
  for (
    const body of [
      { framework: "iso27001-2022", status: "achieved", auditor: "Example Certification Body" },
      { framework: "soc2-type1", status: "in_progress", projectId: project.id },
    ]
  ) {
    assert.equal(
      (await api("POST", `/organizations/${organization.id}/certifications`, body)).status,
      201,
    );
  }
  assert.equal((await api("POST", `/projects/${project.id}/publish`)).status, 201);
  const incident = await api("POST", `/projects/${project.id}/updates`, {
    kind: "incident",
    title: "Login failures",
    body: "Investigating.",
  });
  assert.equal(incident.status, 201);

  const client = new Client({ name: "mcp-certifications-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
  try {
    await t.step(
      "structured output equals GET /public/trust/{orgSlug}/certifications",
      async () => {
        const res = await fetch(`${base}/public/trust/${organization.slug}/certifications`);
        assert.equal(res.status, 200);
        const body = await res.json();
        const result = await client.callTool({
          name: "get_certifications",
          arguments: { orgSlug: organization.slug },
        });
        assert.notEqual(result.isError, true, textOf(result));
        assert.deepEqual(result.structuredContent, body);
        assert.deepEqual(JSON.parse(textOf(result)), body);
        assert.deepEqual(
          body.certifications.map((c: { frameworkName: string; status: string }) =>
            `${c.frameworkName}: ${c.status}`
          ),
          ["SOC 2 Type I: in_progress", "ISO/IEC 27001:2022: achieved"],
        );
      },
    );

    await t.step(
      "get_trust_profile returns the envelope: open incident, certifications",
      async () => {
        const body = await (await fetch(`${base}/trust/globex`)).json();
        const result = await client.callTool({
          name: "get_trust_profile",
          arguments: { projectSlug: "globex" },
        });
        assert.deepEqual(result.structuredContent, body);
        assert.deepEqual(body.openUpdates.map((u: { title: string }) => u.title), [
          "Login failures",
        ]);
        assert.equal(body.certifications.length, 2);
        assert.equal(body.profile.declaredByVendor.certifications.length, 2);
      },
    );

    await t.step("an unknown organization is an error result", async () => {
      const result = await client.callTool({
        name: "get_certifications",
        arguments: { orgSlug: "no-such-org" },
      });
      assert.equal(result.isError, true);
      assert.match(textOf(result), /No public trust center by that name/);
    });
  } finally {
    await client.close();
  }
});
