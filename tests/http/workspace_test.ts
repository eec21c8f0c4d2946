import assert from "node:assert/strict";
import { createTestApp } from "../support/app.ts";

async function body(res: Response) {
  assert.match(res.headers.get("content-type") ?? "", /application\/json/);
  return await res.json();
}

Deno.test("[http] workspace: bootstrap, organizations, projects", async (t) => {
  await using ctx = await createTestApp();
  const alice = await ctx.tokenFor("alice", { email: "alice@acme.test", name: "Alice" });

  await t.step("GET /me creates the user on first sight", async () => {
    const res = await ctx.call("GET", "/me", { token: alice });
    assert.equal(res.status, 200);
    const me = await body(res);
    assert.equal(me.user.idpSub, "alice");
    assert.equal(me.user.email, "alice@acme.test");
    assert.deepEqual(me.organizations, []);
  });

  let orgId = "";
  let projectId = "";
  await t.step("bootstrap answers 201 with a private project and its catalog", async () => {
    const res = await ctx.call("POST", "/onboarding/bootstrap", {
      token: alice,
      json: { workspaceName: "Acme Corp", projectName: "Acme API" },
    });
    assert.equal(res.status, 201);
    const { organization, project } = await body(res);
    assert.equal(organization.slug, "acme-corp");
    assert.equal(project.slug, "acme-api");
    assert.equal(project.visibility, "private");
    assert.equal(project.hostedSubdomain, null);
    orgId = organization.id;
    projectId = project.id;
    const controls = await body(
      await ctx.call("GET", `/projects/${projectId}/controls`, { token: alice }),
    );
    assert.equal(controls.controls.length, 7);
    assert.equal(controls.controls[0].key, "collector.heartbeat");
  });

  await t.step("a second bootstrap answers 409", async () => {
    const res = await ctx.call("POST", "/onboarding/bootstrap", {
      token: alice,
      json: { workspaceName: "Again", projectName: "Again" },
    });
    assert.equal(res.status, 409);
    assert.equal((await body(res)).error.code, "conflict");
  });

  await t.step("/me lists the organization with the owner role", async () => {
    const me = await body(await ctx.call("GET", "/me", { token: alice }));
    assert.deepEqual(me.organizations, [{
      id: orgId,
      name: "Acme Corp",
      slug: "acme-corp",
      role: "owner",
    }]);
  });

  await t.step("project slugs are unique across organizations", async () => {
    const bob = await ctx.tokenFor("bob");
    const res = await ctx.call("POST", "/onboarding/bootstrap", {
      token: bob,
      json: { workspaceName: "Bob Inc", projectName: "Thing", projectSlug: "acme-api" },
    });
    assert.equal(res.status, 409);
    assert.match((await body(res)).error.message, /"acme-api" is already taken/);
    const derived = await ctx.call("POST", "/onboarding/bootstrap", {
      token: bob,
      json: { workspaceName: "Acme Corp", projectName: "Acme API" },
    });
    assert.equal(derived.status, 201);
    const { organization, project } = await body(derived);
    assert.equal(organization.slug, "acme-corp-2");
    assert.equal(project.slug, "acme-api-2");
  });

  await t.step("create and list projects; hosted subdomains are unique", async () => {
    const res = await ctx.call("POST", "/projects", {
      token: alice,
      json: { organizationId: orgId, name: "Web", hostedSubdomain: "acme", visibility: "public" },
    });
    assert.equal(res.status, 201);
    const { project } = await body(res);
    assert.equal(project.visibility, "public");
    const clash = await ctx.call("POST", "/projects", {
      token: alice,
      json: { organizationId: orgId, name: "Web 2", hostedSubdomain: "acme" },
    });
    assert.equal(clash.status, 409);
    const list = await body(
      await ctx.call("GET", `/organizations/${orgId}/projects`, { token: alice }),
    );
    assert.deepEqual(list.projects.map((p: { slug: string }) => p.slug), ["acme-api", "web"]);
  });

  await t.step("PATCH changes metadata; slug is refused and nothing changes", async () => {
    const res = await ctx.call("PATCH", `/projects/${projectId}`, {
      token: alice,
      json: { name: "Acme Public API", visibility: "public" },
    });
    assert.equal(res.status, 200);
    const { project } = await body(res);
    assert.equal(project.name, "Acme Public API");
    assert.equal(project.slug, "acme-api");

    const refused = await ctx.call("PATCH", `/projects/${projectId}`, {
      token: alice,
      json: { name: "Renamed", slug: "other" },
    });
    assert.equal(refused.status, 400);
    const error = (await body(refused)).error;
    assert.equal(error.code, "validation_failed");
    assert.match(error.message, /slug/);
    const after = await body(await ctx.call("GET", `/projects/${projectId}`, { token: alice }));
    assert.equal(after.project.name, "Acme Public API");
    assert.equal(after.project.slug, "acme-api");
  });
});

Deno.test("[http] bootstrap: 20 concurrent calls by one user give exactly one 201", async () => {
  await using ctx = await createTestApp();
  const token = await ctx.tokenFor("racer");
  await ctx.call("GET", "/me", { token });
  const responses = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      ctx.call("POST", "/onboarding/bootstrap", {
        token,
        json: { workspaceName: `Race ${i}`, projectName: `Race ${i}` },
      })),
  );
  const statuses = responses.map((r) => r.status).sort();
  await Promise.all(responses.map((r) => r.body?.cancel()));
  assert.deepEqual(statuses, [201, ...Array(19).fill(409)]);
  const me = await (await ctx.call("GET", "/me", { token })).json();
  assert.equal(me.organizations.length, 1);
});

Deno.test("[http] members and invitations", async (t) => {
  await using ctx = await createTestApp();
  const owner = await ctx.tokenFor("owner", { email: "owner@acme.test" });
  const invitee = await ctx.tokenFor("invitee", { email: "Dev@Acme.test" });
  const stranger = await ctx.tokenFor("stranger", { email: "x@else.test" });
  const { organization } = await (await ctx.call("POST", "/onboarding/bootstrap", {
    token: owner,
    json: { workspaceName: "Acme", projectName: "API" },
  })).json();
  const orgPath = `/organizations/${organization.id}`;

  let acceptUrl = "";
  await t.step("owners invite; the accept URL is shown once", async () => {
    const res = await ctx.call("POST", `${orgPath}/invitations`, {
      token: owner,
      json: { email: "dev@acme.test", role: "member" },
    });
    assert.equal(res.status, 201);
    const json = await res.json();
    acceptUrl = json.acceptUrl;
    assert.equal(json.invitation.email, "dev@acme.test");
    assert.match(acceptUrl, /^http:\/\/trust\.test\/dashboard\/#invitation=[A-Za-z0-9_-]{43}$/);
  });
  const token = acceptUrl.split("=")[1];

  await t.step("someone else cannot accept it", async () => {
    const res = await ctx.call("POST", `/invitations/${token}/accept`, { token: stranger });
    assert.equal(res.status, 403);
  });

  await t.step("the invited user accepts and becomes a member", async () => {
    const res = await ctx.call("POST", `/invitations/${token}/accept`, { token: invitee });
    assert.equal(res.status, 200);
    assert.equal((await res.json()).membership.role, "member");
    const again = await ctx.call("POST", `/invitations/${token}/accept`, { token: invitee });
    assert.equal(again.status, 404);
    const members = await (await ctx.call("GET", `${orgPath}/members`, { token: invitee })).json();
    assert.equal(members.members.length, 2);
  });

  await t.step("members cannot invite or remove others", async () => {
    const res = await ctx.call("POST", `${orgPath}/invitations`, {
      token: invitee,
      json: { email: "x@acme.test", role: "owner" },
    });
    assert.equal(res.status, 403);
    const me = await (await ctx.call("GET", "/me", { token: owner })).json();
    const del = await ctx.call("DELETE", `${orgPath}/members/${me.user.id}`, { token: invitee });
    assert.equal(del.status, 403);
  });

  await t.step("the last owner cannot be removed; a member can be", async () => {
    const me = await (await ctx.call("GET", "/me", { token: owner })).json();
    const last = await ctx.call("DELETE", `${orgPath}/members/${me.user.id}`, { token: owner });
    assert.equal(last.status, 409);
    const memberMe = await (await ctx.call("GET", "/me", { token: invitee })).json();
    const del = await ctx.call("DELETE", `${orgPath}/members/${memberMe.user.id}`, {
      token: owner,
    });
    assert.equal(del.status, 204);
    const gone = await ctx.call("GET", orgPath, { token: invitee });
    assert.equal(gone.status, 403);
  });
});
