/**
 * One error code per kind of refusal, whichever route refuses: the same kind of bad input is
 * sent to every route that takes it, and every answer must carry the code docs/endpoints.md
 * ("Errors") gives that kind. `bad_request`: a body that cannot be read (malformed JSON). And
 * `validation_failed`: a readable request whose field is refused, by its schema (an unknown
 * field, a wrong type, a limit out of range, a malformed cursor) or by a check against what is
 * stored (a cursor this service never handed out, a document, project or certification that is
 * not the organization's, dates out of order, an email address that is not one).
 */
import assert from "node:assert/strict";
import { createTestApp, type TestApp } from "../support/app.ts";
import { collector, workspace } from "../support/fixtures.ts";
import { makePdf } from "../support/documents.ts";
import { type OpenApiDocument, operations } from "../support/openapi_validator.ts";

/** Endpoints that answer another shape than the envelope (OAuth, forms) or JSON-RPC (MCP). */
const OTHER_SHAPES = /^\/(oauth2\/|signup|mcp)/;

interface Fixture {
  ctx: TestApp;
  token: string;
  secret: string;
  ids: Record<string, string>;
  doc: OpenApiDocument;
}

async function setUp(ctx: TestApp): Promise<Fixture> {
  const ws = await workspace(ctx, "owner", { projectSlug: "acme", visibility: "public" });
  const made = await collector(ctx, ws);
  const doc: OpenApiDocument = await (await ctx.call("GET", "/openapi.json")).json();
  return {
    ctx,
    token: ws.token,
    secret: made.secret,
    ids: {
      organizationId: ws.organization.id,
      id: ws.project.id,
      projectId: ws.project.id,
      collectorId: made.id,
      orgSlug: ws.organization.slug,
      projectSlug: "acme",
    },
    doc,
  };
}

/** `path` with each parameter filled: the fixture's ids, else a fresh UUID. */
function fill(path: string, ids: Record<string, string>): string {
  return path.replace(/\{([^}]+)\}/g, (_, name) => ids[name] ?? crypto.randomUUID());
}

/** The answer of each operation (`METHOD path`) to `body`, as `status code`. */
async function answers(
  fx: Fixture,
  body: string,
  filter: (path: string) => boolean = () => true,
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const { method, path, operation } of operations(fx.doc).values()) {
    const json = operation.requestBody?.content["application/json"];
    if (!json || OTHER_SHAPES.test(path) || !filter(path)) continue;
    const auth = operation.security?.some((s) => "collectorBearer" in (s as object))
      ? fx.secret
      : fx.token;
    const res = await fx.ctx.call(method, fill(path, fx.ids), {
      token: auth,
      body,
      headers: { "content-type": "application/json" },
    });
    const answer = await res.json();
    out.set(`${method} ${path}`, `${res.status} ${answer.error?.code}`);
  }
  return out;
}

/** The entries of `found` whose answer is not `expected`. */
function unlike(found: Map<string, string>, expected: string): string[] {
  return [...found].filter(([, answer]) => answer !== expected).map(([op, a]) => `${op}: ${a}`);
}

Deno.test("[http] one error code per kind of refusal, on every route", async (t) => {
  await using ctx = await createTestApp();
  const fx = await setUp(ctx);

  await t.step("malformed JSON: bad_request everywhere", async () => {
    const found = await answers(fx, "{not json");
    assert.ok(found.size >= 30, `${found.size} operations take JSON`);
    assert.deepEqual(unlike(found, "400 bad_request"), []);
  });

  await t.step("JSON nested too deep or with a non-finite number: bad_request", async () => {
    const deep = `${"[".repeat(70)}${"]".repeat(70)}`;
    for (const body of [deep, '{"a": 1e999}']) {
      const found = await answers(fx, body, (path) => path.startsWith("/organizations/"));
      assert.deepEqual(unlike(found, "400 bad_request"), [], body);
    }
  });

  await t.step("a body of the wrong type: validation_failed everywhere", async () => {
    const found = await answers(fx, '"a string"');
    assert.deepEqual(unlike(found, "400 validation_failed"), []);
  });

  await t.step("a limit out of range or a malformed cursor: validation_failed", async () => {
    const problems: string[] = [];
    for (const { method, path, operation } of operations(fx.doc).values()) {
      if (method !== "GET" || OTHER_SHAPES.test(path)) continue;
      const names = ((operation as { parameters?: { name: string; in: string }[] }).parameters ??
        []).filter((p) => p.in === "query").map((p) => p.name);
      for (const [name, value] of [["limit", "0"], ["cursor", "!!"], ["cursor", "A".repeat(12)]]) {
        if (!names.includes(name)) continue;
        const url = `${fill(path, fx.ids)}?${name}=${encodeURIComponent(value)}`;
        const res = await ctx.call("GET", url, { token: fx.token });
        const code = res.headers.get("content-type")?.includes("json")
          ? (await res.json()).error?.code
          : await res.text();
        if (`${res.status} ${code}` !== "400 validation_failed") {
          problems.push(`GET ${path}?${name}=${value}: ${res.status} ${code}`);
        }
      }
    }
    assert.deepEqual(problems, []);
  });

  await t.step(
    "a field refused by its schema or by what is stored: validation_failed",
    async () => {
      const org = `/organizations/${fx.ids.organizationId}`;
      const cert = await ctx.call("POST", `${org}/certifications`, {
        token: fx.token,
        json: { framework: "soc2-type2", status: "achieved" },
      });
      assert.equal(cert.status, 201);
      const certId = (await cert.json()).certification.id;
      const outOfOrder = { issuedAt: "2026-01-01T00:00:00Z", expiresAt: "2025-01-01T00:00:00Z" };
      const cases: [string, string, unknown, BodyInit?][] = [
        ["POST", `${org}/certifications`, {
          framework: "soc2-type1",
          status: "achieved",
          ...outOfOrder,
        }],
        ["PATCH", `${org}/certifications/${certId}`, outOfOrder],
        ["POST", `${org}/certifications`, {
          framework: "soc2-type1",
          status: "achieved",
          documentId: crypto.randomUUID(),
        }],
        ["PATCH", `${org}/certifications/${certId}`, { projectId: crypto.randomUUID() }],
        ["POST", `${org}/answers`, {
          question: "Q?",
          answer: "A.",
          category: "C",
          visibility: "public",
          citations: [{ kind: "document", id: crypto.randomUUID() }],
        }],
        [
          "POST",
          `${org}/documents?title=Report&visibility=public&projectId=${crypto.randomUUID()}`,
          undefined,
          await makePdf() as Uint8Array<ArrayBuffer>,
        ],
        ["POST", `${org}/answers`, {
          question: "Two\nlines?",
          answer: "A.",
          category: "C",
          visibility: "public",
        }],
        ["POST", `/projects/${fx.ids.id}/webhooks`, {
          url: "https://10.0.0.1/hooks",
          events: ["version.published"],
        }],
        ["POST", `/trust/acme/subscriptions`, { email: "not an address" }],
        ["POST", `/public/trust/${fx.ids.orgSlug}/subscriptions`, { email: "not an address" }],
        ["POST", `/public/trust/${fx.ids.orgSlug}/access-requests`, {
          name: "Vera",
          company: "Customer",
          email: "vera@customer.example",
          documentIds: [crypto.randomUUID()],
          ndaVersion: 1,
          acceptNda: true,
        }],
      ];
      await ctx.call("PUT", `${org}/nda`, { token: fx.token, json: { text: "Confidential." } });
      const problems: string[] = [];
      for (const [method, path, json, body] of cases) {
        const res = await ctx.call(method, path, {
          token: fx.token,
          json,
          body,
          headers: body ? { "content-type": "application/pdf" } : undefined,
        });
        const { error } = await res.json();
        if (`${res.status} ${error?.code}` !== "400 validation_failed") {
          problems.push(`${method} ${path}: ${res.status} ${error?.code} ${error?.message}`);
        }
      }
      const form = await ctx.call("POST", "/trust/acme/subscriptions", {
        body: new URLSearchParams({ email: "not an address" }),
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          accept: "application/json",
        },
      });
      const formCode = form.headers.get("content-type")?.includes("json")
        ? (await form.json()).error?.code
        : "validation_failed";
      if (`${form.status} ${formCode}` !== "400 validation_failed") {
        problems.push(`form subscription: ${form.status} ${formCode}`);
      }
      assert.deepEqual(problems, []);
    },
  );

  await t.step("the same refusals through the log's proofs: validation_failed", async () => {
    const problems: string[] = [];
    await ctx.call("POST", `/projects/${fx.ids.id}/publish`, { token: fx.token });
    for (const path of ["/log/entries/5/inclusion?treeSize=1", "/log/consistency?from=5&to=1"]) {
      const res = await ctx.call("GET", path);
      const { error } = await res.json();
      if (`${res.status} ${error?.code}` !== "400 validation_failed") {
        problems.push(`GET ${path}: ${res.status} ${error?.code} ${error?.message}`);
      }
    }
    assert.deepEqual(problems, []);
  });
});
