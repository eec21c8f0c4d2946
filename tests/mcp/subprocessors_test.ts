/**
 * get_subprocessors through the SDK's own client against a real server: its structured
 * output is the body of GET /public/trust/{orgSlug}/subprocessors, including the history,
 * and an unknown organization is an error result.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startTestServer } from "../support/server.ts";

async function send(url: string, method: string, token: string, body?: unknown) {
  const res = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url} answered ${res.status}: ${text}`);
  return JSON.parse(text);
}

function textOf(result: Record<string, unknown>): string {
  const content = result.content as Array<{ type: string; text?: string }>;
  return content[0]?.text ?? "";
}

Deno.test("[mcp] get_subprocessors answers the public list's body", async (t) => {
  await using server = await startTestServer({ worker: false });
  const base = server.baseUrl;
  const token = await server.tokenFor("carol");
  const { organization } = await send(`${base}/onboarding/bootstrap`, "POST", token, {
    workspaceName: "Globex",
    projectName: "Globex app",
    projectVisibility: "public",
  });
  const path = `${base}/organizations/${organization.id}/subprocessors`;
  const added = [];
  for (const name of ["Postmark", "Hetzner"]) {
    added.push(
      (await send(path, "POST", token, {
        name,
        purpose: `${name} services`,
        location: "Germany",
        website: `https://${name.toLowerCase()}.example`,
      })).subprocessor,
    );
  }
  await send(`${path}/${added[0].id}`, "PATCH", token, { location: "United States" });
  await send(`${path}/${added[1].id}`, "DELETE", token);

  const client = new Client({ name: "mcp-subprocessors-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
  try {
    await t.step("structured output equals GET /public/trust/{orgSlug}/subprocessors", async () => {
      const res = await fetch(`${base}/public/trust/${organization.slug}/subprocessors`);
      assert.equal(res.status, 200);
      const body = await res.json();
      const result = await client.callTool({
        name: "get_subprocessors",
        arguments: { orgSlug: organization.slug },
      });
      assert.notEqual(result.isError, true, textOf(result));
      assert.deepEqual(result.structuredContent, body);
      assert.deepEqual(JSON.parse(textOf(result)), body);
      assert.deepEqual(body.subprocessors.map((s: { name: string }) => s.name), ["Postmark"]);
      assert.deepEqual(
        body.history.map((e: { action: string }) => e.action),
        ["removed", "changed", "added", "added"],
      );
    });

    await t.step("an unknown organization is an error result", async () => {
      const result = await client.callTool({
        name: "get_subprocessors",
        arguments: { orgSlug: "no-such-org" },
      });
      assert.equal(result.isError, true);
      assert.match(textOf(result), /No public trust center/);
    });
  } finally {
    await client.close();
  }
});
