/**
 * A published public project with everything its public routes show (a vendor profile and
 * logo, a public document, an update, a subprocessor, evidence, a buyer's questionnaire), and
 * the concrete paths of /openapi.json's GET operations over it: tests that walk every public
 * route (ETags, error answers' caching) build on it.
 */
import assert from "node:assert/strict";
import type { TestApp } from "./app.ts";
import { collector, evidenceItem, sbomPayload, workspace } from "./fixtures.ts";
import { makePdf } from "./documents.ts";

const logo = () => Deno.readFileSync(new URL("../fixtures/logos/logo.png", import.meta.url));
const questionnaireFile = () =>
  Deno.readFileSync(new URL("../fixtures/questionnaires/caiq_v4.0.3.xlsx", import.meta.url));

async function ok(res: Response, what: string) {
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${what}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** A public project, published, with everything its public routes show. */
export async function world(ctx: TestApp) {
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
    module: "main.ts",
  };
  const queries: Record<string, Record<string, string>> = {
    "/log/consistency": { from: "1", to: "2" },
    "/public/trust-profiles": { query: "acme" },
  };
  return { token, params, queries };
}

export type Operation = {
  security?: unknown[];
  parameters?: Array<{ name: string; in: string; schema?: { enum?: string[] } }>;
  responses: object;
};

/** Every concrete path of a GET operation: its parameters filled, each enum value taken. */
export function concretePaths(
  template: string,
  operation: Operation,
  params: Record<string, string>,
) {
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
