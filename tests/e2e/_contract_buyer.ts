/**
 * The contract test's pass over what buyers ask first: the framework catalog, members'
 * mappings of custom controls and the public framework view.
 */
type Call = (operationId: string, spec: {
  params?: Record<string, string | number>;
  query?: Record<string, string>;
  json?: unknown;
  form?: Record<string, string>;
  body?: BodyInit;
  headers?: Record<string, string>;
  auth?: "human" | "collector" | "none";
  expect: number;
  // deno-lint-ignore no-explicit-any
}) => Promise<any>;

/** Exercises every framework operation on its happy path, and a few refusals. */
export async function exerciseFrameworks(call: Call, fx: Record<string, string>) {
  const slug = { projectSlug: fx.projectSlug };
  await call("getFrameworkCatalog", { expect: 200 });
  const { mappings } = await call("listControlCriteria", {
    params: { id: fx.project },
    expect: 200,
  });
  const custom = mappings.find((m: { source: string }) => m.source === "custom");
  const item = { id: fx.project, controlId: custom.controlId };
  await call("putControlCriteria", {
    params: item,
    json: { criteria: [{ framework: "iso27001", id: "A.8.8" }] },
    expect: 200,
  });
  await call("putControlCriteria", {
    params: item,
    json: { criteria: [{ framework: "iso27001", id: "Z.1" }] },
    expect: 400,
  });
  await call("putControlCriteria", {
    params: { id: fx.project, controlId: crypto.randomUUID() },
    json: { criteria: [] },
    expect: 404,
  });
  await call("getTrustFrameworks", { params: slug, expect: 200 });
  await call("getTrustFrameworks", { params: { projectSlug: "nobody" }, expect: 404 });
  await call("getTrustFrameworksPage", { params: slug, expect: 200 });
  await call("getTrustFrameworksMarkdown", { params: slug, expect: 200 });
}
