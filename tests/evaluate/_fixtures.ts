/**
 * Evidence in the formats vendors' CI really produces, trimmed to a few entries but kept
 * in each tool's genuine shape (field names, casing, nesting, value styles).
 */
import { base64 } from "./_support.ts";

export const CYCLONEDX_15 = {
  $schema: "http://cyclonedx.org/schema/bom-1.5.schema.json",
  bomFormat: "CycloneDX",
  specVersion: "1.5",
  serialNumber: "urn:uuid:3e671687-395b-41f5-a30f-a58921a69b79",
  version: 1,
  metadata: {
    timestamp: "2026-01-01T00:00:00Z",
    tools: {
      components: [{ type: "application", author: "anchore", name: "syft", version: "1.4.1" }],
    },
    component: { "bom-ref": "acme-api", type: "application", name: "acme-api", version: "2.3.0" },
  },
  components: [
    {
      "bom-ref": "pkg:npm/hono@4.6.3",
      type: "library",
      name: "hono",
      version: "4.6.3",
      purl: "pkg:npm/hono@4.6.3",
      licenses: [{ license: { id: "MIT" } }],
    },
    {
      "bom-ref": "pkg:npm/zod@3.23.8",
      type: "library",
      name: "zod",
      version: "3.23.8",
      purl: "pkg:npm/zod@3.23.8",
    },
  ],
  dependencies: [{ ref: "acme-api", dependsOn: ["pkg:npm/hono@4.6.3", "pkg:npm/zod@3.23.8"] }],
};

export const SPDX_23 = {
  spdxVersion: "SPDX-2.3",
  dataLicense: "CC0-1.0",
  SPDXID: "SPDXRef-DOCUMENT",
  name: "acme-api-2.3.0",
  documentNamespace: "https://acme.example/spdxdocs/acme-api-2.3.0-0b1c2d3e",
  creationInfo: {
    created: "2026-01-01T00:00:00Z",
    creators: ["Tool: syft-1.4.1", "Organization: Acme"],
  },
  packages: [{
    name: "hono",
    SPDXID: "SPDXRef-Package-npm-hono-4.6.3",
    versionInfo: "4.6.3",
    downloadLocation: "NOASSERTION",
    licenseConcluded: "MIT",
    externalRefs: [{
      referenceCategory: "PACKAGE-MANAGER",
      referenceType: "purl",
      referenceLocator: "pkg:npm/hono@4.6.3",
    }],
  }],
  relationships: [{
    spdxElementId: "SPDXRef-DOCUMENT",
    relationshipType: "DESCRIBES",
    relatedSpdxElement: "SPDXRef-Package-npm-hono-4.6.3",
  }],
};

/** An osv-scanner group: advisory ids, its CVSS `max_severity`, GitHub's word, the vector. */
export interface OsvGroup {
  id: string;
  cve: string;
  score: string;
  db: string | null;
  /** The advisory's `severity[]` entry: a CVSS vector (v3 or v4), or null for none. */
  vector: string | null;
}

/** One OSV advisory as osv-scanner embeds it, rated `db` by GitHub and by `vector`. */
function osvAdvisory({ id, cve, db: dbSeverity, vector }: OsvGroup) {
  return {
    modified: "2025-11-03T12:00:00Z",
    published: "2021-02-15T20:00:00Z",
    schema_version: "1.6.0",
    id,
    aliases: [cve],
    summary: "Advisory for lodash",
    affected: [{
      package: { ecosystem: "npm", name: "lodash", purl: "pkg:npm/lodash" },
      ranges: [{ type: "SEMVER", events: [{ introduced: "0" }, { fixed: "4.17.21" }] }],
    }],
    ...(vector === null ? {} : {
      severity: [{ type: vector.startsWith("CVSS:4") ? "CVSS_V4" : "CVSS_V3", score: vector }],
    }),
    ...(dbSeverity === null ? {} : {
      database_specific: { severity: dbSeverity, cwe_ids: ["CWE-94"], github_reviewed: true },
    }),
  };
}

/** osv-scanner JSON with one lodash package carrying `groups` rated by CVSS score. */
export function osvScannerReport(groups: OsvGroup[]) {
  return {
    results: [{
      source: { path: "/src/package-lock.json", type: "lockfile" },
      packages: [{
        package: { name: "lodash", version: "4.17.20", ecosystem: "npm" },
        vulnerabilities: groups.map(osvAdvisory),
        groups: groups.map((g) => ({
          ids: [g.id],
          aliases: [g.cve, g.id],
          max_severity: g.score,
        })),
      }],
    }],
    experimental_config: { licenses: { summary: false, allowlist: [] } },
  };
}

/** Grype JSON with one match per severity given. */
export function grypeReport(severities: string[]) {
  return {
    matches: severities.map((severity, i) => ({
      vulnerability: {
        id: `CVE-2023-${5363 + i}`,
        dataSource: `https://security-tracker.debian.org/tracker/CVE-2023-${5363 + i}`,
        namespace: "debian:distro:debian:12",
        severity,
        urls: [],
        fix: { versions: ["3.0.11-1~deb12u2"], state: "fixed" },
        advisories: [],
      },
      relatedVulnerabilities: [],
      matchDetails: [{ type: "exact-indirect-match", matcher: "dpkg-matcher" }],
      artifact: {
        name: "libssl3",
        version: "3.0.11-1~deb12u1",
        type: "deb",
        purl: "pkg:deb/debian/libssl3@3.0.11-1~deb12u1?arch=amd64&distro=debian-12",
      },
    })),
    source: { type: "image", target: { userInput: "acme/api:2.3.0" } },
    distro: { name: "debian", version: "12", idLike: [] },
    descriptor: { name: "grype", version: "0.79.0" },
  };
}

/** Trivy JSON: an OS result with the severities given and a clean lockfile result. */
export function trivyReport(severities: string[]) {
  return {
    SchemaVersion: 2,
    CreatedAt: "2026-01-01T00:00:00.000000000Z",
    ArtifactName: "acme/api:2.3.0",
    ArtifactType: "container_image",
    Metadata: { OS: { Family: "alpine", Name: "3.19.1" }, ImageID: "sha256:9c1f" },
    Results: [
      {
        Target: "acme/api:2.3.0 (alpine 3.19.1)",
        Class: "os-pkgs",
        Type: "alpine",
        Vulnerabilities: severities.map((Severity, i) => ({
          VulnerabilityID: `CVE-2024-${2511 + i}`,
          PkgName: "libssl3",
          InstalledVersion: "3.1.4-r5",
          FixedVersion: "3.1.4-r6",
          Status: "fixed",
          Severity,
        })),
      },
      { Target: "app/package-lock.json", Class: "lang-pkgs", Type: "npm" },
    ],
  };
}

const DIGEST = "5d41402abc4b2a76b9719d911017c592ae2ee12c2b0b0fd1c6e6e0c4e0c3f3a1";

export const SLSA_V1_STATEMENT = {
  _type: "https://in-toto.io/Statement/v1",
  subject: [{ name: "acme-api-2.3.0.tgz", digest: { sha256: DIGEST } }],
  predicateType: "https://slsa.dev/provenance/v1",
  predicate: {
    buildDefinition: {
      buildType: "https://actions.github.io/buildtypes/workflow/v1",
      externalParameters: {
        workflow: {
          ref: "refs/tags/v2.3.0",
          repository: "https://github.com/acme/api",
          path: ".github/workflows/release.yml",
        },
      },
      internalParameters: { github: { event_name: "push", repository_id: "123456" } },
      resolvedDependencies: [{
        uri: "git+https://github.com/acme/api@refs/tags/v2.3.0",
        digest: { gitCommit: "7fd1a60b01f91b314f59955a4e4d4e80d8edf11d" },
      }],
    },
    runDetails: {
      builder: { id: "https://github.com/actions/runner/github-hosted" },
      metadata: { invocationId: "https://github.com/acme/api/actions/runs/1/attempts/1" },
    },
  },
};

export const SLSA_V02_STATEMENT = {
  _type: "https://in-toto.io/Statement/v0.1",
  predicateType: "https://slsa.dev/provenance/v0.2",
  subject: [{ name: "acme-api", digest: { sha256: DIGEST } }],
  predicate: {
    builder: {
      id: "https://github.com/slsa-framework/slsa-github-generator/.github/workflows/" +
        "generator_generic_slsa3.yml@refs/tags/v1.10.0",
    },
    buildType: "https://github.com/slsa-framework/slsa-github-generator/generic@v1",
    invocation: { configSource: { uri: "git+https://github.com/acme/api@refs/tags/v2.3.0" } },
    materials: [{ uri: "git+https://github.com/acme/api", digest: { sha1: DIGEST.slice(0, 40) } }],
  },
};

/** A DSSE envelope around `statement`, as cosign and the SLSA generator emit it. */
export function dsseEnvelope(statement: unknown) {
  return {
    payloadType: "application/vnd.in-toto+json",
    payload: base64(JSON.stringify(statement)),
    signatures: [{ keyid: "", sig: "MEUCIQDx3Yb7mJ2pQ1vE4mH0u1o5Yx0ZkRkz8cJ6FvZx1vWb0QIgYx" }],
  };
}

/** A Sigstore bundle (actions/attest-build-provenance) around a DSSE envelope. */
export function sigstoreBundle(statement: unknown) {
  return {
    mediaType: "application/vnd.dev.sigstore.bundle.v0.3+json",
    verificationMaterial: { tlogEntries: [], timestampVerificationData: {} },
    dsseEnvelope: dsseEnvelope(statement),
  };
}

export const CONFTEST_PASS = [
  {
    filename: "k8s/deployment.yaml",
    namespace: "main",
    successes: 4,
    warnings: [{ msg: "Deployment acme-api should set resources.limits.memory" }],
  },
  { filename: "k8s/service.yaml", namespace: "main", successes: 2 },
];

export const CONFTEST_FAIL = [
  {
    filename: "k8s/deployment.yaml",
    namespace: "main",
    successes: 3,
    failures: [{
      msg: "Containers must not run as root",
      metadata: { query: "data.main.deny" },
    }],
  },
  { filename: "k8s/service.yaml", namespace: "main", successes: 2 },
];

/** `opa eval --format json` output for one query whose value is `value`. */
export function opaEval(text: string, value: unknown) {
  return { result: [{ expressions: [{ value, text, location: { row: 1, col: 1 } }] }] };
}

export const NPM_LOCKFILE_V3 = {
  name: "acme-api",
  version: "2.3.0",
  lockfileVersion: 3,
  requires: true,
  packages: {
    "": { name: "acme-api", version: "2.3.0", dependencies: { hono: "^4.6.3" } },
    "node_modules/hono": {
      version: "4.6.3",
      resolved: "https://registry.npmjs.org/hono/-/hono-4.6.3.tgz",
      integrity:
        "sha512-0sEqLQ7a0pVFNs4fM5NqNNSZ0fZq8J3c2a3uKxH6BZAr8bn8Z9QGLf0m6F1s6Ge7YQwqUGdcEzv5e7EqCQKsQ==",
      license: "MIT",
    },
  },
};
