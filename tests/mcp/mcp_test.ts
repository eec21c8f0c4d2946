/**
 * The MCP server through the SDK's own client over Streamable HTTP, against
 * a real listening server: every tool answers the body of its public route,
 * errors are tool results, and the transport refuses foreign hosts.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { postWithHost } from "../support/raw_http.ts";
import { startPublishedServer } from "./_published.ts";

const TOOLS = {
  get_trust_profile: "",
  get_trust_controls: "/controls",
  get_trust_signals: "/signals",
  get_trust_json: "/trust.json",
  get_trust_frameworks: "/frameworks",
} as const;

async function connect(baseUrl: string) {
  const client = new Client({ name: "mcp-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`)));
  return { client, [Symbol.asyncDispose]: () => client.close() };
}

async function getJson(url: string) {
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  assert.equal(res.status, 200, url);
  return await res.json();
}

function textOf(result: Record<string, unknown>): string {
  const content = result.content as Array<{ type: string; text?: string }>;
  assert.equal(content[0].type, "text");
  return content[0].text ?? "";
}

Deno.test("[mcp] tools over Streamable HTTP answer the public routes' bodies", async (t) => {
  await using fixture = await startPublishedServer();
  const { baseUrl } = fixture.server;
  await using session = await connect(baseUrl);
  const { client } = session;

  await t.step("tools/list names exactly the tools, each with both schemas", async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((tool) => tool.name).sort(),
      [
        ...Object.keys(TOOLS),
        "get_trust_history",
        "search_trust_profiles",
        "get_subprocessors",
        "list_documents",
        "get_trust_updates",
        "get_certifications",
        "list_organization_projects",
        "search_answers",
        "answer_questionnaire",
      ].sort(),
    );
    for (const tool of tools) {
      assert.ok(tool.description && tool.description.length > 80, tool.name);
      assert.equal(tool.inputSchema.type, "object");
      const required = tool.name === "search_trust_profiles"
        ? ["query"]
        : tool.name === "answer_questionnaire"
        ? ["orgSlug", "questions"]
        : [
            "get_subprocessors",
            "list_documents",
            "get_certifications",
            "list_organization_projects",
            "search_answers",
          ].includes(tool.name)
        ? ["orgSlug"]
        : ["projectSlug"];
      assert.deepEqual(tool.inputSchema.required, required, tool.name);
      assert.equal(tool.outputSchema?.type, "object", tool.name);
      assert.equal(tool.annotations?.readOnlyHint, true);
    }
  });

  for (const [name, suffix] of Object.entries(TOOLS)) {
    await t.step(`${name} matches GET /trust/{slug}${suffix}`, async () => {
      const body = await getJson(`${baseUrl}/trust/${fixture.publicSlug}${suffix}`);
      const result = await client.callTool({ name, arguments: { projectSlug: "acme" } });
      assert.notEqual(result.isError, true, textOf(result));
      assert.deepEqual(result.structuredContent, body);
      assert.deepEqual(JSON.parse(textOf(result)), body, "the text is the same JSON");
      if (name === "get_trust_controls") {
        // deno-lint-ignore no-explicit-any
        const sbom = body.controls.find((c: any) => c.key === "evidence.sbom");
        assert.equal(typeof sbom.reason, "string", "controls explain why");
        assert.match(sbom.evidence.digest, /^sha256:[0-9a-f]{64}$/);
        assert.equal(sbom.group, "supply_chain");
      }
      if (name !== "get_trust_signals") {
        const version = (body.profile ?? body).version;
        assert.equal(version, 1, "the published version");
      } else {
        assert.equal(body.signals.commitSha, "0123456789abcdef0123456789abcdef01234567");
      }
    });
  }

  await t.step("get_trust_json's text is the exact trust.json bytes", async () => {
    const res = await fetch(`${baseUrl}/trust/acme/trust.json`);
    const result = await client.callTool({
      name: "get_trust_json",
      arguments: { projectSlug: "acme" },
    });
    assert.equal(textOf(result), await res.text());
  });

  for (const [label, slug] of [["an unknown", "nobody-here"], ["a private", "hidden"]]) {
    await t.step(`every tool answers an error result for ${label} slug`, async () => {
      for (const name of Object.keys(TOOLS)) {
        const result = await client.callTool({ name, arguments: { projectSlug: slug } });
        assert.equal(result.isError, true, name);
        assert.match(textOf(result), new RegExp(`No public trust profile for "${slug}"`), name);
        assert.equal(result.structuredContent, undefined);
      }
    });
  }

  await t.step("an invalid argument is an error result naming the field", async () => {
    const result = await client.callTool({
      name: "get_trust_profile",
      arguments: { projectSlug: "" },
    });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /projectSlug/);
  });

  await t.step("trust://{slug}/trust.json reads the exact trust.json text", async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.deepEqual(resourceTemplates.map((r) => r.uriTemplate), [
      "trust://{projectSlug}/trust.json",
    ]);
    const expected = await (await fetch(`${baseUrl}/trust/acme/trust.json`)).text();
    const { contents } = await client.readResource({ uri: "trust://acme/trust.json" });
    assert.equal(contents.length, 1);
    assert.equal(contents[0].uri, "trust://acme/trust.json");
    assert.equal(contents[0].mimeType, "application/json");
    assert.equal("text" in contents[0] ? contents[0].text : undefined, expected);
  });

  await t.step("reading a private project's resource is a JSON-RPC error", async () => {
    await assert.rejects(
      () => client.readResource({ uri: "trust://hidden/trust.json" }),
      /No public trust profile for "hidden"/,
    );
  });
});

Deno.test("[mcp] the transport: 405 for GET and DELETE, foreign hosts refused", async (t) => {
  await using fixture = await startPublishedServer();
  const { baseUrl, port } = fixture.server;
  const initialize = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      // fixed-instant: the MCP protocol revision's name, not a time
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "raw", version: "1.0.0" },
    },
  });
  const mcpHeaders = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };

  for (const method of ["GET", "DELETE"]) {
    await t.step(`${method} /mcp answers 405 in the API's envelope`, async () => {
      const res = await fetch(`${baseUrl}/mcp`, {
        method,
        headers: { accept: "text/event-stream" },
      });
      assert.equal(res.status, 405);
      assert.equal(res.headers.get("allow"), "POST");
      assert.match(res.headers.get("content-type") ?? "", /application\/json/);
      const body = await res.json();
      assert.equal(body.error.code, "method_not_allowed");
      assert.match(body.error.message, /stateless/);
    });
  }

  await t.step("an allowed Host (with or without port, any loopback name) is served", async () => {
    for (const host of [`127.0.0.1:${port}`, "127.0.0.1", `localhost:${port}`, `[::1]:${port}`]) {
      const res = await postWithHost(baseUrl, "/mcp", host, initialize, mcpHeaders);
      assert.equal(res.status, 200, host);
      const body = JSON.parse(res.body);
      assert.equal(body.result.serverInfo.name, "trust-profile-service");
      assert.equal(res.headers.get("mcp-session-id"), null, "stateless: no session");
    }
  });

  await t.step("a Host that is not this service's is refused before any JSON-RPC", async () => {
    const res = await postWithHost(baseUrl, "/mcp", "evil.example.com", initialize, mcpHeaders);
    assert.equal(res.status, 403);
    const body = JSON.parse(res.body);
    assert.equal(body.error.code, -32000);
    assert.match(body.error.message, /Invalid Host header: evil\.example\.com/);
  });

  await t.step("a browser Origin that is not this service's is refused", async () => {
    const res = await postWithHost(baseUrl, "/mcp", `127.0.0.1:${port}`, initialize, {
      ...mcpHeaders,
      origin: "http://evil.example.com",
    });
    assert.equal(res.status, 403);
    assert.match(JSON.parse(res.body).error.message, /Invalid Origin header/);
  });

  await t.step("a body that is not JSON answers 415 in the API's envelope", async () => {
    const res = await fetch(`${baseUrl}/mcp`, {
      method: "POST",
      headers: { ...mcpHeaders, "content-type": "text/plain" },
      body: initialize,
    });
    assert.equal(res.status, 415);
    assert.equal((await res.json()).error.code, "unsupported_media_type");
  });
});
