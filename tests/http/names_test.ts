import assert from "node:assert/strict";
import { registerAccount, SignupFailure } from "../../src/auth/builtin/signup.ts";
import { createTestApp, snapshotKv } from "../support/app.ts";
import { documentsWorkspace, makePdf, upload } from "../support/documents.ts";

/** Control characters a name could carry into an email subject or a header. */
const CONTROLS: Record<string, string> = {
  "CR LF and a header": "Acme\r\nBcc: victim@evil.test",
  LF: "Acme\nCloud",
  CR: "Acme\rCloud",
  tab: "Acme\tCloud",
  NUL: "Acme\u0000Cloud",
  ESC: "Acme\u001bCloud",
  DEL: "Acme\u007fCloud",
  "C1 next line": "Acme\u0085Cloud",
  "C1 CSI": "Acme\u009bCloud",
  "line separator": "Acme\u2028Cloud",
};

Deno.test("[http] names and titles refuse control characters with 400 and change nothing", async (t) => {
  await using ctx = await createTestApp();
  const ws = await documentsWorkspace(ctx);
  const { owner, orgId, projectId, orgSlug } = ws;
  await ctx.call("PUT", `/organizations/${orgId}/nda`, { token: owner, json: { text: "NDA" } });
  const restricted = (await (await upload(ctx, orgId, {
    token: owner,
    bytes: await makePdf(),
  })).json()).document.id;
  const controls = (await (await ctx.call("GET", `/projects/${projectId}/controls`, {
    token: owner,
  })).json()).controls;
  const subprocessor = {
    name: "Amazon Web Services",
    purpose: "Cloud hosting",
    location: "Ireland",
    website: "https://aws.amazon.com",
  };
  /** Each request that carries a name or title, given that value; `field` names it. */
  const requests: Array<
    { field: string; method: string; path: (v: string) => string; json?: (v: string) => unknown }
  > = [
    { field: "name", method: "POST", path: () => "/organizations", json: (name) => ({ name }) },
    {
      field: "workspaceName",
      method: "POST",
      path: () => "/onboarding/bootstrap",
      json: (workspaceName) => ({ workspaceName, projectName: "Acme Cloud" }),
    },
    {
      field: "projectName",
      method: "POST",
      path: () => "/onboarding/bootstrap",
      json: (projectName) => ({ workspaceName: "Acme", projectName }),
    },
    {
      field: "name",
      method: "POST",
      path: () => "/projects",
      json: (name) => ({ organizationId: orgId, name }),
    },
    {
      field: "name",
      method: "PATCH",
      path: () => `/projects/${projectId}`,
      json: (name) => ({ name }),
    },
    {
      field: "name",
      method: "POST",
      path: () => `/projects/${projectId}/collectors`,
      json: (name) => ({ name }),
    },
    {
      field: "publicName",
      method: "POST",
      path: () => `/projects/${projectId}/controls`,
      json: (publicName) => ({ key: "custom.named", publicName, evidenceType: "sbom" }),
    },
    {
      field: "publicName",
      method: "PATCH",
      path: () => `/projects/${projectId}/controls/${controls[0].id}`,
      json: (publicName) => ({ publicName }),
    },
    {
      field: "displayName",
      method: "PATCH",
      path: () => `/organizations/${orgId}/profile`,
      json: (displayName) => ({ displayName }),
    },
    {
      field: "name",
      method: "POST",
      path: () => `/organizations/${orgId}/subprocessors`,
      json: (name) => ({ ...subprocessor, name }),
    },
    {
      field: "location",
      method: "POST",
      path: () => `/organizations/${orgId}/subprocessors`,
      json: (location) => ({ ...subprocessor, name: "Mailer", location }),
    },
    {
      field: "title",
      method: "POST",
      path: () => `/projects/${projectId}/updates`,
      json: (title) => ({ kind: "change", title, body: "Details." }),
    },
    {
      field: "title",
      method: "POST",
      path: (title) => `/organizations/${orgId}/documents?title=${encodeURIComponent(title)}`,
    },
    {
      field: "name",
      method: "POST",
      path: () => `/public/trust/${orgSlug}/access-requests`,
      json: (name) => ({
        name,
        email: "vera@customer.test",
        company: "Customer Inc",
        documentIds: [restricted],
        ndaVersion: 1,
        acceptNda: true,
      }),
    },
  ];
  const send = async (request: (typeof requests)[number], value: string) => {
    const json = request.json?.(value);
    const pdf = json === undefined ? await makePdf() : undefined;
    return await ctx.call(request.method, request.path(value), {
      token: owner,
      json,
      body: pdf as Uint8Array<ArrayBuffer> | undefined,
      headers: pdf ? { "content-type": "application/pdf" } : {},
    });
  };

  const before = await snapshotKv(ctx.kv);
  for (const [name, value] of Object.entries(CONTROLS)) {
    await t.step(name, async () => {
      for (const request of requests) {
        const res = await send(request, value);
        const where = `${request.method} ${request.path("x")} ${request.field}`;
        assert.equal(res.status, 400, where);
        const { error } = await res.json();
        assert.equal(error.code, "validation_failed", where);
        assert.match(error.message, new RegExp(`"${request.field}".*control characters`), where);
      }
    });
  }
  assert.equal(await snapshotKv(ctx.kv), before, "nothing was stored");

  await t.step("the same requests with a plain name succeed", async () => {
    for (const request of requests.filter((r) => !r.path("x").includes("bootstrap"))) {
      const res = await send(request, "Acme Cloud – Région «Ouest» 東京");
      const text = await res.text();
      assert.ok(res.status < 300, `${request.method} ${request.path("x")}: ${res.status} ${text}`);
    }
  });
});

Deno.test("[auth] registerAccount() refuses a name with control characters", async (t) => {
  await using ctx = await createTestApp();
  for (const [name, value] of Object.entries(CONTROLS)) {
    await t.step(name, async () => {
      const attempt = registerAccount(ctx, {
        email: "new@acme.test",
        name: value,
        password: "a long enough password",
      });
      const error = await attempt.catch((e) => e);
      assert.ok(error instanceof SignupFailure);
      assert.equal(error.status, 400);
      assert.match(error.message, /one line without control characters/);
    });
  }
});
