/**
 * The contract test's pass over retention and usage (docs/lifecycle.md): the settings of a
 * project and of its organization read, set, refused out of range and set back to inherit, a
 * pruning run, and the organization's usage report.
 */
type Call = (operationId: string, spec: {
  params?: Record<string, string | number>;
  json?: unknown;
  expect: number;
  // deno-lint-ignore no-explicit-any
}) => Promise<any>;

/** `fx.human` is the organization's owner. */
export async function exerciseRetention(call: Call, fx: Record<string, string>) {
  const project = { id: fx.project };
  const org = { organizationId: fx.org };
  const inherit = { days: null, recordsPerType: null };
  await call("getProjectRetention", { params: project, expect: 200 });
  await call("setProjectRetention", {
    params: project,
    json: { days: 0, recordsPerType: null },
    expect: 400,
  });
  await call("setProjectRetention", {
    params: project,
    json: { days: 30, recordsPerType: 5 },
    expect: 200,
  });
  await call("setProjectRetention", { params: project, json: inherit, expect: 200 });
  await call("getOrganizationRetention", { params: org, expect: 200 });
  await call("setOrganizationRetention", {
    params: org,
    json: { days: 120, recordsPerType: null },
    expect: 200,
  });
  await call("setOrganizationRetention", { params: org, json: inherit, expect: 200 });
  await call("pruneProjectEvidence", { params: project, expect: 200 });
  await call("getOrganizationUsage", { params: org, expect: 200 });
}
