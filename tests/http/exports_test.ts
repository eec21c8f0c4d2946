/**
 * The standard exports of a published version: OSCAL Assessment Results valid against NIST's
 * official JSON schema, a SLSA Verification Summary in DSSE checked by a verifier written here
 * from the DSSE spec (PAE + Ed25519 via WebCrypto against the JWKS key), and a Security
 * Insights document (its content and validity: security_insights_test.ts); each served as
 * stored, signed with the publication key, immutable per version.
 */
import assert from "node:assert/strict";
import { compactVerify, importJWK, type JWK } from "jose";
import { addFormats, Ajv } from "../deps.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { collector, evidenceItem, publishVersion, workspace } from "../support/fixtures.ts";

const OSCAL_SCHEMA = JSON.parse(
  await Deno.readTextFile(
    new URL("../fixtures/oscal/oscal_assessment-results_schema.json", import.meta.url),
  ),
);

/** Ajv for draft-07 (the OSCAL schemas' dialect) with the formats they use. */
function oscalValidator(): { (data: unknown): boolean; errors?: unknown[] | null } {
  // Not strict: the generated NIST schema carries annotations (`$comment`, titles next to
  // `$ref`) that Ajv's strict mode rejects as authoring mistakes; every assertion applies.
  const ajv = new Ajv({ strict: false, allErrors: true });
  (addFormats as unknown as (a: unknown) => void)(ajv);
  return ajv.compile(OSCAL_SCHEMA);
}

async function send(ctx: TestApp, secret: string, path: string, body: unknown) {
  const res = await ctx.call("POST", path, {
    headers: { authorization: `Bearer ${secret}` },
    json: body,
  });
  const text = await res.text();
  assert.ok(res.status === 200 || res.status === 201, `${path}: ${text}`);
}

/** A public project with a failing scan, a passing SBOM and (optionally) signals; published. */
async function published(ctx: TestApp, options: { signals?: boolean } = {}) {
  const ws = await workspace(ctx, "alice", { projectSlug: "acme", visibility: "public" });
  const { secret } = await collector(ctx, ws);
  const projectId = ws.project.id;
  await send(ctx, secret, "/ingest/evidence", {
    projectId,
    ...evidenceItem(ctx, { summary: { critical: 2, high: 0, medium: 1 } }, {
      evidenceType: "vulnerability_scan",
      minutesAgo: 30,
    }),
  });
  await send(ctx, secret, "/ingest/evidence", {
    projectId,
    ...evidenceItem(ctx, { bomFormat: "CycloneDX", specVersion: "1.5", components: [] }),
  });
  if (options.signals !== false) {
    await send(ctx, secret, "/ingest/signals", {
      projectId,
      detection: {
        detectedAt: "2026-10-30T08:00:00.000Z",
        commitSha: "3f2a9c1d0e4b5a6978877665544332211aabbccd",
        ciCd: { detected: true, tools: ["GitHub Actions"] },
        monitoring: { detected: false },
        authProvider: { detected: false },
        cloudProvider: { detected: true, providers: ["AWS"] },
        securityContact: { detected: true, email: "security@acme.example" },
      },
    });
  }
  await publishVersion(ctx, ws);
  return ws;
}

async function get(ctx: TestApp, path: string): Promise<Response> {
  const res = await ctx.call("GET", path);
  assert.equal(res.status, 200, `${path}: ${res.status}`);
  return res;
}

async function bytesOf(ctx: TestApp, path: string): Promise<Uint8Array> {
  return new Uint8Array(await (await get(ctx, path)).arrayBuffer());
}

async function sha256Hex(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

async function jwks(ctx: TestApp): Promise<JWK[]> {
  return (await (await get(ctx, "/.well-known/jwks.json")).json()).keys;
}

/** Checks `jws` (compact) against the JWKS and that its payload is exactly `bytes`. */
async function assertSignedBytes(ctx: TestApp, jws: string, bytes: Uint8Array) {
  const kid = JSON.parse(atob(jws.split(".")[0].replace(/-/g, "+").replace(/_/g, "/"))).kid;
  const jwk = (await jwks(ctx)).find((k) => k.kid === kid);
  assert.ok(jwk, `the JWKS holds ${kid}`);
  const { payload, protectedHeader } = await compactVerify(jws, await importJWK(jwk, "EdDSA"));
  assert.deepEqual(payload, bytes);
  assert.equal(protectedHeader.ver, 1);
}

// --- An independent DSSE verifier, from the DSSE v1 protocol --------------------------------

const utf8 = new TextEncoder();

function fromBase64(value: string): Uint8Array<ArrayBuffer> {
  const normalized = value.replace(/-/g, "+").replace(/_/g, "/");
  return Uint8Array.from(atob(normalized), (c) => c.charCodeAt(0));
}

/** PAE(type, body) = "DSSEv1" + SP + LEN(type) + SP + type + SP + LEN(body) + SP + body. */
function preAuthEncoding(type: string, body: Uint8Array): Uint8Array<ArrayBuffer> {
  const typeBytes = utf8.encode(type);
  const prefix = utf8.encode(`DSSEv1 ${typeBytes.length} `);
  const middle = utf8.encode(` ${body.length} `);
  const out = new Uint8Array(prefix.length + typeBytes.length + middle.length + body.length);
  let at = 0;
  for (const part of [prefix, typeBytes, middle, body]) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

interface Envelope {
  payloadType: string;
  payload: string;
  signatures: { keyid?: string; sig: string }[];
}

/** The verified payload of `envelope`, or null when no signature verifies with a JWKS key. */
async function verifyDsse(envelope: Envelope, keys: JWK[]): Promise<Uint8Array | null> {
  const body = fromBase64(envelope.payload);
  const message = preAuthEncoding(envelope.payloadType, body);
  for (const signature of envelope.signatures) {
    const jwk = keys.find((k) => k.kid === signature.keyid);
    if (!jwk || jwk.kty !== "OKP" || jwk.crv !== "Ed25519") continue;
    const key = await crypto.subtle.importKey(
      "jwk",
      { kty: "OKP", crv: "Ed25519", x: jwk.x },
      { name: "Ed25519" },
      false,
      ["verify"],
    );
    if (await crypto.subtle.verify("Ed25519", key, fromBase64(signature.sig), message)) {
      return body;
    }
  }
  return null;
}

// --- Tests -----------------------------------------------------------------------------------

Deno.test("[http] OSCAL Assessment Results validate against NIST's schema, one finding per control", async () => {
  await using ctx = await createTestApp();
  await published(ctx);
  const profile = await (await get(ctx, "/trust/acme/trust.json")).json();
  const bytes = await bytesOf(ctx, "/trust/acme/oscal-assessment-results.json");
  const oscal = JSON.parse(new TextDecoder().decode(bytes));
  const validate = oscalValidator();
  assert.ok(validate(oscal), JSON.stringify(validate.errors?.slice(0, 5), null, 2));

  const ar = oscal["assessment-results"];
  assert.equal(ar.metadata["oscal-version"], "1.0.6");
  assert.equal(ar.metadata.version, "1");
  assert.equal(ar.results.length, 1);
  const [result] = ar.results;
  assert.equal(result.findings.length, profile.controls.length);
  assert.equal(result.observations.length, profile.controls.length);
  for (const control of profile.controls) {
    const observation = result.observations.find((
      o: { props: { name: string; value: string }[] },
    ) => o.props.some((p) => p.name === "control-key" && p.value === control.key));
    assert.ok(observation, control.key);
    assert.equal(observation.description, control.reason);
    const finding = result.findings.find((
      f: { "related-observations": { "observation-uuid": string }[] },
    ) => f["related-observations"][0]["observation-uuid"] === observation.uuid);
    assert.equal(
      finding.target.status.state,
      control.state === "pass" ? "satisfied" : "not-satisfied",
      control.key,
    );
    assert.ok(
      finding.props.some((p: { name: string; value: string }) =>
        p.name === "state" && p.value === control.state
      ),
    );
    const digest = observation.props.find((p: { name: string }) => p.name === "evidence-digest");
    assert.equal(digest?.value, control.evidence?.digest ?? undefined, control.key);
  }
  const scan = profile.controls.find((c: { key: string }) =>
    c.key === "evidence.vulnerability_scan"
  );
  assert.equal(scan.state, "fail");

  // The validator is not vacuous: a finding state outside OSCAL's vocabulary is rejected.
  result.findings[0].target.status.state = "maybe";
  assert.equal(validate(oscal), false);

  // Signed like trust.json; the same bytes are immutable under /versions/1/.
  const jws = await (await get(ctx, "/trust/acme/oscal-assessment-results.json.jws")).text();
  await assertSignedBytes(ctx, jws, bytes);
  const versioned = await get(ctx, "/trust/acme/versions/1/oscal-assessment-results.json");
  assert.match(versioned.headers.get("cache-control") ?? "", /immutable/);
  assert.deepEqual(new Uint8Array(await versioned.arrayBuffer()), bytes);
});

Deno.test("[http] the SLSA Verification Summary verifies with an independent DSSE verifier", async () => {
  await using ctx = await createTestApp();
  await published(ctx);
  const res = await get(ctx, "/trust/acme/vsa.intoto.json");
  const etag = res.headers.get("etag");
  assert.match(etag ?? "", /^"sha256:[0-9a-f]{64}"$/, "a strong ETag");
  const envelope: Envelope = await res.json();
  assert.equal(envelope.payloadType, "application/vnd.in-toto+json");
  const keys = await jwks(ctx);
  const payload = await verifyDsse(envelope, keys);
  assert.ok(payload, "the envelope verifies against the JWKS");

  const statement = JSON.parse(new TextDecoder().decode(payload));
  const trustJson = await bytesOf(ctx, "/trust/acme/versions/1/trust.json");
  const base = ctx.config.baseUrl;
  assert.equal(statement._type, "https://in-toto.io/Statement/v1");
  assert.deepEqual(statement.subject, [{
    name: `${base}/trust/acme/versions/1/trust.json`,
    digest: { sha256: await sha256Hex(new Uint8Array(trustJson)) },
  }]);
  assert.equal(statement.predicateType, "https://slsa.dev/verification_summary/v1");
  const predicate = statement.predicate;
  assert.deepEqual(predicate.verifier, { id: base });
  assert.equal(predicate.resourceUri, `${base}/trust/acme`);
  assert.deepEqual(predicate.policy, { uri: `${base}/docs/evaluation` });
  const profile = JSON.parse(new TextDecoder().decode(trustJson));
  assert.equal(profile.summary.overallState, "fail");
  assert.equal(predicate.verificationResult, "FAILED");
  assert.deepEqual(predicate.verifiedLevels, ["FAILED"]);
  assert.equal(predicate.timeVerified, profile.publishedAt);
  const evidenced = profile.controls.filter((c: { evidence?: { digest: string | null } }) =>
    c.evidence?.digest
  );
  assert.equal(predicate.inputAttestations.length, evidenced.length);

  // Tampering is caught: one changed byte of the payload, or a signature from another key.
  const tampered = {
    ...envelope,
    payload: btoa(atob(envelope.payload).replace("FAILED", "PASSED")),
  };
  assert.equal(await verifyDsse(tampered, keys), null);
  const otherType = { ...envelope, payloadType: "application/json" };
  assert.equal(await verifyDsse(otherType, keys), null);

  const again = await ctx.call("GET", "/trust/acme/vsa.intoto.json", {
    headers: { "if-none-match": etag! },
  });
  assert.equal(again.status, 304);
  await again.body?.cancel();
});

Deno.test("[http] Security Insights is served as signed, with the version's address", async () => {
  await using ctx = await createTestApp();
  await published(ctx);
  const bytes = await bytesOf(ctx, "/trust/acme/security-insights.json");
  const insights = JSON.parse(new TextDecoder().decode(bytes));
  const base = ctx.config.baseUrl;
  assert.equal(insights.header["schema-version"], "2.0.0");
  assert.equal(insights.header.url, `${base}/trust/acme/versions/1/security-insights.json`);
  const jws = await (await get(ctx, "/trust/acme/security-insights.json.jws")).text();
  await assertSignedBytes(ctx, jws, bytes);
});

Deno.test("[http] exports of unknown projects, versions and documents are 404s in the envelope", async () => {
  await using ctx = await createTestApp();
  await published(ctx);
  for (
    const path of [
      "/trust/nobody/vsa.intoto.json",
      "/trust/acme/versions/9/vsa.intoto.json",
      "/trust/acme/versions/1/vsa.intoto.jsonx",
    ]
  ) {
    const res = await ctx.call("GET", path);
    const body = await res.json();
    assert.ok(res.status === 404 || res.status === 400, `${path}: ${res.status}`);
    assert.ok(body.error?.code, path);
  }
});

Deno.test("[http] the trust page links the exports, the log and the verifier kit's command", async () => {
  await using ctx = await createTestApp();
  await published(ctx);
  const base = ctx.config.baseUrl;
  // The publication key is the JWKS's first; the command pins it and the log's key.
  const kid = (await (await get(ctx, "/.well-known/jwks.json")).json()).keys[0].kid;
  const vkey = (await (await get(ctx, "/log")).json()).verifierKey;
  const command = `deno run --allow-net ${base}/verify.ts acme --pin jwks=${kid} --pin log=${vkey}`;
  const html = await (await get(ctx, "/trust/acme.html")).text();
  const markdown = await (await get(ctx, "/trust/acme.md")).text();
  for (const page of [html, markdown]) {
    assert.ok(page.includes(command), "the pinned command to verify the page");
    for (
      const path of [
        "/verify.ts",
        "/log",
        "/log/checkpoint",
        "/trust/acme/oscal-assessment-results.json",
        "/trust/acme/vsa.intoto.json",
        "/trust/acme/security-insights.json",
      ]
    ) {
      assert.ok(
        page.includes(`(<${base}${path}>)`) || page.includes(`href="${base}${path}"`),
        path,
      );
    }
  }
  // Every link the page gives resolves.
  for (const match of markdown.matchAll(/\]\(<(http[^>\s]+)>\)/g)) {
    const path = match[1].slice(base.length);
    if (!match[1].startsWith(base) || path.startsWith("/docs")) continue;
    const res = await ctx.call("GET", path);
    assert.equal(res.status, 200, path);
    await res.body?.cancel();
  }
});
