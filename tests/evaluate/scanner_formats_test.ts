/**
 * The scanners vendors already run, read from their own output (tests/fixtures, origins in
 * its README.md): npm, pnpm and Yarn audits, pip-audit, cargo-audit, govulncheck, Snyk and
 * SARIF, as a vulnerability scan and as a policy result; and the closest-format reason for
 * a document no probe reads.
 */
import assert from "node:assert/strict";
import { splitJsonStream } from "../../src/cli/collector.ts";
import {
  didPoliciesPass,
  hasNoFindingAbove,
  probeById,
  readEvidence,
  renderEvaluationMarkdown,
} from "../../src/evaluate/mod.ts";
import { EVIDENCE_FORMATS } from "../../src/domain/evidence_formats.ts";
import { probeTable } from "./_table.ts";

function text(path: string): string {
  return Deno.readTextFileSync(new URL(`../fixtures/${path}`, import.meta.url));
}

/** A fixture: one JSON document, or a stream of them read as the collector CLI sends it. */
function fixture(path: string): unknown {
  try {
    return JSON.parse(text(path));
  } catch {
    const values = splitJsonStream(text(path));
    assert.ok(values, `${path} is neither JSON nor a JSON stream`);
    return values;
  }
}

const scan = (p: unknown) => hasNoFindingAbove(p);

Deno.test("[evaluate] hasNoFindingAbove() reads npm audit --json (v2)", async (t) => {
  await probeTable(t, scan, [
    {
      name: "npm's own snapshot: one high advisory fails (npm-audit/npm-cli-json-audit.json)",
      input: fixture("npm-audit/npm-cli-json-audit.json"),
      expected: {
        outcome: "fail",
        reason: /^npm audit report: 0 critical, 1 high, 0 medium, 0 low; 1 above medium$/,
      },
    },
    {
      name: "a real run: two high lodash advisories fail; mkdirp is not counted twice",
      input: fixture("npm-audit/acme-web.json"),
      expected: {
        outcome: "fail",
        reason:
          /^npm audit report: 0 critical, 2 high, 0 medium, 1 low \(1 more package vulnerable only through a dependency, whose advisories are counted there\) \(counted per advisory in each package; npm audit's own summary counts vulnerable packages: 1 high, 2 low\); 2 above medium$/,
      },
    },
    {
      name: "the same run with --omit=dev: one low advisory passes",
      input: fixture("npm-audit/acme-web-omit-dev.json"),
      expected: { outcome: "pass", reason: /0 high, 0 medium, 1 low .*; no finding above medium$/ },
    },
    {
      name: "a clean report passes",
      input: { auditReportVersion: 2, vulnerabilities: {}, metadata: { vulnerabilities: {} } },
      expected: {
        outcome: "pass",
        reason: /^npm audit report: 0 critical, 0 high, 0 medium, 0 low;/,
      },
    },
    {
      name: "moderate is medium, critical fails",
      input: npmAudit([["a", "moderate"], ["b", "critical"]]),
      expected: { outcome: "fail", reason: /1 critical, 0 high, 1 medium, 0 low; 1 above/ },
    },
    {
      name: "a package entry without via is unknown, in the npm-audit format",
      input: { auditReportVersion: 2, vulnerabilities: { x: { name: "x" } } },
      expected: { outcome: "unknown", reason: /npm audit "x" has no via list/ },
    },
  ]);
});

function npmAudit(entries: [string, string][]) {
  const vulnerabilities: Record<string, unknown> = {};
  for (const [name, severity] of entries) {
    vulnerabilities[name] = {
      name,
      severity,
      via: [{
        source: 1,
        name,
        url: "https://github.com/advisories/GHSA-aaaa-bbbb-cccc",
        severity,
      }],
    };
  }
  return { auditReportVersion: 2, vulnerabilities, metadata: { vulnerabilities: {} } };
}

Deno.test("[evaluate] hasNoFindingAbove() reads what pnpm and Yarn print", async (t) => {
  await probeTable(t, scan, [
    {
      name: "pnpm audit --json (v1 report): 2 high, 1 low fail (pnpm-audit/acme-web.json)",
      input: fixture("pnpm-audit/acme-web.json"),
      expected: {
        outcome: "fail",
        reason: /^npm audit \(v1\) report: 0 critical, 2 high, 0 medium, 1 low; 2 above medium$/,
      },
    },
    {
      name: "pnpm audit --prod --json: 1 low passes",
      input: fixture("pnpm-audit/acme-web-prod.json"),
      expected: { outcome: "pass", reason: /0 high, 0 medium, 1 low; no finding above medium$/ },
    },
    {
      name: "yarn npm audit --json lines: 2 high, 1 low fail (yarn-audit/acme-web.ndjson)",
      input: fixture("yarn-audit/acme-web.ndjson"),
      expected: {
        outcome: "fail",
        reason: /^Yarn audit report: 0 critical, 2 high, 0 medium, 1 low; 2 above medium$/,
      },
    },
    {
      name: "a single Yarn line is one JSON object: 1 low passes",
      input: fixture("yarn-audit/acme-web-production.ndjson"),
      expected: { outcome: "pass", reason: /^Yarn audit report: .*1 low; no finding above/ },
    },
  ]);
});

Deno.test("[evaluate] hasNoFindingAbove() reads pip-audit and cargo-audit JSON", async (t) => {
  await probeTable(t, scan, [
    {
      name: "pip-audit rates nothing: 3 unrated findings fail (pip-audit/foo-bar-vulns.json)",
      input: fixture("pip-audit/foo-bar-vulns.json"),
      expected: {
        outcome: "fail",
        reason:
          /^pip-audit report: 0 critical, 0 high, 0 medium, 0 low \(3 unrated\); 3 unrated findings fail \(pip-audit gives no severity/,
      },
    },
    {
      name: "a skipped dependency is named (pip-audit/skipped-dep.json)",
      input: fixture("pip-audit/skipped-dep.json"),
      expected: {
        outcome: "fail",
        reason: /\(1 dependency skipped by pip-audit, not audited\); 1 unrated finding fails/,
      },
    },
    {
      name: "pip-audit without vulnerabilities passes",
      input: { dependencies: [{ name: "foo", version: "1.0", vulns: [] }], fixes: [] },
      expected: { outcome: "pass", reason: /^pip-audit report: 0 critical.*no finding above/ },
    },
    {
      name: "cargo audit: a CVSS 6.2 vector is medium, the unmaintained warning is not counted",
      input: fixture("cargo-audit/time-segfault.json"),
      expected: {
        outcome: "pass",
        reason:
          /^cargo-audit report: 0 critical, 0 high, 1 medium, 0 low \(1 unmaintained warning not counted\); no finding above medium$/,
      },
    },
    {
      name: "cargo audit: the same advisory with a critical vector fails",
      input: (() => {
        const report = fixture("cargo-audit/time-segfault.json") as {
          vulnerabilities: { list: { advisory: { cvss: string } }[] };
        };
        report.vulnerabilities.list[0].advisory.cvss =
          "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H";
        return report;
      })(),
      expected: { outcome: "fail", reason: /1 critical, 0 high, 0 medium, 0 low .*; 1 above/ },
    },
  ]);
});

Deno.test("[evaluate] hasNoFindingAbove() reads govulncheck's JSON stream", async (t) => {
  await probeTable(t, scan, [
    {
      name: "symbol scan: called vulnerabilities fail, the rest is informational",
      input: fixture("govulncheck/source-call.jsonstream"),
      expected: {
        outcome: "fail",
        reason:
          /^govulncheck report: 0 critical, 0 high, 0 medium, 0 low \(2 unrated\) \(2 vulnerabilities called; 1 imported but not called; 1 required but not imported, informational\); 2 unrated findings fail \(the Go vulnerability database gives no severity/,
      },
    },
    {
      name: "package scan: an imported vulnerability is at the scan level and fails",
      input: fixture("govulncheck/source-package.jsonstream"),
      expected: {
        outcome: "fail",
        reason: /\(1 vulnerability imported but not called\); 1 unrated/,
      },
    },
    {
      name: "symbol scan where nothing is called passes, naming what was imported",
      input: (fixture("govulncheck/source-call.jsonstream") as Record<string, unknown>[])
        .filter((m) => !JSON.stringify(m).includes('"function"')),
      expected: {
        outcome: "pass",
        reason: /\(0 vulnerabilities called; 3 imported but not called; .*no finding above/,
      },
    },
  ]);
});

Deno.test("[evaluate] hasNoFindingAbove() reads Snyk CLI JSON", async (t) => {
  await probeTable(t, scan, [
    {
      name: "11 paths are 7 vulnerabilities (Snyk's uniqueCount): 2 high fail",
      input: fixture("snyk/cli-grouping.json"),
      expected: {
        outcome: "fail",
        reason: /^Snyk report: 0 critical, 2 high, 4 medium, 1 low; 2 above medium$/,
      },
    },
    {
      name: "--all-projects prints an array of projects",
      input: fixture("snyk/cli-grouping-all-projects.json"),
      expected: { outcome: "fail", reason: /^Snyk report: 0 critical, 3 high, 5 medium, 1 low;/ },
    },
    {
      name: "license issues are not vulnerabilities",
      input: {
        ok: false,
        packageManager: "npm",
        summary: "1 vulnerable dependency path",
        vulnerabilities: [{ id: "snyk:lic:npm:x:GPL-3.0", type: "license", severity: "high" }],
      },
      expected: { outcome: "pass", reason: /0 high.*\(1 license issue not counted\); no finding/ },
    },
  ]);
});

Deno.test("[evaluate] SARIF 2.1.0 as a vulnerability scan and as a policy result", async (t) => {
  await t.step("as a vulnerability scan", async (t) => {
    await probeTable(t, scan, [
      {
        name: "Trivy's SARIF: security-severity 5.3 is medium, passes",
        input: fixture("sarif/trivy-alpine-310.sarif.json"),
        expected: {
          outcome: "pass",
          reason: /^SARIF \(Trivy\): 0 critical, 0 high, 4 medium, 0 low; no finding above medium$/,
        },
      },
      {
        name: "Trivy's SARIF with a security-severity of 9.8 is critical, fails",
        input: (() => {
          const log = fixture("sarif/trivy-alpine-310.sarif.json") as {
            runs: { tool: { driver: { rules: { properties: Record<string, string> }[] } } }[];
          };
          log.runs[0].tool.driver.rules[0].properties["security-severity"] = "9.8";
          return log;
        })(),
        expected: { outcome: "fail", reason: /2 critical, 0 high, 2 medium, 0 low; 2 above/ },
      },
      {
        name: "Semgrep: level error is high; the nosemgrep result is suppressed",
        input: fixture("sarif/semgrep-nosemgrep.sarif.json"),
        expected: {
          outcome: "fail",
          reason:
            /^SARIF \(Semgrep OSS\): 0 critical, 1 high, 0 medium, 0 low \(1 suppressed result not counted\); 1 above medium$/,
        },
      },
      {
        name: "CodeQL: notes (the rules' default level) are low, over two runs",
        input: fixture("sarif/codeql-action-valid.sarif.json"),
        expected: {
          outcome: "pass",
          reason:
            /^SARIF \(LGTM\.com, CodeQL command-line toolchain\): 0 critical, 0 high, 0 medium, 3 low;/,
        },
      },
      {
        name: "results of kind pass and level none are no problems",
        input: {
          version: "2.1.0",
          runs: [{
            tool: { driver: { name: "x" } },
            results: [{ ruleId: "a", kind: "pass", level: "error" }, {
              ruleId: "b",
              level: "none",
            }],
          }],
        },
        expected: { outcome: "pass", reason: /^SARIF \(x\): 0 critical, 0 high, 0 medium, 0 low;/ },
      },
      {
        name: "a log without runs is unknown: no tool ran",
        input: { version: "2.1.0", runs: [] },
        expected: { outcome: "unknown", reason: /^SARIF log has no runs: no tool ran$/ },
      },
      {
        name: "a suppression under review still counts; an accepted one does not",
        input: {
          version: "2.1.0",
          runs: [{
            tool: { driver: { name: "x" } },
            results: [
              {
                ruleId: "a",
                level: "error",
                suppressions: [{ kind: "external", status: "underReview" }],
              },
              {
                ruleId: "b",
                level: "error",
                suppressions: [{ kind: "external", status: "accepted" }],
              },
            ],
          }],
        },
        expected: {
          outcome: "fail",
          reason: /1 high.*\(1 suppressed result not counted\); 1 above/,
        },
      },
    ]);
  });
  await t.step("as a policy result", async (t) => {
    await probeTable(t, didPoliciesPass, [
      {
        name: "Semgrep's error result fails, naming its rule",
        input: fixture("sarif/semgrep-nosemgrep.sarif.json"),
        expected: {
          outcome: "fail",
          reason:
            /^SARIF \(Semgrep OSS\): 1 result: 0 critical, 1 high.*; 1 high or critical; first: "rules\.regex\.detected-aws-account-id"$/,
        },
      },
      {
        name: "CodeQL notes pass",
        input: fixture("sarif/codeql-action-valid.sarif.json"),
        expected: { outcome: "pass", reason: /3 results: .* 3 low; none high or critical$/ },
      },
      {
        name: "a log without runs is unknown",
        input: { version: "2.1.0", runs: [] },
        expected: { outcome: "unknown", reason: /^SARIF log has no runs/ },
      },
      {
        name: "Trivy's medium findings pass",
        input: fixture("sarif/trivy-alpine-310.sarif.json"),
        expected: { outcome: "pass", reason: /^SARIF \(Trivy\): 4 results/ },
      },
    ]);
  });
});

Deno.test("[evaluate] readEvidence() names each scanner's format and understands it", async (t) => {
  const rows: [string, unknown, string][] = [
    ["npm-audit/acme-web.json", "vulnerability_scan", "npm-audit"],
    ["pnpm-audit/acme-web.json", "vulnerability_scan", "pnpm-audit"],
    ["yarn-audit/acme-web.ndjson", "vulnerability_scan", "yarn-audit"],
    ["pip-audit/foo-bar-vulns.json", "vulnerability_scan", "pip-audit"],
    ["cargo-audit/time-segfault.json", "vulnerability_scan", "cargo-audit"],
    ["govulncheck/source-call.jsonstream", "vulnerability_scan", "govulncheck"],
    ["snyk/cli-grouping.json", "vulnerability_scan", "snyk"],
    ["sarif/codeql-action-valid.sarif.json", "vulnerability_scan", "sarif"],
    ["sarif/semgrep-nosemgrep.sarif.json", "policy_result", "sarif"],
  ];
  for (const [path, type, format] of rows) {
    await t.step(`${path} as ${type}`, () => {
      const reading = readEvidence(type as "vulnerability_scan", fixture(path));
      assert.deepEqual({ format: reading.format, understood: reading.understood }, {
        format,
        understood: true,
      }, reading.summary);
    });
  }
});

Deno.test("[evaluate] a document nobody reads is told the closest format and how to produce it", async (t) => {
  const rows: [string, "vulnerability_scan" | "policy_result" | "sbom", unknown, RegExp][] = [
    [
      "npm 6's audit without metadata is closest to the v1 report pnpm prints",
      "vulnerability_scan",
      { actions: [], advisories: [] },
      /; closest supported format: pnpm audit JSON \(npm's v1 report\), produced by: pnpm audit --json/,
    ],
    [
      "an old govulncheck -json (one Vulns object) matches nothing: the usual format is named",
      "vulnerability_scan",
      { Vulns: null, Modules: [] },
      /; no supported format is close; for example Trivy JSON, produced by: trivy fs --format json .*\/docs\/evaluation\)$/,
    ],
    [
      "a CycloneDX SBOM sent as a scan names its own evidence type",
      "vulnerability_scan",
      { bomFormat: "CycloneDX", specVersion: "1.5", components: "x" },
      /closest supported format: CycloneDX JSON SBOM, which is read as sbom evidence, produced by: syft/,
    ],
    [
      "a conftest-like array without successes is told conftest",
      "policy_result",
      [{ filename: "a.yaml", failures: [] }],
      /closest supported format: conftest JSON, produced by: conftest test --output json/,
    ],
    [
      "null as a policy result",
      "policy_result",
      null,
      /^Payload is null, not a policy result; no supported format is close; for example conftest JSON/,
    ],
  ];
  for (const [name, type, payload, reason] of rows) {
    await t.step(name, () => {
      const reading = readEvidence(type, payload);
      assert.equal(reading.understood, false);
      assert.equal(reading.format, null);
      assert.match(reading.summary, reason);
      assert.ok(!/[\r\n]/.test(reading.summary));
      const probe = probeById(
        type === "policy_result"
          ? "didPoliciesPass"
          : type === "sbom"
          ? "isSbomDocument"
          : "hasNoFindingAbove",
      );
      assert.match(probe.run(payload, null).reason, reason, "the control's reason says it too");
    });
  }
});

Deno.test("[evaluate] the evaluation rules page lists every evidence format", () => {
  const markdown = renderEvaluationMarkdown();
  assert.ok(markdown.includes("## Evidence formats"));
  for (const format of EVIDENCE_FORMATS) {
    assert.match(markdown, new RegExp(`^\\| \`${format}\`: `, "m"), format);
  }
  for (
    const command of [
      "npm audit --json",
      "pnpm audit --json",
      "yarn npm audit",
      "pip-audit -f json",
      "cargo audit --json",
      "govulncheck -json",
      "snyk test --json",
      "semgrep scan --sarif",
    ]
  ) {
    assert.ok(markdown.includes(command), command);
  }
});
