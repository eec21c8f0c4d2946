import assert from "node:assert/strict";
import type { SignatureCheck } from "../../src/domain/sigstore.ts";
import { hasSlsaProvenance, isSbomDocument } from "../../src/evaluate/mod.ts";
import { probeTable } from "./_table.ts";
import {
  CYCLONEDX_15,
  dsseEnvelope,
  sigstoreBundle,
  SLSA_V02_STATEMENT,
  SLSA_V1_STATEMENT,
  SPDX_23,
} from "./_fixtures.ts";

Deno.test("[evaluate] isSbomDocument() reads CycloneDX and SPDX JSON", async (t) => {
  await probeTable(t, isSbomDocument, [
    {
      name: "passes a CycloneDX 1.5 document",
      input: CYCLONEDX_15,
      expected: { outcome: "pass", reason: /^CycloneDX 1\.5 document listing 2 components$/ },
    },
    {
      name: "passes an SPDX 2.3 document",
      input: SPDX_23,
      expected: { outcome: "pass", reason: /^SPDX-2\.3 document listing 1 package$/ },
    },
    {
      name: "passes an SBOM of a dependency-free artifact",
      input: { ...CYCLONEDX_15, components: [] },
      expected: { outcome: "pass", reason: /listing 0 components/ },
    },
    {
      name: "fails CycloneDX without components[]",
      input: { ...CYCLONEDX_15, components: undefined },
      expected: { outcome: "fail", reason: /has no components\[\] list/ },
    },
    {
      name: "fails CycloneDX with an unnamed component",
      input: { ...CYCLONEDX_15, components: [{ type: "library" }] },
      expected: { outcome: "fail", reason: /component without a name at index 0/ },
    },
    {
      name: "fails an unsupported CycloneDX specVersion",
      input: { ...CYCLONEDX_15, specVersion: 1.5 },
      expected: { outcome: "fail", reason: /specVersion is 1\.5, expected "1\.x"/ },
    },
    {
      name: "fails a bomFormat other than CycloneDX",
      input: { ...CYCLONEDX_15, bomFormat: "cyclonedx" },
      expected: { outcome: "fail", reason: /bomFormat is "cyclonedx"/ },
    },
    {
      name: "fails SPDX without packages[]",
      input: { ...SPDX_23, packages: {} },
      expected: { outcome: "fail", reason: /SPDX-2\.3 document has no packages\[\] list/ },
    },
    {
      name: "fails an SPDX version that is not 2.x",
      input: { ...SPDX_23, spdxVersion: "2.3" },
      expected: { outcome: "fail", reason: /spdxVersion is "2\.3"/ },
    },
    {
      name: "is unknown for an object in neither format",
      input: { name: "sbom.json", items: [] },
      expected: { outcome: "unknown", reason: /neither a CycloneDX bomFormat nor an SPDX/ },
    },
  ]);
});

/** What verifying a real public-good bundle yields (see tests/sigstore/verify_test.ts). */
const VERIFIED: SignatureCheck = {
  verified: true,
  issuer: "https://token.actions.githubusercontent.com",
  subject: "https://github.com/acme/app/.github/workflows/release.yml@refs/heads/main",
  logIndex: "174304175",
  signedAt: "2025-02-25T21:58:32.000Z",
  subjects: "subjects not matched to the project's artifacts (not required)",
};
const withSignature = (payload: unknown) => hasSlsaProvenance(payload, VERIFIED);

Deno.test("[evaluate] hasSlsaProvenance() passes only signed provenance whose signature verified", async (t) => {
  const v1 = SLSA_V1_STATEMENT;
  await probeTable(t, hasSlsaProvenance, [
    {
      name: "fails a bare in-toto v1 statement: it is not signed",
      input: v1,
      expected: {
        outcome: "fail",
        reason:
          /^in-toto statement with SLSA v1 provenance from "https:\/\/github\.com\/actions\/runner\/github-hosted" for 1 subject, but not signed/,
      },
    },
    {
      name: "fails a bare v0.1 statement with a SLSA v0.2 predicate: it is not signed",
      input: SLSA_V02_STATEMENT,
      expected: { outcome: "fail", reason: /SLSA v0\.2 provenance.*but not signed/ },
    },
    {
      name: "fails a DSSE envelope whose signature nobody verified",
      input: dsseEnvelope(v1),
      expected: {
        outcome: "fail",
        reason:
          /^in-toto statement in a DSSE envelope with 1 signature .*; the signature was not verified$/,
      },
    },
    {
      name: "fails a Sigstore bundle whose signature nobody verified",
      input: sigstoreBundle(v1),
      expected: { outcome: "fail", reason: /the signature was not verified$/ },
    },
    {
      name: "never says signed for an envelope whose signature is garbage",
      input: { ...dsseEnvelope(v1), signatures: [{ keyid: "", sig: "garbage" }] },
      expected: { outcome: "fail", reason: /^(?!.*\bsigned by\b).*not verified/ },
    },
  ]);
  await t.step("fails with the verification's reason when the signature did not verify", () => {
    const result = hasSlsaProvenance(sigstoreBundle(v1), {
      verified: false,
      reason: "Sigstore bundle does not verify: the signature does not verify (x)",
    });
    assert.equal(result.outcome, "fail");
    assert.equal(
      result.reason,
      "Sigstore bundle does not verify: the signature does not verify (x)",
    );
  });
  await t.step("fails a verified signature over a bare statement (it cannot be verified)", () => {
    assert.equal(hasSlsaProvenance(v1, VERIFIED).outcome, "fail");
  });
});

Deno.test("[evaluate] hasSlsaProvenance() reads the statement in a verified bundle or envelope", async (t) => {
  const v1 = SLSA_V1_STATEMENT;
  await probeTable(t, withSignature, [
    {
      name: "passes a Sigstore bundle around the v1 statement, naming signer and log index",
      input: sigstoreBundle(v1),
      expected: {
        outcome: "pass",
        reason:
          /^in-toto statement in a Sigstore bundle's DSSE envelope with 1 signature with SLSA v1 provenance from .* for 1 subject; signed by "https:\/\/github\.com\/acme\/app\/\.github\/workflows\/release\.yml@refs\/heads\/main" \(issuer "https:\/\/token\.actions\.githubusercontent\.com"\), Rekor log index 174304175, logged 2025-02-25T21:58:32\.000Z; subjects not matched to the project's artifacts \(not required\)$/,
      },
    },
    {
      name: "passes a URL-safe base64 payload without padding",
      input: {
        ...dsseEnvelope(v1),
        payload: dsseEnvelope(v1).payload.replace(/\+/g, "-").replace(/\//g, "_").replace(
          /=+$/,
          "",
        ),
      },
      expected: { outcome: "pass", reason: /SLSA v1/ },
    },
    {
      name: "fails a predicate that is not SLSA provenance",
      input: { ...v1, predicateType: "https://spdx.dev/Document" },
      expected: { outcome: "fail", reason: /predicateType is "https:\/\/spdx\.dev\/Document"/ },
    },
    {
      name: "fails an unknown statement type",
      input: { ...v1, _type: "https://in-toto.io/Statement/v2" },
      expected: { outcome: "fail", reason: /not an in-toto Statement v0\.1 or v1/ },
    },
    {
      name: "fails a subject without a hex digest",
      input: { ...v1, subject: [{ name: "a.tgz", digest: { sha256: "not-hex" } }] },
      expected: { outcome: "fail", reason: /no subject with a hex digest/ },
    },
    {
      name: "fails an empty subject list",
      input: { ...v1, subject: [] },
      expected: { outcome: "fail", reason: /no subject with a hex digest/ },
    },
    {
      name: "fails a v1 predicate without runDetails.builder.id",
      input: { ...v1, predicate: { buildDefinition: v1.predicate.buildDefinition } },
      expected: { outcome: "fail", reason: /names no builder id/ },
    },
    {
      name: "fails an envelope without signatures",
      input: { ...dsseEnvelope(v1), signatures: [] },
      expected: { outcome: "fail", reason: /DSSE envelope has no signature/ },
    },
    {
      name: "fails an envelope of another payload type",
      input: { ...dsseEnvelope(v1), payloadType: "text/plain" },
      expected: { outcome: "fail", reason: /payloadType is "text\/plain"/ },
    },
    {
      name: "is unknown for an envelope whose payload is not base64",
      input: { ...dsseEnvelope(v1), payload: "%%% not base64 %%%" },
      expected: { outcome: "unknown", reason: /not base64-encoded JSON/ },
    },
    {
      name: "is unknown for an envelope whose payload is base64 of non-JSON bytes",
      input: { ...dsseEnvelope(v1), payload: btoa("\xff\xfe{") },
      expected: { outcome: "unknown", reason: /not base64-encoded JSON/ },
    },
    {
      name: "is unknown for an envelope around a JSON string",
      input: { ...dsseEnvelope(v1), payload: btoa('"hello"') },
      expected: { outcome: "unknown", reason: /is a string, not an in-toto statement/ },
    },
    {
      name: "is unknown for an object that is neither statement nor envelope",
      input: { provenance: true },
      expected: { outcome: "unknown", reason: /neither an in-toto statement nor a DSSE/ },
    },
  ]);
});
