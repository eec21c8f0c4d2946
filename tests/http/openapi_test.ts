import assert from "node:assert/strict";
import { createTestApp } from "../support/app.ts";
import { lintOpenApi } from "../support/spectral.ts";

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
