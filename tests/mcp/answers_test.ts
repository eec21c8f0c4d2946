/**
 * search_answers through the SDK's own client against a real server: its structured output
 * is the body of GET /public/trust/{orgSlug}/answers?q= (public answers with their citations,
 * restricted ones by question only), so a buyer's agent can fill a questionnaire; an unknown
 * organization is an error result.
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

Deno.test("[mcp] search_answers answers the public answers' body, with citations", async (t) => {
  await using server = await startTestServer({ worker: false });
  const base = server.baseUrl;
  const token = await server.tokenFor("carol");
  const { organization, project } = await send(`${base}/onboarding/bootstrap`, "POST", token, {
    workspaceName: "Globex",
    projectName: "Globex app",
    projectVisibility: "public",
  });
  await send(`${base}/projects/${project.id}/publish`, "POST", token);
  const { controls } = await send(`${base}/projects/${project.id}/controls`, "GET", token);
  const sbom = controls.find((c: { key: string }) => c.key === "evidence.sbom");
  const answers = `${base}/organizations/${organization.id}/answers`;
  await send(answers, "POST", token, {
    question: "Do you produce an SBOM for each release?",
    answer: "Yes, CycloneDX for every release.",
    category: "Supply chain",
    visibility: "public",
    citations: [{ kind: "control", id: sbom.id }],
    questionnaireRefs: [{ questionnaire: "caiq-v4", id: "STA-08.1" }],
  });
  await send(answers, "POST", token, {
    question: "Who performed your last penetration test?",
    answer: "Example Labs.",
    category: "Testing",
    visibility: "restricted",
  });

  const client = new Client({ name: "mcp-answers-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
  try {
    for (const q of [undefined, "STA-08.1", "penetration"]) {
      await t.step(`structured output equals GET …/answers${q ? `?q=${q}` : ""}`, async () => {
        const query = q ? `?q=${encodeURIComponent(q)}` : "";
        const res = await fetch(`${base}/public/trust/${organization.slug}/answers${query}`);
        assert.equal(res.status, 200);
        const body = await res.json();
        const result = await client.callTool({
          name: "search_answers",
          arguments: q ? { orgSlug: organization.slug, q } : { orgSlug: organization.slug },
        });
        assert.notEqual(result.isError, true, textOf(result));
        assert.deepEqual(result.structuredContent, body);
        assert.deepEqual(JSON.parse(textOf(result)), body);
        assert.equal(body.organizationId, undefined, "no internal ids");
        if (q === "STA-08.1") {
          assert.equal(body.answers.length, 1);
          assert.deepEqual(
            body.answers[0].citations.map((c: { title: string; state: string }) => [
              c.title,
              c.state,
            ]),
            [["Software bill of materials", "unknown"]],
          );
        }
        if (q === "penetration") {
          assert.equal(body.answers[0].answer, null, "restricted: the question only");
          assert.ok(!JSON.stringify(body).includes("Example Labs"));
        }
      });
    }

    await t.step(
      "pages: limit and cursor give the route's pages, nextCursor to the end",
      async () => {
        const seen: string[] = [];
        let cursor: string | null = null;
        for (let page = 0; page < 5; page++) {
          const query: string = `?limit=1${cursor ? `&cursor=${cursor}` : ""}`;
          const res: Response = await fetch(
            `${base}/public/trust/${organization.slug}/answers${query}`,
          );
          const body: { answers: { id: string }[]; matched: number; nextCursor: string | null } =
            await res.json();
          const result = await client.callTool({
            name: "search_answers",
            arguments: { orgSlug: organization.slug, limit: 1, ...(cursor ? { cursor } : {}) },
          });
          assert.deepEqual(result.structuredContent, body);
          assert.equal(body.answers.length, 1);
          assert.equal(body.matched, 2);
          seen.push(body.answers[0].id);
          cursor = body.nextCursor;
          if (!cursor) break;
        }
        assert.equal(new Set(seen).size, 2, "both answers, one per page");
        const bad = await client.callTool({
          name: "search_answers",
          arguments: { orgSlug: organization.slug, limit: 201 },
        });
        assert.equal(bad.isError, true);
      },
    );

    await t.step("an unknown organization is an error result", async () => {
      const result = await client.callTool({
        name: "search_answers",
        arguments: { orgSlug: "no-such-org" },
      });
      assert.equal(result.isError, true);
      assert.match(textOf(result), /No public trust center/);
    });
  } finally {
    await client.close();
  }
});
