import assert from "node:assert/strict";
import { createTestApp } from "../support/app.ts";
import { lintOpenApi, lintWithRedocly } from "../support/openapi_linters.ts";

/** Served for people, not as API: the dashboard's pages and files, and the redirect to it. */
function isUiRoute(route: string): boolean {
  const [method, path] = route.split(" ");
  return method === "GET" &&
    (path === "/" || path.startsWith("/static/") ||
      (path.startsWith("/dashboard") && !path.endsWith(".json")));
}

async function openApi() {
  const ctx = await createTestApp();
  const res = await ctx.call("GET", "/openapi.json");
  assert.equal(res.status, 200);
  const doc = await res.json();
  return { ctx, doc };
}

Deno.test("[openapi] the document is OpenAPI 3.1, version 1.0.0, with the spec's component names", async () => {
  const { ctx, doc } = await openApi();
  await using _ = ctx;
  assert.equal(doc.openapi, "3.1.0");
  assert.equal(doc.info.version, "1.0.0");
  for (
    const name of [
      "ApiError",
      "HealthStatus",
      "User",
      "Organization",
      "OrganizationSummary",
      "OrganizationMember",
      "OrganizationMemberSummary",
      "OrganizationMembersResponse",
      "Project",
      "BootstrapWorkspaceRequest",
      "BootstrapWorkspaceResponse",
      "TrustControl",
      "TrustControlListResponse",
      "FreshnessPolicy",
      "DegradationPolicy",
    ]
  ) {
    assert.ok(doc.components.schemas[name], `components.schemas.${name}`);
  }
  assert.deepEqual(doc.components.securitySchemes.humanBearer, {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description: doc.components.securitySchemes.humanBearer.description,
  });
});

Deno.test("[openapi] every route the app serves is described", async () => {
  const { ctx, doc } = await openApi();
  await using _ = ctx;
  const described = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths as Record<string, object>)) {
    for (const method of Object.keys(item)) {
      described.add(`${method.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ":$1")}`);
    }
  }
  const served = new Set(
    ctx.app.routes.filter((r) => r.method !== "ALL").map((r) => `${r.method} ${r.path}`),
  );
  const undocumented = [...served].filter((r) => !described.has(r) && !isUiRoute(r));
  assert.deepEqual(undocumented, [], undocumented.join(", "));
  const phantom = [...described].filter((r) => !served.has(r));
  assert.deepEqual(phantom, [], "nothing is described that is not served");
});

Deno.test("[openapi] Spectral (spectral:oas) reports no errors", async () => {
  const { ctx, doc } = await openApi();
  await using _ = ctx;
  const findings = await lintOpenApi(doc);
  const errors = findings.filter((f) => f.severity === 0);
  assert.deepEqual(errors.map((e) => `${e.code} ${e.path.join(".")}: ${e.message}`), []);
});

Deno.test("[openapi] Redocly (recommended ruleset) reports no errors", async () => {
  const { ctx, doc } = await openApi();
  await using _ = ctx;
  const problems = await lintWithRedocly(doc);
  const errors = problems.filter((p) => p.severity === "error");
  assert.deepEqual(
    errors.map((e) => `${e.ruleId} ${e.location[0]?.pointer}: ${e.message}`),
    [],
  );
});

type Schema = Record<string, unknown>;
type Operation = {
  operationId: string;
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ name: string; schema: Schema }>;
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
};

function eachOperation(doc: { paths: Record<string, Record<string, Operation>> }) {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ path, method, op }))
  );
}

/** Strings without maxLength (enum and const aside) and arrays without maxItems in `schema`. */
function unbounded(schema: Schema, at: string, components: Record<string, Schema>): string[] {
  const seen = new Set<string>();
  const walk = (node: Schema, where: string): string[] => {
    if (typeof node.$ref === "string") {
      const name = node.$ref.split("/").pop()!;
      if (seen.has(name)) return [];
      seen.add(name);
      return walk(components[name], where);
    }
    const types = [node.type].flat();
    const out: string[] = [];
    if (types.includes("string") && !("maxLength" in node || "enum" in node || "const" in node)) {
      out.push(`${where}: string without maxLength`);
    }
    if (types.includes("array") && !("maxItems" in node)) {
      out.push(`${where}: array without maxItems`);
    }
    for (const key of ["anyOf", "oneOf", "allOf"]) {
      for (const child of (node[key] as Schema[] | undefined) ?? []) {
        out.push(...walk(child, where));
      }
    }
    for (const [name, child] of Object.entries((node.properties as Record<string, Schema>) ?? {})) {
      out.push(...walk(child, `${where}.${name}`));
    }
    if (node.items && typeof node.items === "object") {
      out.push(...walk(node.items as Schema, `${where}[]`));
    }
    return out;
  };
  return walk(schema, at);
}

Deno.test("[openapi] every string and array a request carries is bounded, as the server enforces", async () => {
  const { ctx, doc } = await openApi();
  await using _ = ctx;
  const problems = eachOperation(doc).flatMap(({ op }) => [
    ...(op.parameters ?? []).flatMap((p) =>
      unbounded(p.schema, `${op.operationId} ${p.name}`, doc.components.schemas)
    ),
    ...Object.values(op.requestBody?.content ?? {}).flatMap((c) =>
      unbounded(c.schema, `${op.operationId} body`, doc.components.schemas)
    ),
  ]);
  assert.deepEqual(problems, []);
});

Deno.test("[openapi] every operation says whether it needs credentials", async () => {
  const { ctx, doc } = await openApi();
  await using _ = ctx;
  assert.deepEqual(doc.security, [{ humanBearer: [] }], "credentials are the default");
  const bySecurity = new Map<string, string>();
  for (const { op } of eachOperation(doc)) {
    assert.ok(Array.isArray(op.security), `${op.operationId} declares security`);
    bySecurity.set(op.operationId, JSON.stringify(op.security));
  }
  for (
    const id of [
      "health",
      "getOpenApi",
      "getJwks",
      "getTrustJson",
      "getOrganizationTrustCenter",
      "getCollectorCli",
      "token",
      "authorize",
      "signupSubmit",
      "getLlmsTxt",
    ]
  ) assert.equal(bySecurity.get(id), "[]", `${id} is public`);
  for (
    const id of ["ingestEvidence", "ingestEvidenceBatch", "ingestSignals", "collectorHeartbeat"]
  ) {
    assert.equal(bySecurity.get(id), JSON.stringify([{ collectorBearer: [] }]), id);
  }
  assert.equal(bySecurity.get("getProject"), JSON.stringify([{ humanBearer: [] }]));
  // MCP: anyone, and a buyer token adds what its organization is granted.
  assert.equal(bySecurity.get("postMcpMessage"), JSON.stringify([{}, { buyerBearer: [] }]));
});

Deno.test("[openapi] errors answered around every handler are documented in the operation's shape", async () => {
  const { ctx, doc } = await openApi();
  await using _ = ctx;
  for (const { method, op } of eachOperation(doc)) {
    const statuses = ["500", ...(method === "get" ? [] : ["400", "413"])];
    if (op.requestBody) statuses.push("415");
    for (const status of statuses) {
      assert.ok(op.responses[status], `${op.operationId} documents ${status}`);
    }
  }
  const media = (id: string, status: string) => {
    const op = eachOperation(doc).find((o) => o.op.operationId === id)!.op;
    return JSON.stringify(op.responses[status].content);
  };
  assert.match(media("signupSubmit", "413"), /text\/html/);
  assert.match(media("signupForm", "400"), /text\/html/);
  assert.match(media("authorizeSubmit", "415"), /text\/html/);
  assert.match(media("token", "415"), /OAuthError/);
  assert.match(media("revokeToken", "413"), /OAuthError/);
  assert.match(media("createProject", "500"), /ApiError/);
});

Deno.test("[openapi] no two schemas of the source claim one component name", async () => {
  // zod-openapi keeps one of two schemas registered under a name, so the other's operations are
  // documented with the wrong shape (a questionnaire was once described as the answers' enum).
  const owners = new Map<string, string[]>();
  const walk = async (dir: URL) => {
    for await (const entry of Deno.readDir(dir)) {
      const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
      if (entry.isDirectory) await walk(url);
      else if (entry.name.endsWith(".ts")) {
        const text = await Deno.readTextFile(url);
        for (const [, name] of text.matchAll(/\.openapi\(\s*"([A-Za-z0-9_]+)"/g)) {
          owners.set(name, [...owners.get(name) ?? [], url.pathname.split("/src/")[1]]);
        }
      }
    }
  };
  await walk(new URL("../../src/", import.meta.url));
  assert.ok(owners.size > 50, "the source's component names were found");
  const shared = [...owners].filter(([, files]) => files.length > 1);
  assert.deepEqual(shared, []);
});
