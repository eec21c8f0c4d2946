/**
 * Every evidence format the probes read: which tool writes it, how to produce it, which
 * evidence type it is sent as and how its severities count. The evaluation rules page
 * lists them from here, and a payload no probe recognizes gets a reason naming the
 * closest of them (by the top-level fields it shares) and the command that produces it.
 */
import type { EvidenceType } from "../domain/control.ts";
import { EVIDENCE_FORMATS, type EvidenceFormat } from "../domain/evidence_formats.ts";
import { isObject } from "./probes/_read.ts";

export interface FormatGuide {
  /** The format's name for people ("npm audit JSON (v2)"). */
  label: string;
  /** The evidence types it is sent as (SARIF serves as scan and as policy result). */
  types: readonly EvidenceType[];
  /** The command that writes it, or how to write it (plain text, one line). */
  produce: string;
  /** What else to know to produce it (plain text), said after the command. */
  also?: string;
  /** How findings or verdicts count (Markdown, one line). */
  counts: string;
  /** Top-level fields the format is recognized by, for the closest-format hint. */
  keys: readonly string[];
}

const SCAN: readonly EvidenceType[] = ["vulnerability_scan"];
const CVSS_BANDS = "CVSS 9.0+ critical, 7.0+ high, 4.0+ medium, below low";

export const FORMAT_GUIDES: Readonly<Record<EvidenceFormat, FormatGuide>> = {
  "scan-summary": {
    label: "Normalized scan summary",
    types: SCAN,
    produce:
      'write {"summary": {"critical": 0, "high": 0, "medium": 2, "low": 5}} from any scanner',
    counts: "the counts as given (a missing one is 0); names no findings, so VEX cannot apply",
    keys: ["summary"],
  },
  "osv-scanner": {
    label: "OSV-Scanner JSON",
    types: SCAN,
    produce: "osv-scanner scan source --format json --output osv.json .",
    counts: `one finding per alias group, by its CVSS vectors (${CVSS_BANDS}), else GitHub's word`,
    keys: ["results", "experimental_config"],
  },
  grype: {
    label: "Grype JSON",
    types: SCAN,
    produce: "grype <image> -o json --file grype.json",
    counts: "Grype's severity word; Negligible is low, Unknown unrated",
    keys: ["matches", "source", "distro", "descriptor"],
  },
  trivy: {
    label: "Trivy JSON",
    types: SCAN,
    produce: "trivy fs --format json --output trivy.json .",
    also: "trivy image writes the same",
    counts: "Trivy's severity; UNKNOWN is unrated; secret- or config-only reports are unknown",
    keys: ["SchemaVersion", "Results", "ArtifactName", "ArtifactType", "Metadata"],
  },
  "npm-audit": {
    label: "npm audit JSON (v2)",
    types: SCAN,
    produce: "npm audit --json > npm-audit.json",
    counts: "one finding per advisory (`via` object) per package, by npm's severity (moderate " +
      "is medium, info low); packages vulnerable only through a dependency are not counted again",
    keys: ["auditReportVersion", "vulnerabilities", "metadata"],
  },
  "pnpm-audit": {
    label: "pnpm audit JSON (npm's v1 report)",
    types: SCAN,
    produce: "pnpm audit --json > pnpm-audit.json",
    also: "npm 6's npm audit --json prints the same shape",
    counts:
      "one finding per advisory per installed version (`findings[].version`), by its severity",
    keys: ["advisories", "metadata", "actions", "muted"],
  },
  "yarn-audit": {
    label: "Yarn audit lines (Yarn 2+)",
    types: SCAN,
    produce: "yarn npm audit --all --recursive --json > yarn-audit.json",
    also: "one JSON object a line, sent as an array",
    counts: "one finding per advisory line and tree version, by its `Severity`",
    keys: ["value", "children"],
  },
  "pip-audit": {
    label: "pip-audit JSON",
    types: SCAN,
    produce: "pip-audit -f json -o pip-audit.json",
    counts: "pip-audit gives no severities: every finding is unrated and fails; skipped " +
      "dependencies are named in the reason",
    keys: ["dependencies", "fixes"],
  },
  "cargo-audit": {
    label: "cargo-audit JSON",
    types: SCAN,
    produce: "cargo audit --json > cargo-audit.json",
    counts: `by the advisory's \`cvss\` vector (${CVSS_BANDS}), else unrated; warnings ` +
      "(unmaintained, unsound, yanked) are not counted",
    keys: ["database", "lockfile", "settings", "vulnerabilities", "warnings"],
  },
  govulncheck: {
    label: "govulncheck JSON stream",
    types: SCAN,
    produce: "govulncheck -json ./... > govulncheck.json",
    also: "a stream of JSON objects: the collector CLI sends it as an array; with curl, wrap it " +
      "with jq -s .",
    counts: "one finding per vulnerability reached at the scan level (called code by default); " +
      "imported-but-not-called and required-only ones are informational; unrated findings fail",
    keys: ["config", "progress", "osv", "finding"],
  },
  snyk: {
    label: "Snyk CLI JSON",
    types: SCAN,
    produce: "snyk test --json > snyk.json",
    also: "with --all-projects it prints an array of projects",
    counts: "one finding per vulnerability per package version (Snyk's uniqueCount), by Snyk's " +
      "severity; license issues are not counted",
    keys: ["vulnerabilities", "ok", "packageManager", "uniqueCount", "dependencyCount"],
  },
  sarif: {
    label: "SARIF 2.1.0",
    types: ["vulnerability_scan", "policy_result"],
    produce: "semgrep scan --sarif --output semgrep.sarif",
    also: "or codeql database analyze --format=sarif-latest --output=codeql.sarif, or trivy fs " +
      "--format sarif --output trivy.sarif .",
    counts: `by \`security-severity\` (${CVSS_BANDS}), else by level: error high, warning ` +
      "medium, note low, none not counted; suppressed results and kinds other than fail are " +
      "left out; a log without runs is unknown; as a policy result, any high or critical " +
      "result fails",
    keys: ["version", "$schema", "runs"],
  },
  cyclonedx: {
    label: "CycloneDX JSON SBOM",
    types: ["sbom"],
    produce: "syft dir:. -o cyclonedx-json=sbom.cdx.json",
    also: "or cdxgen -o sbom.cdx.json",
    counts: "passes when `components[]` entries have names",
    keys: ["bomFormat", "specVersion", "components", "metadata", "serialNumber"],
  },
  spdx: {
    label: "SPDX 2.x JSON SBOM",
    types: ["sbom"],
    produce: "syft dir:. -o spdx-json=sbom.spdx.json",
    counts: "passes when `packages[]` entries have names",
    keys: ["spdxVersion", "SPDXID", "packages", "creationInfo", "dataLicense"],
  },
  "in-toto-statement": {
    label: "in-toto statement (SLSA provenance)",
    types: ["build_provenance"],
    produce: "actions/attest-build-provenance writes it inside a Sigstore bundle; send the bundle",
    counts: "read, but fails unsigned",
    keys: ["_type", "subject", "predicateType", "predicate"],
  },
  "dsse-envelope": {
    label: "DSSE envelope",
    types: ["build_provenance"],
    produce: "send the Sigstore bundle that carries the envelope instead",
    counts: "read, but fails without Sigstore material",
    keys: ["payloadType", "payload", "signatures"],
  },
  "sigstore-bundle": {
    label: "Sigstore bundle",
    types: ["build_provenance"],
    produce: "gh attestation download <artifact>",
    also: "the bundle actions/attest-build-provenance makes",
    counts: "passes when it verifies and its signer is expected",
    keys: ["mediaType", "verificationMaterial", "dsseEnvelope"],
  },
  "npm-lockfile": {
    label: "npm lockfile",
    types: ["dependency_inventory"],
    produce: "package-lock.json as npm writes it",
    counts: "passes with at least one package besides the root",
    keys: ["lockfileVersion", "packages", "name", "requires"],
  },
  "package-list": {
    label: "Package list",
    types: ["dependency_inventory"],
    produce: 'npm ls --all --json, or write {"packages": [{"name": "…", "version": "…"}]}',
    counts: "passes with at least one package",
    keys: ["packages", "components", "dependencies"],
  },
  kubernetes: {
    label: "Kubernetes workloads",
    types: ["deployment_snapshot"],
    produce: "kubectl get deploy,statefulset,daemonset -o json > workloads.json",
    counts: "fails when a workload has fewer ready replicas than wanted",
    keys: ["apiVersion", "kind", "items", "metadata", "spec", "status"],
  },
  "health-snapshot": {
    label: "Health snapshot",
    types: ["deployment_snapshot"],
    produce: 'write {"healthy": true, "services": [{"name": "api", "status": "ok"}]}',
    counts: "fails when it or a service reports itself unhealthy",
    keys: ["healthy", "status", "services", "workloads"],
  },
  conftest: {
    label: "conftest JSON",
    types: ["policy_result"],
    produce: "conftest test --output json deploy.yaml > conftest.json",
    counts: "fails on any failure; warnings do not fail",
    keys: ["filename", "namespace", "successes", "failures", "warnings"],
  },
  "opa-eval": {
    label: "opa eval JSON",
    types: ["policy_result"],
    produce: "opa eval --format json --data policy.rego 'data.ci.allow' > opa.json",
    counts: "a false decision or a non-empty deny set fails",
    keys: ["result", "expressions"],
  },
  "opa-data-api": {
    label: "OPA Data API response",
    types: ["policy_result"],
    produce: "curl -s http://opa:8181/v1/data/ci/allow > opa.json",
    counts: "a false decision or a non-empty deny set fails",
    keys: ["result", "decision_id"],
  },
  "policy-verdict": {
    label: "Plain policy verdict",
    types: ["policy_result"],
    produce: 'write {"passed": true}',
    also: 'or "result"/"status": "pass"/"fail"',
    counts: "the verdict as given",
    keys: ["passed", "result", "status"],
  },
  openvex: {
    label: "OpenVEX",
    types: SCAN,
    produce: "vexctl create --product=pkg:… --vuln=CVE-… --status=not_affected > vex.json",
    counts: "not a scan: applied to the latest scan",
    keys: ["@context", "@id", "statements", "author"],
  },
  "cyclonedx-vex": {
    label: "CycloneDX VEX",
    types: SCAN,
    produce: "a CycloneDX BOM with vulnerabilities[].analysis (e.g. from Dependency-Track)",
    counts: "not a scan: applied to the latest scan",
    keys: ["bomFormat", "specVersion", "vulnerabilities"],
  },
  "csaf-vex": {
    label: "CSAF VEX",
    types: SCAN,
    produce: "a CSAF 2.0 document with document.category csaf_vex",
    counts: "not a scan: applied to the latest scan",
    keys: ["document", "product_tree", "vulnerabilities"],
  },
};

/** The format suggested for a type when nothing in a payload resembles any format. */
const FIRST_CHOICE: Record<EvidenceType, EvidenceFormat> = {
  sbom: "cyclonedx",
  vulnerability_scan: "trivy",
  build_provenance: "sigstore-bundle",
  dependency_inventory: "npm-lockfile",
  deployment_snapshot: "kubernetes",
  policy_result: "conftest",
};

/** The top-level fields of an object, or of the first objects of an array. */
function fieldsOf(payload: unknown): Set<string> {
  if (isObject(payload)) return new Set(Object.keys(payload));
  if (!Array.isArray(payload)) return new Set();
  return new Set(payload.slice(0, 5).filter(isObject).flatMap((item) => Object.keys(item)));
}

/**
 * The sentence that ends the reason for a `type` payload no probe recognized: the format
 * sharing most top-level fields with it (the type's own formats first among equals), or
 * the type's usual one when none shares any, with the command that produces it.
 */
export function closestFormatHint(payload: unknown, type: EvidenceType): string {
  const fields = fieldsOf(payload);
  const ranked = [...EVIDENCE_FORMATS]
    .map((format, order) => {
      const guide = FORMAT_GUIDES[format];
      const shared = guide.keys.filter((key) => fields.has(key)).length;
      return { format, guide, shared, own: guide.types.includes(type) ? 1 : 0, order };
    })
    .sort((a, b) => b.shared - a.shared || b.own - a.own || a.order - b.order);
  const best = ranked[0];
  if (best.shared === 0) {
    const usual = FORMAT_GUIDES[FIRST_CHOICE[type]];
    return `no supported format is close; for example ${usual.label}, produced by: ` +
      `${usual.produce} (every format: /docs/evaluation)`;
  }
  const elsewhere = best.guide.types.includes(type)
    ? ""
    : `, which is read as ${best.guide.types.join(" or ")} evidence`;
  return `closest supported format: ${best.guide.label}${elsewhere}, produced by: ` +
    best.guide.produce;
}
