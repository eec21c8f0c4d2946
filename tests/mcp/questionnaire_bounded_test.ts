/**
 * answer_questionnaire through the SDK's own client carries the bounds of public matching
 * (src/serve/questionnaire_public.ts): a long answer is cut at a word with a link to the whole
 * one, a second identical call does no matching, and past the per-client limit the tool answers
 * an error result that says when to try again (the same limit as the HTTP route's 429).
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { MAX_PUBLIC_MATCH_TEXT } from "../../src/domain/questionnaires.ts";
import { PUBLIC_MATCHING_RATE, publicMatchingStats } from "../../src/serve/questionnaire_public.ts";
import { jsonApi, startTestServer } from "../support/server.ts";

function textOf(result: Record<string, unknown>): string {
  const content = result.content as Array<{ type: string; text?: string }>;
  return content[0]?.text ?? "";
}

Deno.test("[mcp] answer_questionnaire: texts cut, identical calls answered from the copy, a per-client limit", async () => {
  await using server = await startTestServer({ worker: false });
  const api = jsonApi(server.baseUrl, await server.tokenFor("dana"));
  const boot = await api("POST", "/onboarding/bootstrap", {
    workspaceName: "Initech",
    projectName: "Initech app",
    projectVisibility: "public",
  });
  assert.equal(boot.status, 201, JSON.stringify(boot.json));
  const { organization } = boot.json;
  const long = `Logs are kept for a year. ${"Each entry is signed and stored twice. ".repeat(200)}`;
  const created = await api("POST", `/organizations/${organization.id}/answers`, {
    question: "How long are logs retained?",
    answer: long,
    category: "Logging",
    visibility: "public",
    questionnaireRefs: [{ questionnaire: "caiq-v4", id: "LOG-02.1" }],
  });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const questions = [{ text: "How long do you keep logs?", id: "LOG-02.1" }];

  const client = new Client({ name: "mcp-questionnaire-bounds", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`)));
  try {
    const before = publicMatchingStats();
    const call = () =>
      client.callTool({
        name: "answer_questionnaire",
        arguments: { orgSlug: organization.slug, questions },
      });
    const first = await call();
    assert.notEqual(first.isError, true, textOf(first));
    const body = first.structuredContent as {
      results: { best: { text: string; truncated?: boolean; fullTextUrl?: string } }[];
      truncated?: boolean;
      url: string;
    };
    const best = body.results[0].best;
    assert.ok(best.text.length <= MAX_PUBLIC_MATCH_TEXT, `${best.text.length} characters`);
    const kept = best.text.slice(0, -1);
    assert.ok(best.text.endsWith("…") && long.startsWith(kept), "a start of the answer");
    assert.equal(long[kept.length], " ", "cut after a whole word");
    assert.equal(best.truncated, true);
    assert.equal(best.fullTextUrl, `${body.url}#answer-${created.json.answer.id}`);
    assert.equal(body.truncated, true);
    assert.equal(publicMatchingStats().matchings, before.matchings + 1);

    const second = await call();
    assert.deepEqual(second.structuredContent, first.structuredContent);
    assert.equal(publicMatchingStats().matchings, before.matchings + 1, "no matching again");

    // Two calls so far from this client (127.0.0.1): the rest of the window, then refused.
    for (let i = 2; i < PUBLIC_MATCHING_RATE.perClient; i++) {
      const result = await call();
      assert.notEqual(result.isError, true, textOf(result));
    }
    const refused = await call();
    assert.equal(refused.isError, true);
    assert.match(textOf(refused), /per client in 60 s; try again in \d+ s/);
  } finally {
    await client.close();
  }
});
