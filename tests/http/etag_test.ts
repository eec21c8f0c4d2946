/**
 * Every route that sends an ETag honours If-None-Match with 304 (RFC 9110 §13.1.2). The
 * test walks every GET operation of /openapi.json against real data (a published public
 * project with a vendor profile and logo, a public document, an update, a subprocessor,
 * evidence, a buyer's questionnaire), in each format it negotiates, so a new route that sends
 * an ETag is covered without being listed here.
 */
import assert from "node:assert/strict";
import { createTestApp, type TestApp } from "../support/app.ts";
import { collector, evidenceItem, sbomPayload, workspace } from "../support/fixtures.ts";
import { makePdf } from "../support/documents.ts";

const logo = () => Deno.readFileSync(new URL("../fixtures/logos/logo.png", import.meta.url));
const questionnaireFile = () =>
  Deno.readFileSync(new URL("../fixtures/questionnaires/caiq_v4.0.3.xlsx", import.meta.url));

async function ok(res: Response, what: string) {
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${what}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** A public project, published, with everything its public routes show. */
async function world(ctx: TestApp) {
  const ws = await workspace(ctx, "owner", { projectSlug: "acme", visibility: "public" });
  const { token } = ws;
  const orgId = ws.organization.id;
  const c = await collector(ctx, ws);
  const ingested = await ok(
    await ctx.call("POST", "/ingest/evidence", {
      token: c.secret,
      json: { projectId: ws.project.id, ...evidenceItem(ctx, sbomPayload(1)) },
    }),
    "evidence",
  );
  await ok(
    await ctx.call("PATCH", `/organizations/${orgId}/profile`, {
      token,
      json: { displayName: "Acme", securityContact: { email: "security@acme.test" } },
    }),
    "profile",
  );
  const profile = await ok(
    await ctx.call("PUT", `/organizations/${orgId}/logo`, {
      token,
      body: logo() as BodyInit,
      headers: { "content-type": "image/png" },
    }),
    "logo",
  );
  await ok(
    await ctx.call("POST", `/organizations/${orgId}/subprocessors`, {
      token,
      json: { name: "AWS", purpose: "Hosting", location: "Ireland", website: "https://aws.test" },
    }),
    "subprocessor",
  );
  const document = await ok(
    await ctx.call("POST", `/organizations/${orgId}/documents?title=Report&visibility=public`, {
      token,
      body: await makePdf() as BodyInit,
      headers: { "content-type": "application/pdf" },
    }),
    "document",
  );
  const update = await ok(
    await ctx.call("POST", `/projects/${ws.project.id}/updates`, {
      token,
      json: { kind: "incident", title: "Latency", body: "Investigating." },
    }),
    "update",
  );
  await ok(await ctx.call("POST", `/projects/${ws.project.id}/publish`, { token }), "publish");
  await ok(await ctx.call("POST", `/projects/${ws.project.id}/publish`, { token }), "publish 2");
  const questionnaire = await ok(
    await ctx.call("POST", `/organizations/${orgId}/questionnaires?name=Buyer`, {
      token,
      body: questionnaireFile() as BodyInit,
      headers: { "content-type": "application/octet-stream" },
    }),
    "questionnaire",
  );
  const params: Record<string, string> = {
    projectSlug: "acme",
    orgSlug: ws.organization.slug,
    organizationId: orgId,
    id: ws.project.id,
    projectId: ws.project.id,
    recordId: ingested.record.id,
    version: "1",
    index: "0",
    fileName: new URL(profile.profile.logo.url).pathname.split("/").pop()!,
    documentId: document.document.id,
    updateId: update.update.id,
    domain: "trust.acme.test",
    token: "x".repeat(43),
    webhookId: crypto.randomUUID(),
    questionnaireId: questionnaire.questionnaire.id,
  };
  const queries: Record<string, Record<string, string>> = {
    "/log/consistency": { from: "1", to: "2" },
    "/public/trust-profiles": { query: "acme" },
  };
  return { token, params, queries };
}

type Operation = {
  security?: unknown[];
  parameters?: Array<{ name: string; in: string; schema?: { enum?: string[] } }>;
  responses: object;
};

/** Every concrete path of a GET operation: its parameters filled, each enum value taken. */
function concretePaths(template: string, operation: Operation, params: Record<string, string>) {
  let paths = [template];
  for (const parameter of operation.parameters ?? []) {
    if (parameter.in !== "path") continue;
    const values: string[] = parameter.schema?.enum ?? [params[parameter.name]];
    assert.ok(values[0] !== undefined, `no value for {${parameter.name}} of ${template}`);
    paths = paths.flatMap((path) =>
      values.map((value) => path.replace(`{${parameter.name}}`, encodeURIComponent(value)))
    );
  }
  return paths;
}

Deno.test("[http] every route that sends an ETag answers 304 to If-None-Match", async () => {
  await using ctx = await createTestApp();
  const { token, params, queries } = await world(ctx);
  const doc = await (await ctx.call("GET", "/openapi.json")).json();
  const seen: string[] = [];
  const failures: string[] = [];
  for (
    const [template, item] of Object.entries(doc.paths) as [string, Record<string, Operation>][]
  ) {
    const operation = item.get;
    if (!operation) continue;
    const auth = operation.security?.length === 0 ? undefined : token;
    for (const path of concretePaths(template, operation, params)) {
      const query = new URLSearchParams(queries[template] ?? {}).toString();
      const url = query ? `${path}?${query}` : path;
      for (const accept of [undefined, "text/html", "text/markdown", "application/json"]) {
        const headers: Record<string, string> = accept ? { accept } : {};
        const res = await ctx.call("GET", url, { token: auth, headers });
        await res.body?.cancel();
        const etag = res.headers.get("etag");
        if (res.status !== 200 || !etag) continue;
        seen.push(`${url} (${accept ?? "no Accept"})`);
        const again = await ctx.call("GET", url, {
          token: auth,
          headers: { ...headers, "if-none-match": `W/"other", ${etag}` },
        });
        const body = await again.text();
        if (again.status !== 304 || body !== "" || again.headers.get("etag") !== etag) {
          failures.push(`${url} (${accept ?? "no Accept"}): ${again.status} ${body.slice(0, 60)}`);
        }
        if (!("304" in operation.responses)) failures.push(`${template}: 304 is not documented`);
      }
    }
  }
  assert.deepEqual([...new Set(failures)], []);
  for (
    const expected of [
      "/trust/acme/controls",
      "/trust/acme/trust.json",
      "/trust/acme/feed.xml",
      `/projects/${params.id}/evidence/${params.recordId}/payload`,
      `/public/logos/${params.fileName}`,
      "/collector.ts",
    ]
  ) {
    assert.ok(seen.some((s) => s.startsWith(`${expected} `)), `${expected} was walked`);
  }
});
