/**
 * VEX-aware vulnerability evaluation: one row per matching rule, on real OpenVEX, CycloneDX
 * VEX and CSAF VEX documents (tests/fixtures, origins in its README.md) and scans written
 * in Trivy's and Grype's shapes for the packages those documents name.
 */
import assert from "node:assert/strict";
import {
  evaluateControl,
  hasNoFindingAbove,
  parsePurl,
  purlMatches,
  readEvidence,
  type VexEvidence,
} from "../../src/evaluate/mod.ts";
import { control, L, observed } from "./_support.ts";
import { probeTable } from "./_table.ts";

function fixture(path: string): unknown {
  return JSON.parse(Deno.readTextFileSync(new URL(`../fixtures/${path}`, import.meta.url)));
}

let records = 0;
/** VEX documents as stored evidence, observed one hour apart in the order given. */
function stored(...payloads: unknown[]): VexEvidence[] {
  return payloads.map((payload, i) => ({
    payload,
    observedAt: new Date(Date.parse("2026-01-01T00:00:00Z") + i * 3600_000).toISOString(),
    evidenceRecordId: `00000000-0000-4000-8000-${String(++records).padStart(12, "0")}`,
  }));
}

interface Vuln {
  id: string;
  purl?: string;
  name: string;
  version: string;
  severity?: string;
  vendorIds?: string[];
}

const ALPINE_DIGEST = "sha256:124c7d2707904eea7431fffe91522a01e5a861a624ee31d03372cc1d138a3126";

/** A Trivy image scan of `alpine@digest` with the vulnerabilities given (all HIGH by default). */
function trivyScan(vulns: Vuln[], digest = ALPINE_DIGEST) {
  return {
    SchemaVersion: 2,
    ArtifactName: "alpine:3.18.0",
    ArtifactType: "container_image",
    Metadata: {
      OS: { Family: "alpine", Name: "3.18.0" },
      ImageID: "sha256:c1aabb73d2339c5ebaa3681de2e9d9c18d57485045a4e311d9f8004bec208d67",
      RepoTags: ["alpine:3.18.0"],
      RepoDigests: [`alpine@${digest}`],
    },
    Results: [{
      Target: "alpine:3.18.0 (alpine 3.18.0)",
      Class: "os-pkgs",
      Type: "alpine",
      Vulnerabilities: vulns.map((v) => ({
        VulnerabilityID: v.id,
        ...(v.vendorIds ? { VendorIDs: v.vendorIds } : {}),
        PkgID: `${v.name}@${v.version}`,
        PkgName: v.name,
        ...(v.purl ? { PkgIdentifier: { PURL: v.purl } } : {}),
        InstalledVersion: v.version,
        Status: "fixed",
        Severity: v.severity ?? "HIGH",
      })),
    }],
  };
}

const apk = (name: string, version: string) =>
  `pkg:apk/alpine/${name}@${version}?arch=x86_64&distro=3.18.0`;
const libssl3 = (id: string, version = "3.0.8-r3"): Vuln => ({
  id,
  name: "libssl3",
  version,
  purl: apk("libssl3", version),
});
const libcrypto3 = (id: string): Vuln => ({
  id,
  name: "libcrypto3",
  version: "3.0.8-r3",
  purl: apk("libcrypto3", "3.0.8-r3"),
});

/** A Grype scan with one match for jackson-databind 2.10.0, under GHSA id `id`. */
function grypeJackson(id: string, related: string[], version = "2.10.0") {
  return {
    matches: [{
      vulnerability: { id, namespace: "github:language:java", severity: "High" },
      relatedVulnerabilities: related.map((r) => ({ id: r, namespace: "nvd:cpe" })),
      artifact: {
        name: "jackson-databind",
        version,
        type: "java-archive",
        purl: `pkg:maven/com.fasterxml.jackson.core/jackson-databind@${version}`,
      },
    }],
    source: { type: "directory", target: "/app" },
    descriptor: { name: "grype", version: "0.79.0" },
  };
}

/** An OpenVEX v0.2.0 document with one statement. */
function openVex(statement: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    "@context": "https://openvex.dev/ns/v0.2.0",
    "@id": "acme-vex-2026-11",
    author: "Acme Security",
    timestamp: "2026-11-02T10:00:00Z",
    version: 1,
    statements: [statement],
    ...extra,
  };
}

const ALPINE_VEX = fixture("openvex/alpine-libssl3.json");
const ALPINE_VEX_BY =
  /by VEX https:\/\/openvex\.dev\/docs\/public\/vex-d4e9.* by The OpenVEX Project/;
const CDX_JACKSON = fixture("cyclonedx-vex/jackson-databind-not-affected.json");
const CDX_ABC = fixture("cyclonedx-vex/cisa-abc-not-affected.json");
const CSAF = fixture("csaf-vex/go-homedir-not-affected.json");

interface Row {
  name: string;
  scan: unknown;
  vex: VexEvidence[];
  expected: { outcome: "pass" | "fail" | "unknown"; reason: RegExp };
}

async function vexTable(t: Deno.TestContext, rows: Row[]) {
  await probeTable(
    t,
    (input) => {
      const { scan, vex } = input as { scan: unknown; vex: VexEvidence[] };
      return hasNoFindingAbove(scan, "medium", vex);
    },
    rows.map(({ name, scan, vex, expected }) => ({ name, input: { scan, vex }, expected })),
  );
}

Deno.test("[evaluate] hasNoFindingAbove() applies OpenVEX statements", async (t) => {
  await vexTable(t, [
    {
      name: "match: not_affected for the image and its subcomponents suppresses both packages",
      scan: trivyScan([libssl3("CVE-2023-3446"), libcrypto3("CVE-2023-3446")]),
      vex: stored(ALPINE_VEX),
      expected: {
        outcome: "pass",
        reason: new RegExp(
          "^Trivy report: 0 critical, 0 high, 0 medium, 0 low \\(2 suppressed " +
            ALPINE_VEX_BY.source + ".*: not_affected, 2023-07-17T18:28:47\\.696004345-06:00\\); " +
            "no finding above medium$",
        ),
      },
    },
    {
      name: "no match: a vulnerability the document does not name stays",
      scan: trivyScan([libssl3("CVE-2023-3446"), libssl3("CVE-2024-0727")]),
      vex: stored(ALPINE_VEX),
      expected: {
        outcome: "fail",
        reason:
          /^Trivy report: 0 critical, 1 high, 0 medium, 0 low \(1 suppressed by VEX .*\); 1 above medium$/,
      },
    },
    {
      name: "wrong product: the same packages in another image are not suppressed",
      scan: trivyScan(
        [libssl3("CVE-2023-3446")],
        "sha256:0000000000000000000000000000000000000000000000000000000000000000",
      ),
      vex: stored(ALPINE_VEX),
      expected: {
        outcome: "fail",
        reason: /^Trivy report: 0 critical, 1 high, 0 medium, 0 low; 1 above/,
      },
    },
    {
      name: "wrong version: a subcomponent at another version is not suppressed",
      scan: trivyScan([libssl3("CVE-2023-3446", "3.0.9-r0")]),
      vex: stored(ALPINE_VEX),
      expected: { outcome: "fail", reason: /1 high, 0 medium, 0 low; 1 above medium$/ },
    },
    {
      name: "wrong subcomponent: a package the statement does not list is not suppressed",
      scan: trivyScan([{
        ...libssl3("CVE-2023-3446"),
        name: "openssl",
        purl: apk("openssl", "3.0.8-r3"),
      }]),
      vex: stored(ALPINE_VEX),
      expected: { outcome: "fail", reason: /1 high, 0 medium, 0 low; 1 above medium$/ },
    },
    {
      name: "fixed suppresses",
      scan: trivyScan([libssl3("CVE-2023-2650", "3.0.8-r3")]),
      vex: stored(ALPINE_VEX),
      expected: { outcome: "pass", reason: /\(1 suppressed by VEX .*: fixed, 2023-07-17T18/ },
    },
    {
      name: "alias match: a statement's alias names the scan's id",
      scan: trivyScan([libssl3("GHSA-aaaa-bbbb-cccc")]),
      vex: stored(openVex({
        vulnerability: { name: "CVE-2026-1111", aliases: ["GHSA-aaaa-bbbb-cccc"] },
        products: [{ "@id": "pkg:apk/alpine/libssl3" }],
        status: "not_affected",
        justification: "vulnerable_code_not_in_execute_path",
      })),
      expected: {
        outcome: "pass",
        reason:
          /\(1 suppressed by VEX acme-vex-2026-11 by Acme Security: not_affected, 2026-11-02T10:00:00Z\)/,
      },
    },
    {
      name: "alias match: the scan's alias (Trivy VendorIDs) names the statement's id",
      scan: trivyScan([{ ...libssl3("CVE-2026-2222"), vendorIds: ["ALPINE-2026-9"] }]),
      vex: stored(openVex({
        vulnerability: { name: "ALPINE-2026-9" },
        products: [{ "@id": "pkg:apk/alpine/libssl3@3.0.8-r3" }],
        status: "fixed",
      })),
      expected: { outcome: "pass", reason: /1 suppressed by VEX acme-vex-2026-11/ },
    },
    {
      name: "a versionless product purl matches every version of the package",
      scan: trivyScan([libssl3("CVE-2026-1111", "3.1.0-r0")]),
      vex: stored(openVex({
        vulnerability: { name: "CVE-2026-1111" },
        products: [{ "@id": "pkg:apk/alpine/libssl3" }],
        status: "not_affected",
      })),
      expected: { outcome: "pass", reason: /1 suppressed/ },
    },
    {
      name: "a product qualifier the package lacks does not match",
      scan: trivyScan([libssl3("CVE-2026-1111")]),
      vex: stored(openVex({
        vulnerability: { name: "CVE-2026-1111" },
        products: [{ "@id": "pkg:apk/alpine/libssl3@3.0.8-r3?arch=aarch64" }],
        status: "not_affected",
      })),
      expected: { outcome: "fail", reason: /1 high, 0 medium, 0 low; 1 above/ },
    },
    {
      name: "name@version identifies a package without a purl",
      scan: trivyScan([{ id: "CVE-2026-1111", name: "busybox", version: "1.36.1-r0" }]),
      vex: stored(openVex({
        vulnerability: { name: "CVE-2026-1111" },
        products: [{ "@id": "busybox@1.36.1-r0" }],
        status: "not_affected",
      })),
      expected: { outcome: "pass", reason: /1 suppressed/ },
    },
    {
      name: "under_investigation suppresses nothing",
      scan: trivyScan([{
        id: "CVE-9876-54321",
        name: "bash",
        version: "1.0.0",
        purl: "pkg:apk/wolfi/bash@1.0.0?arch=x86_64",
      }]),
      vex: stored(fixture("openvex/wolfi-bash-under-investigation.json")),
      expected: {
        outcome: "fail",
        reason: /^Trivy report: 0 critical, 1 high, 0 medium, 0 low; 1 above/,
      },
    },
    {
      name: "affected suppresses nothing",
      scan: trivyScan([libssl3("CVE-2026-1111")]),
      vex: stored(openVex({
        vulnerability: { name: "CVE-2026-1111" },
        products: [{ "@id": "pkg:apk/alpine/libssl3@3.0.8-r3" }],
        status: "affected",
        action_statement: "Upgrade to 3.0.9-r0",
      })),
      expected: { outcome: "fail", reason: /1 high, 0 medium, 0 low; 1 above/ },
    },
    {
      name: "override: a later statement in the document (fixed) overrides under_investigation",
      scan: trivyScan([{
        id: "CVE-2023-12345",
        name: "git",
        version: "2.39.0-r1",
        purl: "pkg:apk/wolfi/git@2.39.0-r1?arch=armv7",
      }]),
      vex: stored(fixture("openvex/wolfi-git-fixed-after-investigation.json")),
      expected: {
        outcome: "pass",
        reason: /1 suppressed by VEX .*: fixed, 2023-01-09T09:08:42-06:00/,
      },
    },
    {
      name: "override: a later document saying affected undoes an earlier not_affected",
      scan: trivyScan([libssl3("CVE-2026-1111")]),
      vex: stored(
        openVex({
          vulnerability: { name: "CVE-2026-1111" },
          products: [{ "@id": "pkg:apk/alpine/libssl3" }],
          status: "not_affected",
          justification: "component_not_present",
        }),
        openVex({
          vulnerability: { name: "CVE-2026-1111" },
          products: [{ "@id": "pkg:apk/alpine/libssl3@3.0.8-r3" }],
          status: "affected",
          action_statement: "Upgrade",
        }, { "@id": "acme-vex-2026-12", timestamp: "2026-12-01T00:00:00Z" }),
      ),
      expected: { outcome: "fail", reason: /1 high, 0 medium, 0 low; 1 above/ },
    },
    {
      name: "override: an older statement sent later does not override a newer one",
      scan: trivyScan([libssl3("CVE-2026-1111")]),
      vex: stored(
        openVex({
          vulnerability: { name: "CVE-2026-1111" },
          products: [{ "@id": "pkg:apk/alpine/libssl3" }],
          status: "fixed",
        }),
        openVex({
          vulnerability: { name: "CVE-2026-1111" },
          products: [{ "@id": "pkg:apk/alpine/libssl3" }],
          status: "affected",
          action_statement: "Upgrade",
        }, { "@id": "acme-vex-2025-01", timestamp: "2025-01-01T00:00:00Z" }),
      ),
      expected: { outcome: "pass", reason: /1 suppressed by VEX acme-vex-2026-11 .*: fixed/ },
    },
    {
      name: "several statements are each named with their counts",
      scan: trivyScan([
        libssl3("CVE-2023-3446"),
        libcrypto3("CVE-2023-3446"),
        libssl3("CVE-2023-2650"),
        libssl3("CVE-2024-0727", "3.0.8-r3"),
      ]),
      vex: stored(ALPINE_VEX),
      expected: {
        outcome: "fail",
        reason:
          /\(3 suppressed by VEX: 2 by https:.* not_affected, .*; 1 by https:.* fixed, .*\); 1 above medium$/,
      },
    },
    {
      name: "a normalized summary names no findings: VEX is not applied, and the reason says so",
      scan: { summary: { critical: 0, high: 1 } },
      vex: stored(ALPINE_VEX),
      expected: { outcome: "fail", reason: /\(VEX not applied: a summary names no findings\)/ },
    },
    {
      name: "an unreadable VEX document is skipped",
      scan: trivyScan([libssl3("CVE-2023-3446")]),
      vex: stored({ "@context": "https://openvex.dev/ns/v0.2.0", statements: "none" }),
      expected: { outcome: "fail", reason: /1 high, 0 medium, 0 low; 1 above/ },
    },
  ]);
});

Deno.test("[evaluate] hasNoFindingAbove() applies CycloneDX VEX and CSAF VEX", async (t) => {
  await vexTable(t, [
    {
      name: "CycloneDX VEX: not_affected by BOM-Link purl, matched through the Grype alias",
      scan: grypeJackson("GHSA-288c-cq4h-88gq", ["CVE-2020-25649"]),
      vex: stored(CDX_JACKSON),
      expected: {
        outcome: "pass",
        reason:
          /^Grype report: .*\(1 suppressed by VEX \(no serialNumber\): not_affected, 2021-10-26T00:00:00\.000Z\)/,
      },
    },
    {
      name: "CycloneDX VEX: another version of the package is not suppressed",
      scan: grypeJackson("GHSA-288c-cq4h-88gq", ["CVE-2020-25649"], "2.9.10"),
      vex: stored(CDX_JACKSON),
      expected: { outcome: "fail", reason: /^Grype report: 0 critical, 1 high/ },
    },
    {
      name: "CycloneDX VEX: a component without purl is matched by name@version",
      scan: trivyScan([{
        id: "CVE-2021-44228",
        name: "ABC",
        version: "4.2",
        severity: "CRITICAL",
      }]),
      vex: stored(CDX_ABC),
      expected: {
        outcome: "pass",
        reason: /1 suppressed by VEX .*: not_affected, 2022-03-03T00:00:00Z/,
      },
    },
    {
      name: "CycloneDX VEX: the same name at another version is not",
      scan: trivyScan([{
        id: "CVE-2021-44228",
        name: "ABC",
        version: "4.3",
        severity: "CRITICAL",
      }]),
      vex: stored(CDX_ABC),
      expected: { outcome: "fail", reason: /^Trivy report: 1 critical/ },
    },
    {
      name: "CSAF VEX: known_not_affected by the product's purl",
      scan: trivyScan([{
        id: "CVE-2009-4487",
        name: "github.com/go-homedir",
        version: "v1.2.0",
        purl: "pkg:golang/github.com/go-homedir@v1.2.0",
      }]),
      vex: stored(CSAF),
      expected: {
        outcome: "pass",
        reason:
          /1 suppressed by VEX 2022-EVD-UC-01-NA-001 by Example Company: not_affected, 2022-03-03T11:00:00\.000Z/,
      },
    },
    {
      name: "CSAF VEX: another version is not suppressed",
      scan: trivyScan([{
        id: "CVE-2009-4487",
        name: "github.com/go-homedir",
        version: "v1.1.0",
        purl: "pkg:golang/github.com/go-homedir@v1.1.0",
      }]),
      vex: stored(CSAF),
      expected: { outcome: "fail", reason: /1 high, 0 medium, 0 low; 1 above/ },
    },
    {
      name: "CSAF VEX: another vulnerability of the product is not suppressed",
      scan: trivyScan([{
        id: "CVE-2009-4488",
        name: "github.com/go-homedir",
        version: "v1.2.0",
        purl: "pkg:golang/github.com/go-homedir@v1.2.0",
      }]),
      vex: stored(CSAF),
      expected: { outcome: "fail", reason: /1 high, 0 medium, 0 low; 1 above/ },
    },
  ]);
});

Deno.test("[evaluate] OpenVEX purl matching goes from general to specific", async (t) => {
  const rows: [string, string, string, boolean][] = [
    [
      "same purl",
      "pkg:apk/wolfi/curl@8.1.2-r0?arch=x86_64",
      "pkg:apk/wolfi/curl@8.1.2-r0?arch=x86_64",
      true,
    ],
    ["different type", "pkg:apk/wolfi/curl@8.1.2-r0", "pkg:rpm/wolfi/curl@8.1.2-r0", false],
    ["different namespace", "pkg:apk/wolfi/curl@8.1.2-r0", "pkg:apk/alpine/curl@8.1.2-r0", false],
    ["different name", "pkg:apk/wolfi/curl@8.1.2-r0", "pkg:apk/wolfi/bash@8.1.2-r0", false],
    ["different version", "pkg:apk/wolfi/curl@8.1.2-r0", "pkg:apk/wolfi/curl@8.1.3-r0", false],
    [
      "general without qualifiers",
      "pkg:apk/wolfi/curl@8.1.2-r0",
      "pkg:apk/wolfi/curl@8.1.2-r0?arch=x86_64",
      true,
    ],
    [
      "specific without qualifiers",
      "pkg:apk/wolfi/curl@8.1.2-r0?arch=x86_64",
      "pkg:apk/wolfi/curl@8.1.2-r0",
      false,
    ],
    ["versionless", "pkg:oci/curl", `pkg:oci/curl@${encodeURIComponent(ALPINE_DIGEST)}`, true],
    ["versioned general, versionless specific", "pkg:oci/curl@sha256%3Aab", "pkg:oci/curl", false],
    [
      "different qualifier value",
      "pkg:oci/curl?arch=amd64&os=linux",
      "pkg:oci/curl?arch=arm64&os=linux",
      false,
    ],
    [
      "more qualifiers on the specific",
      "pkg:apk/wolfi/curl?arch=x86_64",
      "pkg:apk/wolfi/curl?os=linux&arch=x86_64",
      true,
    ],
    ["percent-encoded version", "pkg:oci/alpine@sha256%3A124c", "pkg:oci/alpine@sha256:124c", true],
    [
      "npm names are case-insensitive",
      "pkg:npm/%40Acme/Lib@1.0.0",
      "pkg:npm/@acme/lib@1.0.0",
      true,
    ],
    [
      "Maven's default type=jar",
      "pkg:maven/com.fasterxml.jackson.core/jackson-databind@2.10.0?type=jar",
      "pkg:maven/com.fasterxml.jackson.core/jackson-databind@2.10.0",
      true,
    ],
    [
      "Maven's type=pom is not a jar",
      "pkg:maven/com.fasterxml.jackson.core/jackson-databind@2.10.0?type=pom",
      "pkg:maven/com.fasterxml.jackson.core/jackson-databind@2.10.0",
      false,
    ],
    ["not a purl", "curl@8.1.2-r0", "pkg:apk/wolfi/curl@8.1.2-r0", false],
  ];
  for (const [name, general, specific, expected] of rows) {
    await t.step(name, () => {
      const [g, s] = [parsePurl(general), parsePurl(specific)];
      assert.equal(g !== null && s !== null && purlMatches(g, s), expected);
    });
  }
});

Deno.test("[evaluate] VEX documents as evidence: readings and the control", async (t) => {
  await t.step("ingest readings understand the three formats", () => {
    for (
      const [payload, format, summary] of [
        [
          ALPINE_VEX,
          "openvex",
          /^OpenVEX document .* by The OpenVEX Project .*: 5 statements \(3 fixed, 2 not_affected\)/,
        ],
        [
          CDX_JACKSON,
          "cyclonedx-vex",
          /^CycloneDX VEX \(no serialNumber\): 1 statement \(1 not_affected\)/,
        ],
        [CSAF, "csaf-vex", /^CSAF VEX 2022-EVD-UC-01-NA-001 by Example Company: 1 statement/],
      ] as const
    ) {
      const reading = readEvidence("vulnerability_scan", payload);
      assert.equal(reading.format, format);
      assert.equal(reading.understood, true);
      assert.match(reading.summary, summary);
    }
  });

  await t.step("a broken VEX document is recognized but not understood", () => {
    const reading = readEvidence(
      "vulnerability_scan",
      openVex({ vulnerability: {}, status: "fixed" }),
    );
    assert.deepEqual(reading, {
      format: "openvex",
      understood: false,
      summary: "OpenVEX document: statements[0] names no vulnerability",
    });
  });

  await t.step("a VEX document is not a scan when it is the observation itself", () => {
    const result = hasNoFindingAbove(ALPINE_VEX);
    assert.equal(result.outcome, "unknown");
    assert.match(result.reason, /not a scan itself$/);
  });

  await t.step("evaluateControl() hands the observation's VEX documents to the probe", () => {
    const scanControl = control({ evidenceType: "vulnerability_scan" });
    const scan = trivyScan([libssl3("CVE-2023-3446")]);
    const without = evaluateControl(scanControl, observed(scan), new Date(L));
    const withVex = evaluateControl(
      scanControl,
      { ...observed(scan), vex: stored(ALPINE_VEX) },
      new Date(L),
    );
    assert.equal(without.state, "fail");
    assert.equal(withVex.state, "pass");
    assert.match(withVex.reason, /1 suppressed by VEX/);
  });
});
