/**
 * The contract test's pass over personal access tokens (docs/api_access.md): created (and a
 * bad request refused), listed, used on the organization's API, revoked, then refused.
 */
type Call = (operationId: string, spec: {
  params?: Record<string, string | number>;
  json?: unknown;
  headers?: Record<string, string>;
  auth?: "human" | "collector" | "none";
  expect: number;
  // deno-lint-ignore no-explicit-any
}) => Promise<any>;

/** `fx.human` is a member of `fx.org` who may manage its tokens. */
export async function exerciseAccessTokens(call: Call, fx: Record<string, string>) {
  const org = { organizationId: fx.org };
  await call("createAccessToken", {
    params: org,
    json: { name: "CI", scope: "read", expiresInDays: 366 },
    expect: 400,
  });
  const created = await call("createAccessToken", {
    params: org,
    json: { name: "CI", scope: "read", expiresInDays: 30 },
    expect: 201,
  });
  const listed = await call("listAccessTokens", { params: org, expect: 200 });
  if (!listed.accessTokens.some((t: { id: string }) => t.id === created.accessToken.id)) {
    throw new Error("the created access token is not listed");
  }
  const bearer = { auth: "none" as const, headers: { authorization: `Bearer ${created.token}` } };
  await call("listOrganizationProjects", { params: org, ...bearer, expect: 200 });
  const token = { ...org, tokenId: created.accessToken.id };
  await call("revokeAccessToken", { params: token, expect: 204 });
  await call("revokeAccessToken", { params: token, expect: 404 });
  await call("listOrganizationProjects", { params: org, ...bearer, expect: 401 });
}
