/**
 * Signed evidence is as old as its signature: the evaluator counts a Sigstore-verified
 * observation's age from the earlier of its claimed time and its verified log time, and
 * the artifacts a project reports are read from its deployment snapshots and SBOMs.
 */
import assert from "node:assert/strict";
import type { SignatureCheck } from "../../src/domain/sigstore.ts";
import { reportedDigests } from "../../src/evaluate/artifacts.ts";
import { evaluateControl } from "../../src/evaluate/mod.ts";
import { sigstoreBundle, SLSA_V1_STATEMENT } from "./_fixtures.ts";
import { after, control, L, L_MS } from "./_support.ts";

const DAY = 86_400_000;
const provenance = () =>
  control({ evidenceType: "build_provenance", w: 30 * 86_400, s: 90 * 86_400 });

function verified(signedAt: string): SignatureCheck {
  return {
    verified: true,
    issuer: "https://token.actions.githubusercontent.com",
    subject: "https://github.com/acme/app/.github/workflows/release.yml@refs/heads/main",
    logIndex: "1",
    signedAt,
    subjects: "subjects not matched to the project's artifacts (not required)",
  };
}

Deno.test("[evaluate] a signed observation claimed now but logged 400 days ago is stale", () => {
  const signedAt = new Date(L_MS - 400 * DAY).toISOString();
  const result = evaluateControl(provenance(), {
    at: L,
    payload: sigstoreBundle(SLSA_V1_STATEMENT),
    evidenceRecordId: null,
    signature: verified(signedAt),
  }, after(0));
  assert.equal(result.state, "stale");
  assert.equal(result.latestEvidenceAt, signedAt);
  assert.equal(result.freshUntil, new Date(L_MS - 370 * DAY).toISOString());
  assert.match(
    result.reason,
    /^Latest build_provenance evidence is 400 days old \(counted from its signature's log time, /,
  );
});

Deno.test("[evaluate] a signed observation is fresh from its log time, and an earlier claim stands", () => {
  const signedAt = new Date(L_MS - 2 * DAY).toISOString();
  const fresh = evaluateControl(provenance(), {
    at: L,
    payload: sigstoreBundle(SLSA_V1_STATEMENT),
    evidenceRecordId: null,
    signature: verified(signedAt),
  }, after(0));
  assert.equal(fresh.state, "pass", fresh.reason);
  assert.equal(fresh.freshUntil, new Date(L_MS + 28 * DAY).toISOString());
  const earlier = evaluateControl(provenance(), {
    at: new Date(L_MS - 3 * DAY).toISOString(),
    payload: sigstoreBundle(SLSA_V1_STATEMENT),
    evidenceRecordId: null,
    signature: verified(signedAt),
  }, after(0));
  assert.equal(earlier.latestEvidenceAt, new Date(L_MS - 3 * DAY).toISOString());
});

const DIGEST = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03";
const OTHER = "ab".repeat(32);

Deno.test("[evaluate] reportedDigests() reads image digests of a deployment snapshot", () => {
  const snapshot = {
    apiVersion: "v1",
    kind: "List",
    items: [
      {
        kind: "Deployment",
        spec: {
          template: {
            spec: {
              initContainers: [{ name: "init", image: `busybox@sha256:${OTHER}` }],
              containers: [
                { name: "api", image: `ghcr.io/acme/api@SHA256:${DIGEST.toUpperCase()}` },
                { name: "tagged", image: "ghcr.io/acme/web:1.0" },
              ],
            },
          },
        },
      },
      {
        kind: "Pod",
        status: {
          containerStatuses: [{ imageID: `docker-pullable://ghcr.io/acme/api@sha256:${DIGEST}` }],
        },
        metadata: { annotations: { note: `sha256:${"cd".repeat(32)}` } },
      },
    ],
  };
  assert.deepEqual(reportedDigests("deployment_snapshot", snapshot), [
    `sha256:${DIGEST}`,
    `sha256:${OTHER}`,
  ]);
  assert.deepEqual(reportedDigests("deployment_snapshot", null), []);
  assert.deepEqual(reportedDigests("deployment_snapshot", { image: "sha256:short" }), []);
});

Deno.test("[evaluate] reportedDigests() reads what an SBOM describes, not its dependencies", () => {
  const cyclonedx = {
    bomFormat: "CycloneDX",
    specVersion: "1.5",
    metadata: {
      component: {
        name: "ghcr.io/acme/api",
        purl: `pkg:oci/api@sha256%3A${DIGEST}?repository_url=ghcr.io/acme/api`,
        hashes: [{ alg: "SHA-512", content: "ef".repeat(64) }, { alg: "MD5", content: "00" }],
        properties: [{ name: "aquasecurity:trivy:RepoDigest", value: `x@sha256:${DIGEST}` }],
      },
    },
    components: [{ name: "left-pad", hashes: [{ alg: "SHA-256", content: OTHER }] }],
  };
  assert.deepEqual(reportedDigests("sbom", cyclonedx), [
    `sha256:${DIGEST}`,
    `sha512:${"ef".repeat(64)}`,
  ]);
  const spdx = {
    spdxVersion: "SPDX-2.3",
    SPDXID: "SPDXRef-DOCUMENT",
    packages: [
      {
        SPDXID: "SPDXRef-app",
        name: "app",
        checksums: [{ algorithm: "SHA256", checksumValue: DIGEST }],
      },
      {
        SPDXID: "SPDXRef-dep",
        name: "dep",
        checksums: [{ algorithm: "SHA256", checksumValue: OTHER }],
      },
    ],
    relationships: [{
      spdxElementId: "SPDXRef-DOCUMENT",
      relationshipType: "DESCRIBES",
      relatedSpdxElement: "SPDXRef-app",
    }],
  };
  assert.deepEqual(reportedDigests("sbom", spdx), [`sha256:${DIGEST}`]);
  assert.deepEqual(reportedDigests("sbom", { ...spdx, relationships: [] }), []);
  assert.deepEqual(
    reportedDigests("sbom", { ...spdx, relationships: [], documentDescribes: ["SPDXRef-dep"] }),
    [`sha256:${OTHER}`],
  );
});

Deno.test("[evaluate] reportedDigests() reads a bounded part of a huge payload", () => {
  const items = Array.from({ length: 300_000 }, (_, i) => ({ image: `x:${i}` }));
  items.push({ image: `late@sha256:${DIGEST}` });
  const started = performance.now();
  assert.deepEqual(reportedDigests("deployment_snapshot", { items }), []);
  assert.ok(performance.now() - started < 2000);
});
