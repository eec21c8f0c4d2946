/**
 * The probes on real tools' output (tests/fixtures, origins in its README.md), and on the
 * shapes of reports that used to be misread.
 */
import assert from "node:assert/strict";
import {
  didPoliciesPass,
  hasNoFindingAbove,
  isDeploymentHealthy,
  readEvidence,
} from "../../src/evaluate/mod.ts";
import { type OsvGroup, osvScannerReport } from "./_fixtures.ts";
import { probeTable } from "./_table.ts";

function fixture(path: string): unknown {
  return JSON.parse(Deno.readTextFileSync(new URL(`../fixtures/${path}`, import.meta.url)));
}

const NO_VULN_SCANNING = /no vulnerability scanning in this report$/;

Deno.test("[evaluate] hasNoFindingAbove() is unknown for Trivy reports without vulnerability results", async (t) => {
  await probeTable(t, (p) => hasNoFindingAbove(p), [
    {
      name: "a secret-only scan (trivy/secrets.json)",
      input: fixture("trivy/secrets.json"),
      expected: { outcome: "unknown", reason: /only "secret"\): no vulnerability scanning/ },
    },
    {
      name: "a misconfiguration-only scan (trivy/dockerfile-misconfig.json)",
      input: fixture("trivy/dockerfile-misconfig.json"),
      expected: { outcome: "unknown", reason: /only "config"\): no vulnerability scanning/ },
    },
    {
      name: "a scan that skipped everything and has no Results (trivy/alpine-39-skip.json)",
      input: fixture("trivy/alpine-39-skip.json"),
      expected: { outcome: "unknown", reason: NO_VULN_SCANNING },
    },
    {
      name: 'an empty result list ({"Results":[]})',
      input: { Results: [] },
      expected: { outcome: "unknown", reason: NO_VULN_SCANNING },
    },
    {
      name: "a real vulnerability scan still reads (trivy/alpine-distroless.json)",
      input: fixture("trivy/alpine-distroless.json"),
      expected: {
        outcome: "pass",
        reason: /^Trivy report: 0 critical, 0 high, 1 medium, 0 low \(1 unrated\); no finding/,
      },
    },
  ]);
});

const V3_HIGH = "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H"; // 7.5
const V4_CRITICAL = "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N"; // 9.3
const V4_MEDIUM = "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:P/VC:L/VI:N/VA:N/SC:N/SI:N/SA:N"; // 5.3
const UNRATED: OsvGroup = { id: "GHSA-x", cve: "CVE-2026-1", score: "", db: null, vector: null };

Deno.test("[evaluate] hasNoFindingAbove() rates OSV advisories by their CVSS vectors", async (t) => {
  await probeTable(t, (p) => hasNoFindingAbove(p), [
    {
      name: "a CVSS v3.1 vector of 7.5 is high (osv-scanner/regex-rustsec-cvss.json)",
      input: fixture("osv-scanner/regex-rustsec-cvss.json"),
      expected: { outcome: "fail", reason: /^OSV-Scanner report: 0 critical, 1 high, 0 medium/ },
    },
    {
      name: "a CVSS v4.0 vector of 9.3 is critical",
      input: osvScannerReport([{ ...UNRATED, vector: V4_CRITICAL }]),
      expected: { outcome: "fail", reason: /1 critical, 0 high, 0 medium, 0 low; 1 above/ },
    },
    {
      name: "a CVSS v4.0 vector of 5.3 is medium and passes",
      input: osvScannerReport([{ ...UNRATED, vector: V4_MEDIUM }]),
      expected: { outcome: "pass", reason: /0 high, 1 medium, 0 low; no finding above/ },
    },
    {
      name: "the vector wins over a missing max_severity and a lower GitHub word",
      input: osvScannerReport([{ ...UNRATED, db: "LOW", vector: V3_HIGH }]),
      expected: { outcome: "fail", reason: /1 high/ },
    },
    {
      name: "an incomplete vector is not a rating",
      input: osvScannerReport([{ ...UNRATED, vector: "CVSS:3.1/AV:N/AC:L" }]),
      expected: { outcome: "pass", reason: /\(1 unrated\)/ },
    },
    {
      name: "a vector with an unknown value is not a rating",
      input: osvScannerReport([{ ...UNRATED, vector: V3_HIGH.replace("AV:N", "AV:Q") }]),
      expected: { outcome: "pass", reason: /\(1 unrated\)/ },
    },
  ]);
});

Deno.test("[evaluate] didPoliciesPass() reads conftest's --output json array", async (t) => {
  await probeTable(t, didPoliciesPass, [
    {
      name: "four failures fail (conftest/deployment-failures.json)",
      input: fixture("conftest/deployment-failures.json"),
      expected: {
        outcome: "fail",
        reason: /^conftest: 1 success, 0 warnings, 4 failures in 1 file; first: "Containers/,
      },
    },
  ]);
});

function deploymentList(replicas: number, ready: number | undefined) {
  const list = structuredClone(fixture("kubernetes/deployments-1-of-3-ready.json")) as {
    items: { spec: { replicas: number }; status: Record<string, unknown> }[];
  };
  const item = list.items[0];
  item.spec.replicas = replicas;
  item.status = ready === undefined ? {} : { replicas, readyReplicas: ready };
  return list;
}

Deno.test("[evaluate] isDeploymentHealthy() reads kubectl's Lists and Deployment status", async (t) => {
  await probeTable(t, isDeploymentHealthy, [
    {
      name: "1 of 3 ready fails (kubernetes/deployments-1-of-3-ready.json)",
      input: fixture("kubernetes/deployments-1-of-3-ready.json"),
      expected: {
        outcome: "fail",
        reason: /^Kubernetes Deployment "acme-api" is not ready \(1 of 3 replicas\)$/,
      },
    },
    {
      name: "3 of 3 ready passes",
      input: deploymentList(3, 3),
      expected: { outcome: "pass", reason: /^Kubernetes: 1 workload ready$/ },
    },
    {
      name: "a missing readyReplicas means none is ready",
      input: deploymentList(2, undefined),
      expected: { outcome: "fail", reason: /not ready \(0 of 2 replicas\)/ },
    },
    {
      name: "all replicas ready but the Available condition False fails",
      input: (() => {
        const list = fixture("kubernetes/deployments-1-of-3-ready.json") as {
          items: { status: Record<string, unknown> }[];
        };
        list.items[0].status.readyReplicas = 3;
        return list;
      })(),
      expected: { outcome: "fail", reason: /unavailable \(Available: False, MinimumReplicas/ },
    },
    {
      name: "a Deployment without status (a manifest) is unknown",
      input: (() => {
        const list = deploymentList(1, 1) as { items: Record<string, unknown>[] };
        delete list.items[0].status;
        return list.items[0];
      })(),
      expected: { outcome: "unknown", reason: /has no status/ },
    },
    {
      name: "a List of Services only is unknown",
      input: { apiVersion: "v1", kind: "List", items: [{ apiVersion: "v1", kind: "Service" }] },
      expected: { outcome: "unknown", reason: /has no Deployment, StatefulSet/ },
    },
    {
      name: "a DaemonSet reads numberReady against desiredNumberScheduled",
      input: {
        apiVersion: "apps/v1",
        kind: "DaemonSet",
        metadata: { name: "agent" },
        status: { desiredNumberScheduled: 4, numberReady: 3 },
      },
      expected: { outcome: "fail", reason: /DaemonSet "agent" is not ready \(3 of 4/ },
    },
  ]);
});

Deno.test("[evaluate] readEvidence() names the format and says whether it was understood", async (t) => {
  const rows: [string, Parameters<typeof readEvidence>, unknown][] = [
    [
      "a Trivy vulnerability scan",
      ["vulnerability_scan", fixture("trivy/alpine-distroless.json")],
      {
        format: "trivy",
        understood: true,
      },
    ],
    ["a Trivy secret scan: Trivy, not understood", [
      "vulnerability_scan",
      fixture("trivy/secrets.json"),
    ], { format: "trivy", understood: false }],
    ["conftest output", ["policy_result", fixture("conftest/deployment-failures.json")], {
      format: "conftest",
      understood: true,
    }],
    [
      "a kubectl List",
      ["deployment_snapshot", fixture("kubernetes/deployments-1-of-3-ready.json")],
      {
        format: "kubernetes",
        understood: true,
      },
    ],
    ["a custom document", ["sbom", { build: 42 }], { format: null, understood: false }],
  ];
  for (const [name, args, expected] of rows) {
    await t.step(name, () => {
      const reading = readEvidence(...args);
      assert.deepEqual({ format: reading.format, understood: reading.understood }, expected);
      assert.ok(reading.summary.length > 0);
    });
  }
});
