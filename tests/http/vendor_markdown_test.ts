/**
 * Every Markdown the service writes from vendor text is safe to render with raw HTML on:
 * hostile text (`<script>`, `<img onerror>`, `javascript:` links, raw HTML blocks) is put in
 * every field a vendor types (names, descriptions, update and answer bodies, questions,
 * categories, certification scopes and auditors, subprocessor purposes, document titles,
 * control names), then every public Markdown response /openapi.json lists, and the Markdown
 * the MCP tools return (search_answers' answers, get_trust_updates' bodies), is rendered by
 * markdown-it with HTML allowed, and no element, event attribute or script link may appear.
 */
import assert from "node:assert/strict";
import { createTestApp, type TestApp } from "../support/app.ts";
import { makePdf } from "../support/documents.ts";
import type { OpenApiDocument } from "../support/openapi_validator.ts";
import { HOSTILE_MARKDOWN, renderAsReader, unsafeHtml } from "../support/safe_html.ts";

/** One line of hostile text (names and titles refuse line breaks). */
const LINE =
  `<script>alert(1)</script> <img src=x onerror=alert(2)> [click](javascript:alert(3)) <a href="javascript:alert(4)">a</a> <javascript:alert(5)>`;
/** The same, short enough for the narrowest fields (categories, locations). */
const SHORT = "<img src=x onerror=alert(2)>[c](javascript:alert(3))<script>";
/** Hostile Markdown over several lines and blocks, in every syntax Markdown has. */
const MARKDOWN = HOSTILE_MARKDOWN.join("\n\n");

/** As much of MARKDOWN as a field of at most `max` characters takes, whole pieces only. */
function fit(max: number): string {
  let out = "";
  for (const piece of HOSTILE_MARKDOWN) {
    const next = out ? `${out}\n\n${piece}` : piece;
    if (next.length > max) continue;
    out = next;
  }
  return out;
}

/** What a reader rendering `markdown` with raw HTML on would get that it must not. */
function dangers(markdown: string): string[] {
  return unsafeHtml(renderAsReader(markdown));
}

async function send(ctx: TestApp, token: string, method: string, path: string, json?: unknown) {
  const res = await ctx.call(method, path, { token, json });
  const text = await res.text();
  assert.ok(res.ok, `${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

Deno.test("[http] Markdown made from vendor text renders no markup a vendor wrote", async (t) => {
  await using ctx = await createTestApp();
  const token = await ctx.tokenFor("owner");
  const boot = await send(ctx, token, "POST", "/onboarding/bootstrap", {
    workspaceName: LINE,
    projectName: LINE,
    projectSlug: "hostile",
    projectVisibility: "public",
  });
  const org = boot.organization;
  const projectId = boot.project.id;
  await send(ctx, token, "PATCH", `/organizations/${org.id}/profile`, {
    displayName: LINE,
    description: fit(500),
  });
  const control = await send(ctx, token, "POST", `/projects/${projectId}/controls`, {
    key: "custom.hostile",
    publicName: LINE,
    evidenceType: "policy_result",
    rule: { path: "ok", op: "truthy" },
  });
  await send(
    ctx,
    token,
    "PUT",
    `/projects/${projectId}/controls/${control.control.id}/criteria`,
    { criteria: [{ framework: "iso27001", id: "A.8.8" }] },
  );
  await send(ctx, token, "PUT", `/organizations/${org.id}/nda`, { text: MARKDOWN });
  const documents: string[] = [];
  for (const visibility of ["public", "restricted"]) {
    const res = await ctx.call(
      "POST",
      `/organizations/${org.id}/documents?title=${
        encodeURIComponent(LINE)
      }&visibility=${visibility}&description=${encodeURIComponent(MARKDOWN)}`,
      {
        token,
        body: await makePdf() as Uint8Array<ArrayBuffer>,
        headers: { "content-type": "application/pdf" },
      },
    );
    assert.equal(res.status, 201, await res.clone().text());
    documents.push((await res.json()).document.id);
  }
  const certification = await send(ctx, token, "POST", `/organizations/${org.id}/certifications`, {
    framework: "other",
    frameworkName: LINE,
    status: "achieved",
    auditor: LINE,
    scope: fit(1000),
    documentId: documents[1],
    projectId,
  });
  await send(ctx, token, "POST", `/organizations/${org.id}/certifications`, {
    framework: "soc2-type2",
    status: "in_progress",
    auditor: LINE,
    scope: fit(1000),
    documentId: documents[0],
  });
  await send(ctx, token, "POST", `/organizations/${org.id}/subprocessors`, {
    name: LINE,
    purpose: fit(500),
    location: SHORT,
    website: "https://vendor.example",
  });
  await send(ctx, token, "POST", `/projects/${projectId}/publish`);
  const updates: string[] = [];
  for (const kind of ["incident", "advisory", "change"]) {
    const { update } = await send(ctx, token, "POST", `/projects/${projectId}/updates`, {
      kind,
      title: LINE,
      body: MARKDOWN,
    });
    updates.push(update.id);
  }
  for (const visibility of ["public", "restricted"]) {
    await send(ctx, token, "POST", `/organizations/${org.id}/answers`, {
      question: LINE,
      answer: MARKDOWN,
      category: SHORT,
      visibility,
      questionnaireRefs: [{ questionnaire: "caiq-v4", id: "CEK-03.1" }],
      citations: [
        { kind: "control", id: control.control.id },
        { kind: "document", id: documents[0] },
        { kind: "certification", id: certification.certification.id },
      ],
    });
  }
  await send(ctx, token, "POST", `/projects/${projectId}/publish`);

  const doc: OpenApiDocument = await (await ctx.call("GET", "/openapi.json")).json();
  const params: Record<string, string[]> = {
    projectSlug: ["hostile"],
    orgSlug: [org.slug],
    version: ["1", "2"],
    document: ["index.md"],
    updateId: updates,
  };
  const fill = (template: string): string[] => {
    const name = template.match(/\{([^}]+)\}/)?.[1];
    if (!name) return [template];
    return (params[name] ?? []).flatMap((value) => fill(template.replace(`{${name}}`, value)));
  };
  const pages: string[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    const get = item.get;
    if (!get || get.security?.length) continue;
    if (!("text/markdown" in (get.responses["200"]?.content ?? {}))) continue;
    pages.push(...fill(path));
  }
  pages.push(`/public/trust/${org.slug}/answers.md?q=script`);
  assert.ok(pages.length >= 15, `${pages.length} Markdown pages`);
  for (const page of pages) {
    await t.step(`GET ${page} (text/markdown)`, async () => {
      const res = await ctx.call("GET", page, { headers: { accept: "text/markdown" } });
      const text = await res.text();
      assert.equal(res.status, 200, text.slice(0, 200));
      if (!(res.headers.get("content-type") ?? "").startsWith("text/markdown")) return;
      const raw = text.split("\n").filter((line) => dangers(line).length > 0);
      assert.deepEqual(dangers(text), [], `lines with markup:\n${raw.join("\n")}`);
    });
  }

  const mcp = async (name: string, args: Record<string, unknown>) => {
    const res = await ctx.call("POST", "/mcp", {
      headers: { accept: "application/json, text/event-stream", host: "trust.test" },
      json: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } },
    });
    const body = await res.json();
    assert.equal(body.result?.isError, undefined, JSON.stringify(body));
    return body.result.structuredContent;
  };
  await t.step("MCP search_answers: every answer's Markdown", async () => {
    const { answers } = await mcp("search_answers", { orgSlug: org.slug });
    const public_ = answers.filter((a: { answer: string | null }) => a.answer !== null);
    assert.equal(public_.length, 1);
    for (const answer of public_) assert.deepEqual(dangers(answer.answer), [], answer.answer);
  });
  await t.step("MCP get_trust_updates: every update's Markdown", async () => {
    const { updates: list } = await mcp("get_trust_updates", { projectSlug: "hostile" });
    assert.equal(list.length, 3);
    for (const update of list) assert.deepEqual(dangers(update.body), [], update.body);
  });
  await t.step("the test's own check finds the raw text dangerous", () => {
    assert.ok(dangers(MARKDOWN).length >= 10);
    assert.ok(dangers(LINE).length >= 3);
    assert.ok(dangers(SHORT).length >= 2);
  });
});
