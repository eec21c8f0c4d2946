/**
 * Sigstore verification with real public-good bundles (slsa-verifier's test data, signed
 * by GitHub Actions through Fulcio and logged in Rekor) against the public-good trusted
 * root, and one-byte tampered copies of them. Everything runs offline.
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import type { SignatureCheck, SigstoreIdentity } from "../../src/domain/sigstore.ts";
import { subjectMatches } from "../../src/domain/sigstore.ts";
import { createSigstoreVerifier, sigstoreVerifierFor } from "../../src/sigstore/verify.ts";

const FIXTURES = new URL("../fixtures/sigstore/", import.meta.url);
const read = (name: string) => JSON.parse(Deno.readTextFileSync(new URL(name, FIXTURES)));
const ROOT = read("trusted_root.public-good.json");
const ISSUER = "https://token.actions.githubusercontent.com";
const GENERATOR = "https://github.com/slsa-framework/slsa-github-generator/.github/workflows/";

/** v0.2 bundle: DSSE, Rekor entry with signed entry timestamp and inclusion proof. */
const DELEGATOR = read("slsa-delegator-v2.1.0.sigstore.json");
const DELEGATOR_SIGNER = `${GENERATOR}delegator_generic_slsa3.yml@refs/tags/v2.1.0`;
/** v0.1 bundle: DSSE, Rekor entry with a signed entry timestamp only. */
const CONTAINER = read("slsa-container-based-v1.7.0.sigstore.json");
const CONTAINER_SIGNER = `${GENERATOR}builder_container-based_slsa3.yml@refs/tags/v1.7.0`;

const exact = (subject: string): SigstoreIdentity[] => [{ issuer: ISSUER, subject }];
const NOT_REQUIRED = "subjects not matched to the project's artifacts (not required)";

/** `base64` with one bit of byte `index` (negative: from the end) flipped. */
function flipByte(base64: string, index: number): string {
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  bytes[index < 0 ? bytes.length + index : index] ^= 0x01;
  return btoa(String.fromCharCode(...bytes));
}

/** Runs `fn` with every network API refusing, so a verification that reached out fails. */
function offline<T>(fn: () => T): T {
  const original = globalThis.fetch;
  globalThis.fetch = () => Promise.reject(new Error("network used during verification"));
  try {
    return fn();
  } finally {
    globalThis.fetch = original;
  }
}

function assertFails(result: SignatureCheck | null, reason: RegExp) {
  assert.ok(result, "a signed payload gets a check");
  assert.equal(result.verified, false, JSON.stringify(result));
  if (!result.verified) assert.match(result.reason, reason);
}

Deno.test("[sigstore] real public-good bundles verify offline and name signer and log index", async (t) => {
  const verifier = createSigstoreVerifier(ROOT);
  await t.step("v0.2 bundle with inclusion proof and signed entry timestamp", () => {
    const result = offline(() => verifier.check(DELEGATOR, exact(DELEGATOR_SIGNER)));
    assert.deepEqual(result, {
      verified: true,
      issuer: ISSUER,
      subject: DELEGATOR_SIGNER,
      logIndex: "174304175",
      signedAt: "2025-02-25T21:58:32.000Z",
      subjects: NOT_REQUIRED,
    });
  });
  await t.step("v0.1 bundle with a signed entry timestamp only", () => {
    const result = offline(() => verifier.check(CONTAINER, exact(CONTAINER_SIGNER)));
    assert.deepEqual(result, {
      verified: true,
      issuer: ISSUER,
      subject: CONTAINER_SIGNER,
      logIndex: "23032398",
      signedAt: "2023-06-07T14:42:55.000Z",
      subjects: NOT_REQUIRED,
    });
  });
  await t.step("the shipped root is the same public-good root", () => {
    const result = sigstoreVerifierFor(null).check(DELEGATOR, exact(DELEGATOR_SIGNER));
    assert.equal(result?.verified, true);
  });
  await t.step("a subject pattern with * matches the workflow at any tag", () => {
    const identities = exact(`${GENERATOR}delegator_generic_slsa3.yml@refs/tags/*`);
    assert.equal(verifier.check(DELEGATOR, identities)?.verified, true);
  });
});

Deno.test("[sigstore] tampered bundles and unexpected signers fail with a clear reason", async (t) => {
  const verifier = createSigstoreVerifier(ROOT);
  const identities = exact(DELEGATOR_SIGNER);
  await t.step("one byte of the DSSE payload", () => {
    const bundle = structuredClone(DELEGATOR);
    bundle.dsseEnvelope.payload = flipByte(bundle.dsseEnvelope.payload, 40);
    assertFails(verifier.check(bundle, identities), /^Sigstore bundle does not verify: /);
  });
  await t.step("one byte of the signature", () => {
    const bundle = structuredClone(DELEGATOR);
    const sig = bundle.dsseEnvelope.signatures[0];
    sig.sig = flipByte(sig.sig, -1);
    assertFails(verifier.check(bundle, identities), /^Sigstore bundle does not verify: /);
  });
  await t.step("one byte of the signing certificate's own signature", () => {
    const bundle = structuredClone(DELEGATOR);
    const leaf = bundle.verificationMaterial.x509CertificateChain.certificates[0];
    leaf.rawBytes = flipByte(leaf.rawBytes, -1);
    assertFails(
      verifier.check(bundle, identities),
      /^Sigstore bundle does not verify: the certificate does not chain to the trusted root/,
    );
  });
  await t.step("one byte of the signed entry timestamp (bundle without proof)", () => {
    const bundle = structuredClone(CONTAINER);
    const entry = bundle.verificationMaterial.tlogEntries[0];
    entry.inclusionPromise.signedEntryTimestamp = flipByte(
      entry.inclusionPromise.signedEntryTimestamp,
      -1,
    );
    assertFails(
      verifier.check(bundle, exact(CONTAINER_SIGNER)),
      /transparency-log signed entry timestamp does not verify/,
    );
  });
  await t.step("one byte of a hash on the inclusion proof's audit path", () => {
    // The proof is checked against the root in the signed checkpoint (the bundle's own
    // `rootHash` field is not trusted), so an altered path hash cannot reach it.
    const bundle = structuredClone(DELEGATOR);
    const proof = bundle.verificationMaterial.tlogEntries[0].inclusionProof;
    proof.hashes[0] = flipByte(proof.hashes[0], 0);
    assertFails(verifier.check(bundle, identities), /transparency-log inclusion proof/);
  });
  await t.step("one byte of the checkpoint's signature", () => {
    const bundle = structuredClone(DELEGATOR);
    const checkpoint = bundle.verificationMaterial.tlogEntries[0].inclusionProof.checkpoint;
    const [note, signature] = checkpoint.envelope.split("\n\n");
    const [dash, name, value] = signature.trimEnd().split(" ");
    checkpoint.envelope = `${note}\n\n${dash} ${name} ${flipByte(value, -2)}\n`;
    assertFails(verifier.check(bundle, identities), /transparency-log/);
  });
  await t.step("no transparency-log entry at all", () => {
    const bundle = structuredClone(DELEGATOR);
    bundle.verificationMaterial.tlogEntries = [];
    assertFails(verifier.check(bundle, identities), /^Sigstore bundle does not verify: /);
  });
  await t.step("a valid bundle from another workflow than the one expected", () => {
    const result = verifier.check(
      DELEGATOR,
      exact("https://github.com/acme/app/.github/workflows/release.yml@refs/heads/main"),
    );
    assertFails(
      result,
      /^Sigstore signature verifies, but its signer ".*delegator_generic_slsa3\.yml@refs\/tags\/v2\.1\.0" \(issuer "https:\/\/token\.actions\.githubusercontent\.com"\) is not an expected identity$/,
    );
  });
  await t.step("the expected subject under another issuer", () => {
    const result = verifier.check(DELEGATOR, [
      { issuer: "https://accounts.google.com", subject: DELEGATOR_SIGNER },
    ]);
    assertFails(result, /is not an expected identity/);
  });
  await t.step("no expected identity configured", () => {
    assertFails(verifier.check(DELEGATOR, []), /the project expects no signer identity/);
  });
  await t.step("a root whose transparency log is not the one that logged the entry", () => {
    const other = structuredClone(ROOT);
    other.tlogs = other.ctlogs;
    const result = createSigstoreVerifier(other).check(DELEGATOR, identities);
    assertFails(result, /^Sigstore bundle does not verify: /);
  });
  await t.step("a DSSE envelope without Sigstore material cannot be verified", () => {
    assertFails(
      verifier.check(DELEGATOR.dsseEnvelope, identities),
      /DSSE envelope carries no Sigstore verification material/,
    );
  });
  await t.step("a bundle that does not parse", () => {
    assertFails(
      verifier.check(
        { mediaType: "application/vnd.dev.sigstore.bundle+json;version=0.2" },
        identities,
      ),
      /^Sigstore bundle is malformed: /,
    );
  });
});

Deno.test("[sigstore] payloads that claim no signature get no check", () => {
  const verifier = createSigstoreVerifier(ROOT);
  for (const payload of [null, 1, "x", [], { bomFormat: "CycloneDX" }, { _type: "x" }]) {
    assert.equal(verifier.check(payload, []), null);
  }
});

Deno.test("[sigstore] createSigstoreVerifier() rejects documents that are not trusted roots", async (t) => {
  const rows: Array<{ name: string; input: unknown; message: RegExp }> = [
    { name: "not an object", input: [], message: /no mediaType/ },
    { name: "another media type", input: { mediaType: "text/plain" }, message: /not a Sigstore/ },
    { name: "no transparency log", input: { ...ROOT, tlogs: [] }, message: /no transparency log/ },
    {
      name: "no certificate authority",
      input: { ...ROOT, certificateAuthorities: [] },
      message: /no certificate authority/,
    },
  ];
  for (const { name, input, message } of rows) {
    await t.step(name, () => assert.throws(() => createSigstoreVerifier(input), message));
  }
});

Deno.test("[sigstore] subjectMatches() is exact unless the pattern has *", () => {
  const subject = "https://github.com/acme/app/.github/workflows/release.yml@refs/tags/v1.2.0";
  assert.equal(subjectMatches(subject, subject), true);
  assert.equal(subjectMatches(subject.slice(0, -1), subject), false);
  assert.equal(
    subjectMatches("https://github.com/acme/app/.github/workflows/*@refs/tags/*", subject),
    true,
  );
  assert.equal(
    subjectMatches("https://github.com/acme/app/.github/workflows/*@refs/heads/*", subject),
    false,
  );
  assert.equal(
    subjectMatches("https://github.com/acme/app.*", "https://github.com/acme/appXy"),
    false,
  );
  assert.equal(subjectMatches("https://github.com/acme/ap?/*", subject), false);
});

Deno.test("[sigstore] subjectMatches(): * never crosses / or @", () => {
  const workflow = "https://github.com/acme/app/.github/workflows/release.yml";
  const any = `${workflow}@*`;
  assert.equal(subjectMatches(any, `${workflow}@refs/pull/1/merge`), false);
  assert.equal(subjectMatches(any, `${workflow}@refs/heads/main`), false);
  assert.equal(subjectMatches(`${workflow}@refs/heads/*`, `${workflow}@refs/heads/main`), true);
  assert.equal(
    subjectMatches(`${workflow}@refs/heads/*`, `${workflow}@refs/heads/feature/x`),
    false,
  );
  assert.equal(subjectMatches(`${workflow}@refs/tags/*`, `${workflow}@refs/pull/1/merge`), false);
  // A wildcard in the path stays within one segment and cannot swallow the ref.
  assert.equal(
    subjectMatches("https://github.com/acme/*", `${workflow}@refs/heads/main`),
    false,
  );
  assert.equal(
    subjectMatches(
      "https://github.com/acme/*/.github/workflows/release.yml@refs/heads/main",
      `${workflow}@refs/heads/main`,
    ),
    true,
  );
  assert.equal(
    subjectMatches(
      "https://github.com/*/.github/workflows/release.yml@refs/heads/main",
      "https://github.com/evil/x/.github/workflows/release.yml@refs/heads/main",
    ),
    false,
  );
});

Deno.test("[sigstore] an identity ending in @* no longer admits the bundle of a ref with /", () => {
  const verifier = createSigstoreVerifier(ROOT);
  const workflow = DELEGATOR_SIGNER.slice(0, DELEGATOR_SIGNER.indexOf("@"));
  assertFails(verifier.check(DELEGATOR, exact(`${workflow}@*`)), /is not an expected identity/);
  assert.equal(verifier.check(DELEGATOR, exact(`${workflow}@refs/tags/*`))?.verified, true);
});

Deno.test("[sigstore] the verified log time travels with every check that got that far", () => {
  const verifier = createSigstoreVerifier(ROOT);
  const signedAt = "2025-02-25T21:58:32.000Z";
  const wrongSigner = verifier.check(DELEGATOR, exact("https://example.com/other"));
  assert.equal(wrongSigner?.verified, false);
  assert.equal(wrongSigner?.signedAt, signedAt);
  assert.equal(verifier.check(DELEGATOR, [])?.signedAt, signedAt);
  const tampered = structuredClone(DELEGATOR);
  tampered.dsseEnvelope.signatures[0].sig = flipByte(tampered.dsseEnvelope.signatures[0].sig, -1);
  assert.equal(verifier.check(tampered, exact(DELEGATOR_SIGNER))?.signedAt, undefined);
});

Deno.test("[sigstore] node:crypto verify() without a digest defaults to SHA-256 for EC keys, as in Node", () => {
  const { privateKey, publicKey } = crypto.generateKeyPairSync("ec", { namedCurve: "P-256" });
  const data = new TextEncoder().encode("payload");
  const signature = crypto.sign("sha256", data, privateKey);
  assert.equal(crypto.verify(null, data, publicKey, signature), true);
  assert.equal(crypto.verify(null, new TextEncoder().encode("other"), publicKey, signature), false);
  assert.equal(crypto.verify("sha384", data, publicKey, signature), false);
});
