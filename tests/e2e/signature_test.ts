/**
 * An outside verifier, using jose only and the public HTTP routes, checks
 * the signature and hash chain of every published version.
 */
import assert from "node:assert/strict";
import {
  compactVerify,
  createRemoteJWKSet,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
} from "jose";
import { startTestServer } from "../support/server.ts";

async function sha256(bytes: Uint8Array) {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return `sha256:${
    Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("")
  }`;
}

Deno.test("[e2e] every published version verifies against /.well-known/jwks.json", async () => {
  await using server = await startTestServer({ worker: false });
  const token = await server.tokenFor("alice");
  const auth = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const { project } = await (await fetch(`${server.baseUrl}/onboarding/bootstrap`, {
    method: "POST",
    headers: auth,
    body: JSON.stringify({
      workspaceName: "Acme",
      projectName: "API",
      projectSlug: "acme",
      projectVisibility: "public",
    }),
  })).json();
  for (let i = 0; i < 4; i++) {
    const res = await fetch(`${server.baseUrl}/projects/${project.id}/publish`, {
      method: "POST",
      headers: auth,
    });
    assert.equal(res.status, 201);
    await res.body?.cancel();
  }

  const keys = createRemoteJWKSet(new URL(`${server.baseUrl}/.well-known/jwks.json`));
  let previous: string | null = null;
  for (let version = 1; version <= 4; version++) {
    const base = `${server.baseUrl}/trust/acme/versions/${version}`;
    const trustJson = new Uint8Array(await (await fetch(`${base}/trust.json`)).arrayBuffer());
    const jws = await (await fetch(`${base}/trust.json.jws`)).text();
    const { payload, protectedHeader } = await compactVerify(jws, keys, { algorithms: ["EdDSA"] });
    assert.deepEqual(
      payload,
      trustJson,
      `version ${version}: the JWS signs the exact trust.json bytes`,
    );
    assert.equal(protectedHeader.ver, version);
    assert.equal(protectedHeader.prev, previous, `version ${version} chains to the one before`);
    assert.ok(protectedHeader.kid);
    previous = await sha256(trustJson);
  }

  const latest = new Uint8Array(
    await (await fetch(`${server.baseUrl}/trust/acme/trust.json`)).arrayBuffer(),
  );
  const latestJws = await (await fetch(`${server.baseUrl}/trust/acme/trust.json.jws`)).text();
  assert.equal(decodeProtectedHeader(latestJws).ver, 4);
  const { payload } = await compactVerify(latestJws, keys);
  assert.deepEqual(payload, latest);

  const tampered = latest.slice();
  const at = new TextDecoder().decode(tampered).indexOf('"version"');
  tampered[at + 1] = "V".charCodeAt(0);
  assert.notDeepEqual(
    payload,
    tampered,
    "a trust.json with one byte changed is not what was signed",
  );
  const [header, , signature] = latestJws.split(".");
  const forged = `${header}.${
    btoa(String.fromCharCode(...tampered)).replace(/\+/g, "-").replace(/\//g, "_").replace(
      /=+$/,
      "",
    )
  }.${signature}`;
  await assert.rejects(() => compactVerify(forged, keys), /signature verification failed/);
});

Deno.test("[e2e] rotating the publication key keeps every earlier version verifiable", async () => {
  const privateJwk = async () => {
    const { privateKey } = await generateKeyPair("EdDSA", { extractable: true });
    return JSON.stringify(await exportJWK(privateKey));
  };
  using kv = await Deno.openKv(":memory:");
  const slug = "rotating";
  const publishTwice = async (signingKey: string) => {
    await using server = await startTestServer({
      worker: false,
      kv,
      env: { SIGNING_KEY: signingKey },
    });
    const token = await server.tokenFor("rita");
    const auth = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const created = await (await fetch(`${server.baseUrl}/onboarding/bootstrap`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({
        workspaceName: "Rita",
        projectName: "Rotating",
        projectSlug: slug,
        projectVisibility: "public",
      }),
    })).json();
    const projectId: string = created.project.id;
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${server.baseUrl}/projects/${projectId}/publish`, {
        method: "POST",
        headers: auth,
      });
      assert.equal(res.status, 201);
      await res.body?.cancel();
    }
    return projectId;
  };
  const first = await privateJwk();
  const projectId = await publishTwice(first);
  const second = await privateJwk();
  await using server = await startTestServer({ worker: false, kv, env: { SIGNING_KEY: second } });
  const token = await server.tokenFor("rita");
  for (let i = 0; i < 2; i++) {
    const res = await fetch(`${server.baseUrl}/projects/${projectId}/publish`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(res.status, 201);
    await res.body?.cancel();
  }
  const jwks = await (await fetch(`${server.baseUrl}/.well-known/jwks.json`)).json();
  const kids = jwks.keys.map((k: { kid: string }) => k.kid);
  const keys = createRemoteJWKSet(new URL(`${server.baseUrl}/.well-known/jwks.json`));
  const signedBy = new Set<string>();
  for (let version = 1; version <= 4; version++) {
    const base = `${server.baseUrl}/trust/${slug}/versions/${version}`;
    const jws = await (await fetch(`${base}/trust.json.jws`)).text();
    const { protectedHeader } = await compactVerify(jws, keys, { algorithms: ["EdDSA"] });
    signedBy.add(protectedHeader.kid!);
    assert.ok(kids.includes(protectedHeader.kid), `version ${version}'s key is published`);
  }
  assert.equal(signedBy.size, 2, "versions 1-2 and 3-4 were signed by different keys");
  assert.equal(
    kids[0],
    decodeProtectedHeader(
      await (await fetch(`${server.baseUrl}/trust/${slug}/trust.json.jws`)).text(),
    ).kid,
    "the key in use comes first",
  );
});
