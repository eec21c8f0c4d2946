/**
 * list_documents through the SDK's own client against a real server: its structured output
 * is the body of GET /public/trust/{orgSlug}/documents (public documents with their type,
 * size and download URL, restricted ones by title with the request-access URL), documents
 * of private projects stay off, and an unknown organization is an error result.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { makePdf } from "../support/documents.ts";
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

async function uploadPdf(url: string, token: string, query: string, bytes: Uint8Array) {
  const res = await fetch(`${url}?${query}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/pdf" },
    body: bytes as Uint8Array<ArrayBuffer>,
  });
  const text = await res.text();
  assert.equal(res.status, 201, text);
  return JSON.parse(text).document;
}

function textOf(result: Record<string, unknown>): string {
  const content = result.content as Array<{ type: string; text?: string }>;
  return content[0]?.text ?? "";
}

Deno.test("[mcp] list_documents answers the public document list's body", async (t) => {
  await using server = await startTestServer({ worker: false });
  const base = server.baseUrl;
  const token = await server.tokenFor("carol");
  const { organization } = await send(`${base}/onboarding/bootstrap`, "POST", token, {
    workspaceName: "Globex",
    projectName: "Globex app",
    projectVisibility: "public",
  });
  const hidden = (await send(`${base}/projects`, "POST", token, {
    organizationId: organization.id,
    name: "Internal",
    visibility: "private",
  })).project;
  const path = `${base}/organizations/${organization.id}/documents`;
  const pdf = await makePdf("Report");
  const open = await uploadPdf(path, token, "title=Security%20policy&visibility=public", pdf);
  const soc2 = await uploadPdf(path, token, "title=SOC%202%20report", pdf);
  await uploadPdf(
    path,
    token,
    `title=Internal%20notes&visibility=public&projectId=${hidden.id}`,
    pdf,
  );
  await send(`${base}/organizations/${organization.id}/nda`, "PUT", token, { text: "Keep it." });

  const client = new Client({ name: "mcp-documents-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
  try {
    await t.step("structured output equals GET /public/trust/{orgSlug}/documents", async () => {
      const res = await fetch(`${base}/public/trust/${organization.slug}/documents`);
      assert.equal(res.status, 200);
      const body = await res.json();
      const result = await client.callTool({
        name: "list_documents",
        arguments: { orgSlug: organization.slug },
      });
      assert.notEqual(result.isError, true, textOf(result));
      assert.deepEqual(result.structuredContent, body);
      assert.deepEqual(JSON.parse(textOf(result)), body);
      const byTitle = Object.fromEntries(
        body.documents.map((d: { title: string }) => [d.title, d]),
      );
      assert.deepEqual(Object.keys(byTitle), ["Security policy", "SOC 2 report"]);
      const policy = byTitle["Security policy"];
      assert.equal(policy.type, "pdf");
      assert.equal(policy.size, pdf.length);
      assert.equal(
        policy.downloadUrl,
        `${base}/public/trust/${organization.slug}/documents/${open.id}/download`,
      );
      assert.equal(policy.requestAccessUrl, null);
      const report = byTitle["SOC 2 report"];
      assert.equal(report.size, null);
      assert.equal(report.downloadUrl, null);
      assert.equal(
        report.requestAccessUrl,
        `${base}/public/trust/${organization.slug}/documents/request?document=${soc2.id}`,
      );
      assert.equal(body.acceptingRequests, true);
      assert.equal(body.nda.text, "Keep it.");
      assert.equal(body.organizationId, undefined, "no internal ids");
    });

    await t.step("an unknown organization is an error result", async () => {
      const result = await client.callTool({
        name: "list_documents",
        arguments: { orgSlug: "no-such-org" },
      });
      assert.equal(result.isError, true);
      assert.match(textOf(result), /No public trust center/);
    });
  } finally {
    await client.close();
  }
});
