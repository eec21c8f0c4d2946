/**
 * answer_questionnaire through the SDK's own client against a real server: its structured output
 * is the body of POST /public/trust/{orgSlug}/questionnaire-answers; questions match by their
 * questionnaire id and by their text, a restricted answer comes by question only (no text, no
 * citations), is never best nor counted as answered, and says where to ask (no NDA: nowhere yet), a private project's control is never cited; an unknown organization is an error
 * result, and so is a list of more than 400 questions.
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

Deno.test("[mcp] answer_questionnaire answers the public matches, with citations", async (t) => {
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
  const { project: hidden } = await send(`${base}/projects`, "POST", token, {
    organizationId: organization.id,
    name: "Internal",
    visibility: "private",
  });
  const hiddenControls = await send(`${base}/projects/${hidden.id}/controls`, "GET", token);
  const answers = `${base}/organizations/${organization.id}/answers`;
  await send(answers, "POST", token, {
    question: "Do you produce an SBOM for each release?",
    answer: "Yes, **CycloneDX** for every release.",
    category: "Supply chain",
    visibility: "public",
    citations: [{ kind: "control", id: sbom.id }, {
      kind: "control",
      id: hiddenControls.controls[0].id,
    }],
    questionnaireRefs: [{ questionnaire: "caiq-v4", id: "STA-08.1" }],
  });
  await send(answers, "POST", token, {
    question: "Who performed your last penetration test?",
    answer: "Example Labs, in March.",
    category: "Testing",
    visibility: "restricted",
  });
  const questions = [
    { text: "Is a software bill of materials kept?", id: "STA-08.1" },
    { text: "Who performed your last penetration test?" },
    { text: "Do you have a pet policy for the office?" },
  ];

  const client = new Client({ name: "mcp-questionnaire-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
  try {
    const result = await client.callTool({
      name: "answer_questionnaire",
      arguments: { orgSlug: organization.slug, questions },
    });
    assert.notEqual(result.isError, true, textOf(result));
    const body = result.structuredContent as {
      results: {
        best: { by: string; text: string; citations: { kind: string; projectSlug?: string }[] };
        status: string;
        requestAccessUrl?: string | null;
        suggestions: {
          source: { kind: string };
          text: string;
          restricted?: boolean;
          citations: { kind: string }[];
        }[];
      }[];
      answered: number;
      restricted: number;
    };

    await t.step("the same body as the public route, with no sign-in", async () => {
      const res = await fetch(`${base}/public/trust/${organization.slug}/questionnaire-answers`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ questions }),
      });
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), body);
      assert.deepEqual(JSON.parse(textOf(result)), body);
    });

    await t.step("by id, with the public project's control cited and the private one not", () => {
      const [sbomRow] = body.results;
      assert.equal(sbomRow.best.by, "id");
      assert.equal(sbomRow.best.text, "Yes, **CycloneDX** for every release.");
      const controlsCited = sbomRow.best.citations.filter((c) => c.kind === "control");
      assert.deepEqual(controlsCited.map((c) => c.projectSlug), [project.slug]);
      assert.ok(!JSON.stringify(body).includes(hidden.slug), "the private project is never named");
    });

    await t.step("a restricted answer by question only, never best nor answered", () => {
      const row = body.results[1];
      assert.equal(row.best, null);
      assert.equal(row.status, "restricted");
      assert.equal(row.requestAccessUrl, null, "no NDA: the organization takes no requests");
      const [restricted] = row.suggestions;
      assert.equal(restricted.restricted, true);
      assert.equal(restricted.text, "");
      assert.deepEqual(restricted.citations.filter((c) => c.kind !== "answer"), []);
      assert.ok(!JSON.stringify(body).includes("Example Labs"));
    });

    await t.step("an unanswered question has no best", () => {
      assert.equal(body.results[2].best, null);
      assert.equal(body.results[2].status, "unanswered");
      assert.equal(body.answered, 1);
      assert.equal(body.restricted, 1);
    });

    await t.step("an unknown organization and too many questions are error results", async () => {
      const unknown = await client.callTool({
        name: "answer_questionnaire",
        arguments: { orgSlug: "nobody-here", questions },
      });
      assert.equal(unknown.isError, true);
      assert.match(textOf(unknown), /No public trust center/);
      const many = await client.callTool({
        name: "answer_questionnaire",
        arguments: {
          orgSlug: organization.slug,
          questions: Array.from({ length: 401 }, (_, i) => ({ text: `Question ${i}?` })),
        },
      });
      assert.equal(many.isError, true);
    });
  } finally {
    await client.close();
  }
});
