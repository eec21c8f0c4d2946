/**
 * A shared answered questionnaire names its buyer, so it is unlisted: the test walks every
 * public GET operation of /openapi.json (each in HTML, Markdown and JSON) and the public MCP
 * tools, and finds neither the questionnaire's name nor the shared documents' ids anywhere, while
 * a listed restricted document does appear (so the scan sees what it should). The buyer still
 * gets both documents through the access-link flow: the request URL the share returns offers
 * them, the request accepts the NDA, an owner approves, the link serves them and the download
 * log records each. An unlisted document cannot become public, back a certification or be an
 * answer's citation.
 */
import assert from "node:assert/strict";
import { createTestApp, type TestApp } from "../support/app.ts";
import { makePdf, upload } from "../support/documents.ts";
import { fixture, knowledgeBase, ok } from "../support/questionnaires.ts";

/** A buyer's name no page of the service holds otherwise. */
const MARK = "Zyxwell";
const BUYER = `${MARK} Corporation vendor review`;

type Operation = {
  security?: unknown[];
  parameters?: Array<{ name: string; in: string; schema?: { enum?: string[] } }>;
};

/** Every public GET path with its parameters filled from `params`; the others are left out. */
async function publicPaths(ctx: TestApp, params: Record<string, string>) {
  const doc = await (await ctx.call("GET", "/openapi.json")).json();
  const paths: string[] = [];
  for (
    const [template, item] of Object.entries(doc.paths) as [string, Record<string, Operation>][]
  ) {
    const operation = item.get;
    if (!operation || operation.security?.length !== 0) continue;
    let filled = [template];
    for (const parameter of operation.parameters ?? []) {
      if (parameter.in !== "path") continue;
      const values = parameter.schema?.enum ??
        (params[parameter.name] ? [params[parameter.name]] : []);
      filled = filled.flatMap((path) =>
        values.map((value) => path.replace(`{${parameter.name}}`, encodeURIComponent(value)))
      );
    }
    paths.push(...filled);
  }
  return paths;
}

Deno.test("[questionnaires] a shared questionnaire is on no public surface; its link serves it", async (t) => {
  await using ctx = await createTestApp();
  const kb = await knowledgeBase(ctx);
  const { orgSlug } = kb;
  const listed = await ok(
    await upload(ctx, kb.orgId, {
      token: kb.owner,
      bytes: await makePdf("Listed"),
      query: "title=Listed%20penetration%20test%20summary",
    }),
    201,
  );
  await ok(
    await ctx.call("PUT", `/organizations/${kb.orgId}/nda`, {
      token: kb.owner,
      json: { text: "Keep it to yourselves." },
    }),
  );
  const created = await ok(
    await ctx.call(
      "POST",
      `/organizations/${kb.orgId}/questionnaires?name=${encodeURIComponent(BUYER)}`,
      {
        token: kb.member,
        body: await fixture("caiq_v4.0.3.xlsx") as BodyInit,
        headers: { "content-type": "application/octet-stream" },
      },
    ),
    201,
  );
  const base = `/organizations/${kb.orgId}/questionnaires/${created.questionnaire.id}`;
  await ok(await ctx.call("POST", `${base}/accept-id-matches`, { token: kb.member }));
  const shared = await ok(await ctx.call("POST", `${base}/share`, { token: kb.owner }), 201);
  const ids = [shared.document.id, shared.manifest.id];
  await ok(await ctx.call("POST", `/projects/${kb.project.id}/publish`, { token: kb.owner }), 201);

  await t.step("share: two restricted, unlisted documents and the URL to send the buyer", () => {
    for (const document of [shared.document, shared.manifest]) {
      assert.equal(document.visibility, "restricted");
      assert.equal(document.unlisted, true);
      assert.ok(document.title.startsWith(BUYER), document.title);
    }
    assert.equal(
      shared.requestAccessUrl,
      `http://trust.test/public/trust/${orgSlug}/documents/request?document=${ids.join(",")}`,
    );
    assert.equal(shared.warning, undefined, "an NDA is set");
  });

  await t.step("no public route names them, in any format", async () => {
    const paths = await publicPaths(ctx, {
      orgSlug,
      projectSlug: kb.project.slug,
      documentId: shared.document.id,
      version: "2",
      index: "0",
    });
    const seen: string[] = [];
    let controlSeen = false;
    for (const path of paths) {
      for (const accept of [undefined, "text/html", "text/markdown", "application/json"]) {
        const res = await ctx.call("GET", path, { headers: accept ? { accept } : {} });
        const text = await res.text();
        if (res.status !== 200) continue;
        seen.push(path);
        assert.ok(!text.includes(MARK), `${path} (${accept}) names the buyer`);
        for (const id of ids) assert.ok(!text.includes(id), `${path} (${accept}) names ${id}`);
        controlSeen ||= text.includes("Listed penetration test summary");
      }
    }
    assert.ok(controlSeen, "the listed restricted document is seen by the same scan");
    for (
      const expected of [
        `/public/trust/${orgSlug}`,
        `/public/trust/${orgSlug}/documents`,
        `/public/trust/${orgSlug}/documents.md`,
        `/public/trust/${orgSlug}/documents/request`,
        `/public/trust/${orgSlug}/answers`,
        `/trust/${kb.project.slug}`,
        `/trust/${kb.project.slug}/documents`,
        `/trust/${kb.project.slug}/feed.xml`,
        "/llms.txt",
      ]
    ) assert.ok(seen.includes(expected), `${expected} was scanned`);
    for (const id of [...ids, crypto.randomUUID()]) {
      const res = await ctx.call("GET", `/public/trust/${orgSlug}/documents/${id}/download`);
      assert.equal(res.status, 404, "an unlisted document is as unknown as a missing one");
      await res.body?.cancel();
    }
  });

  await t.step("no public MCP tool names them", async () => {
    const rpc = async (method: string, params: unknown) => {
      const res = await ctx.call("POST", "/mcp", {
        headers: { accept: "application/json, text/event-stream", host: "trust.test" },
        json: { jsonrpc: "2.0", id: 1, method, params },
      });
      const text = await res.text();
      assert.equal(res.status, 200, text);
      return text;
    };
    const values: Record<string, unknown> = {
      orgSlug,
      projectSlug: kb.project.slug,
      query: "acme",
      questions: [{ text: "Is the audit policy approved?", id: "A&A-01.1" }],
    };
    const { tools } = JSON.parse(await rpc("tools/list", {})).result;
    const called: string[] = [];
    for (const tool of tools as { name: string; inputSchema: { required?: string[] } }[]) {
      const required = tool.inputSchema.required ?? [];
      if (!required.every((name) => name in values)) continue;
      const args = Object.fromEntries(required.map((name) => [name, values[name]]));
      const text = await rpc("tools/call", { name: tool.name, arguments: args });
      assert.equal(
        JSON.parse(text).result?.isError,
        undefined,
        `${tool.name}: ${text.slice(0, 200)}`,
      );
      assert.ok(!text.includes(MARK), `${tool.name} names the buyer`);
      for (const id of ids) assert.ok(!text.includes(id), `${tool.name} names ${id}`);
      called.push(tool.name);
    }
    for (const name of ["list_documents", "list_organization_projects", "search_answers"]) {
      assert.ok(called.includes(name), `${name} was called`);
    }
  });

  await t.step("the request URL offers them; the access link serves them and logs it", async () => {
    const form = await ctx.call(
      "GET",
      new URL(shared.requestAccessUrl).pathname +
        new URL(shared.requestAccessUrl).search,
    );
    const html = await form.text();
    assert.equal(form.status, 200);
    for (const id of ids) assert.match(html, new RegExp(`value="${id}" checked`));
    assert.ok(html.includes(`${BUYER} (answered questionnaire)`));
    await ok(
      await ctx.call("POST", `/public/trust/${orgSlug}/access-requests`, {
        json: {
          name: "Gina Buyer",
          email: "gina@globex.test",
          company: "Globex",
          documentIds: ids,
          ndaVersion: 1,
          acceptNda: true,
        },
      }),
      202,
    );
    const { requests } = await ok(
      await ctx.call("GET", `/organizations/${kb.orgId}/access-requests`, { token: kb.owner }),
    );
    assert.deepEqual(requests[0].documentIds, ids);
    const approved = await ok(
      await ctx.call(
        "POST",
        `/organizations/${kb.orgId}/access-requests/${requests[0].id}/approve`,
        { token: kb.owner, json: {} },
      ),
    );
    const page = new URL(approved.link.url).pathname;
    const opened = await ctx.call("GET", page);
    assert.equal(opened.status, 200);
    assert.match(await opened.text(), /answered questionnaire/);
    for (const document of [shared.document, shared.manifest]) {
      const res = await ctx.call("GET", `${page}/${document.id}`);
      assert.equal(res.status, 200);
      const bytes = new Uint8Array(await res.arrayBuffer());
      assert.deepEqual(bytes, await ctx.services.blobs.get(`document/${document.sha256}`));
    }
    const { downloads } = await ok(
      await ctx.call("GET", `/organizations/${kb.orgId}/document-downloads`, { token: kb.owner }),
    );
    assert.deepEqual(
      downloads.map((d: { documentId: string; email: string }) => [d.documentId, d.email]).sort(),
      ids.map((id) => [id, "gina@globex.test"]).sort(),
    );
  });

  await t.step(
    "an unlisted document stays restricted, backs no certification or answer",
    async () => {
      const item = `/organizations/${kb.orgId}/documents/${shared.document.id}`;
      const patched = await ctx.call("PATCH", item, {
        token: kb.owner,
        json: { visibility: "public" },
      });
      assert.equal(patched.status, 400);
      assert.match((await patched.json()).error.message, /unlisted/);
      const certification = await ctx.call("POST", `/organizations/${kb.orgId}/certifications`, {
        token: kb.owner,
        json: { framework: "soc2-type2", status: "achieved", documentId: shared.document.id },
      });
      assert.equal(certification.status, 400);
      assert.match((await certification.json()).error.message, /unlisted/);
      const answer = await ctx.call("POST", `/organizations/${kb.orgId}/answers`, {
        token: kb.owner,
        json: {
          question: "Do you share answered questionnaires?",
          answer: "Yes.",
          category: "Other",
          visibility: "public",
          citations: [{ kind: "document", id: shared.document.id }],
        },
      });
      assert.equal(answer.status, 400);
      assert.match((await answer.json()).error.message, /unlisted/);
      const renamed = await ok(
        await ctx.call("PATCH", item, { token: kb.owner, json: { title: "Globex answers" } }),
      );
      assert.equal(renamed.document.unlisted, true, "other changes keep it unlisted");
      const { documents } = await ok(
        await ctx.call("GET", `/public/trust/${orgSlug}/documents`),
      );
      assert.deepEqual(documents.map((d: { id: string }) => d.id), [listed.document.id]);
    },
  );
});
