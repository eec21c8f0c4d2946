/**
 * The contract test's pass over deletion (docs/lifecycle.md#deletion): a project's and the
 * organization's deletion scheduled, read and undone (with the typed confirmation refused once),
 * the erase links with unknown tokens, and account deletion refused for the last owner and done
 * for a person without organizations. Undone at once, so later steps see everything as it was.
 */
type Call = (operationId: string, spec: {
  params?: Record<string, string | number>;
  json?: unknown;
  expect: number;
  // deno-lint-ignore no-explicit-any
}) => Promise<any>;

/** `fx.human` is the organization's owner; `fx.spare` a person with no organization. */
export async function exerciseDeletion(call: Call, fx: Record<string, string>) {
  const project = { id: fx.second };
  const { project: { slug } } = await call("getProject", { params: project, expect: 200 });
  await call("getProjectDeletion", { params: project, expect: 200 });
  await call("scheduleProjectDeletion", { params: project, json: { confirm: "x" }, expect: 400 });
  await call("scheduleProjectDeletion", { params: project, json: { confirm: slug }, expect: 202 });
  await call("scheduleProjectDeletion", { params: project, json: { confirm: slug }, expect: 409 });
  await call("getProjectDeletion", { params: project, expect: 200 });
  await call("cancelProjectDeletion", { params: project, expect: 204 });
  await call("cancelProjectDeletion", { params: project, expect: 404 });

  const org = { organizationId: fx.org };
  const confirm = { confirm: fx.orgSlug };
  await call("scheduleOrganizationDeletion", { params: org, json: { confirm: "x" }, expect: 400 });
  await call("scheduleOrganizationDeletion", { params: org, json: confirm, expect: 202 });
  await call("getOrganizationDeletion", { params: org, expect: 200 });
  await call("cancelOrganizationDeletion", { params: org, expect: 204 });
  await call("cancelOrganizationDeletion", { params: org, expect: 404 });

  await call("eraseSubscriber", {
    params: { token: `${crypto.randomUUID()}.${"a".repeat(43)}` },
    expect: 404,
  });
  await call("eraseAccessVisitor", { params: { token: "A".repeat(43) }, expect: 404 });

  await call("deleteMyAccount", { json: { confirm: "owner@example.com" }, expect: 409 });
  const owner = fx.human;
  fx.human = fx.spare;
  await call("deleteMyAccount", { json: { confirm: "spare@example.com" }, expect: 200 });
  fx.human = owner;
}
