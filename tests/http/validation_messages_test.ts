import assert from "node:assert/strict";
import { createTestApp, snapshotKv } from "../support/app.ts";
import { workspace } from "../support/fixtures.ts";

Deno.test("[http] validation messages say what to do, with the field they concern", async (t) => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "alice");
  const profile = `/organizations/${ws.organization.id}/profile`;
  const cases: [string, string, string, unknown, string][] = [
    [
      "an http:// website",
      "PATCH",
      profile,
      { website: "http://acme.example" },
      'Field "website": must start with https:// (not http://), e.g. https://acme.example',
    ],
    [
      "a website without a scheme",
      "PATCH",
      profile,
      { website: "acme.example" },
      'Field "website": must be a full address starting with https://, e.g. https://acme.example',
    ],
    [
      "a website on an IP address",
      "PATCH",
      profile,
      { website: "https://10.0.0.1" },
      'Field "website": must be an https:// address with a domain name, e.g. https://acme.example',
    ],
    [
      "an email that is not one",
      "POST",
      `/organizations/${ws.organization.id}/invitations`,
      { email: "security", role: "member" },
      'Field "email": must be an email address, e.g. name@example.com',
    ],
    [
      "a missing name",
      "POST",
      "/projects",
      { organizationId: ws.organization.id, slug: "x" },
      'Field "name": is required',
    ],
    [
      "a name of the wrong type",
      "POST",
      `/projects/${ws.project.id}/collectors`,
      { name: 7 },
      'Field "name": must be text',
    ],
    [
      "an empty name",
      "POST",
      `/projects/${ws.project.id}/collectors`,
      { name: "" },
      'Field "name": must not be empty',
    ],
    [
      "a name too long",
      "POST",
      `/projects/${ws.project.id}/collectors`,
      { name: "x".repeat(201) },
      'Field "name": must have at most 200 characters',
    ],
    ["an unknown choice", "POST", `/projects/${ws.project.id}/collectors`, {
      name: "ci",
      allowedActions: ["fly"],
    }, 'Field "allowedActions.0": must be one of "heartbeat", "ingest:evidence", "ingest:signals"'],
  ];
  for (const [name, method, path, json, message] of cases) {
    await t.step(name, async () => {
      const before = await snapshotKv(ctx.kv);
      const res = await ctx.call(method, path, { token: ws.token, json });
      assert.equal(res.status, 400);
      assert.deepEqual(await res.json(), { error: { code: "validation_failed", message } });
      assert.deepEqual(await snapshotKv(ctx.kv), before, "nothing changed");
    });
  }
});
