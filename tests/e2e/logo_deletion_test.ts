/**
 * A deleted organization's logo over real HTTP, with a fake clock: its public URL answers
 * until the deletion job has run, then 404, and neither its `logos` record nor its bytes are
 * left; a logo whose bytes another organization's profile shows stays, record and bytes.
 */
import assert from "node:assert/strict";
import { DELETION_GRACE_MS } from "../../src/domain/deletion.ts";
import { fakeClock } from "../../src/lib/clock.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

const LOGOS = new URL("../fixtures/logos/", import.meta.url);

/** Runs every due job until none is (bounded). */
async function drain(server: TestServer) {
  for (let round = 0; round < 20; round++) {
    if ((await server.services.jobs.drain(10_000)) === 0) return;
  }
}

async function call(
  server: TestServer,
  method: string,
  path: string,
  options: { token?: string; json?: unknown; body?: BodyInit; type?: string } = {},
): Promise<{ status: number; body: string }> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.json !== undefined) headers["content-type"] = "application/json";
  if (options.type) headers["content-type"] = options.type;
  const res = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers,
    body: options.json === undefined ? options.body : JSON.stringify(options.json),
  });
  return { status: res.status, body: await res.text() };
}

/** Uploads the fixture `file` as the organization's logo; the path of its public URL. */
async function putLogo(server: TestServer, token: string, orgId: string, file: string) {
  const type = file.endsWith(".png") ? "image/png" : "image/webp";
  const res = await call(server, "PUT", `/organizations/${orgId}/logo`, {
    token,
    body: await Deno.readFile(new URL(file, LOGOS)),
    type,
  });
  assert.equal(res.status, 200, res.body);
  return new URL(JSON.parse(res.body).profile.logo.url).pathname;
}

/** The SHA-256 a logo's public path names. */
const shaOf = (path: string) => path.split("/").pop()!.split(".")[0];

Deno.test("[e2e] a deleted organization's logo answers 404 and leaves no record or bytes, unless another organization shows it", async () => {
  const clock = fakeClock(new Date());
  await using server = await startTestServer({ clock, worker: false });
  const owner = await server.tokenFor("owner");
  const other = await server.tokenFor("other");
  const boot = await call(server, "POST", "/onboarding/bootstrap", {
    token: owner,
    json: { workspaceName: "Acme", projectName: "Acme Cloud", projectSlug: "acme" },
  });
  assert.equal(boot.status, 201, boot.body);
  const acme = JSON.parse(boot.body).organization;
  const labs = await call(server, "POST", "/organizations", {
    token: owner,
    json: { name: "Acme Labs" },
  });
  assert.equal(labs.status, 201, labs.body);
  const labsId = JSON.parse(labs.body).organization.id;
  const initech = await call(server, "POST", "/onboarding/bootstrap", {
    token: other,
    json: { workspaceName: "Initech", projectName: "Initech App", projectSlug: "initech" },
  });
  assert.equal(initech.status, 201, initech.body);
  const initechId = JSON.parse(initech.body).organization.id;

  // Acme's logo is its own; Acme Labs shows the same bytes as Initech (one shared blob).
  const own = await putLogo(server, owner, acme.id, "logo.png");
  const shared = await putLogo(server, owner, labsId, "logo.webp");
  assert.equal(await putLogo(server, other, initechId, "logo.webp"), shared);
  for (const path of [own, shared]) {
    assert.equal((await call(server, "GET", path)).status, 200, path);
    assert.notEqual((await server.kv.get(["logos", shaOf(path)])).versionstamp, null);
    assert.notEqual((await server.kv.get(["blobs", `logo/${shaOf(path)}`])).versionstamp, null);
  }

  // Acme Labs' deletion is scheduled a minute after Acme's, so each job (and the blob
  // collection it ends with) runs at a time of its own on the fake clock.
  const labsSlug = JSON.parse(labs.body).organization.slug;
  for (const [orgId, slug] of [[acme.id, acme.slug], [labsId, labsSlug]]) {
    const scheduled = await call(server, "POST", `/organizations/${orgId}/deletion`, {
      token: owner,
      json: { confirm: slug },
    });
    assert.equal(scheduled.status, 202, scheduled.body);
    clock.advance(60_000);
  }
  // The grace can still be undone: the logo answers meanwhile.
  await drain(server);
  assert.equal((await call(server, "GET", own)).status, 200);

  clock.advance(DELETION_GRACE_MS - 90_000);
  await drain(server);
  clock.advance(60_000);
  await drain(server);
  for (const orgId of [acme.id, labsId]) {
    const state = await server.kv.get(["deletions", "organization", orgId]);
    assert.equal(state.versionstamp, null, `the deletion of ${orgId} has not run to its end`);
  }

  const gone = await call(server, "GET", own);
  assert.equal(gone.status, 404, "the deleted organization's logo still answers");
  assert.equal(JSON.parse(gone.body).error.code, "not_found");
  const sha = shaOf(own);
  const left: string[] = [];
  for await (const entry of server.kv.list({ prefix: [] })) {
    if (JSON.stringify(entry.key).includes(sha)) left.push(JSON.stringify(entry.key));
  }
  assert.deepEqual(left, [], "KV still holds the deleted organization's logo");

  // The bytes Initech still shows are kept, and answer.
  assert.equal((await call(server, "GET", shared)).status, 200);
  assert.notEqual((await server.kv.get(["logos", shaOf(shared)])).versionstamp, null);
  assert.notEqual((await server.kv.get(["blobs", `logo/${shaOf(shared)}`])).versionstamp, null);
});
